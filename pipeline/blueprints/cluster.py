"""Clustering of log cases into task types by intent text and action signature.

Similarity of two cases (both in ``[0, 1]``):

* intent: Jaccard similarity of the word unigram+bigram shingles of the customer's first
  message, *delexicalized* (:func:`pipeline.blueprints.delex.delexicalize`: names, ids, e-mails,
  dates... replaced by entity-type placeholders such as ``<PERSON>``, so that the pseudonyms of a
  run, which change with its key, do not move the similarity), lower-cased, words of 2+ letters
  and placeholders, a short stop-word list removed, estimated with datasketch
  ``MinHash(num_perm=128, seed=1)`` (Broder 1997, "On the resemblance and containment of
  documents"); two empty texts count as 1.0.
* signature: Jaccard similarity of the sets of ``tool(arg:shape,...)`` items of the two action
  signatures; two empty signatures count as 1.0.

``combined = SIG_WEIGHT * signature + (1 - SIG_WEIGHT) * intent``. Cases are only compared
inside one *family* (same domain, task kind and expected outcome). Clustering is a
deterministic leader algorithm: cases are visited in a fixed order (signature, then record id);
each joins the existing cluster whose leader (first member) it is most similar to, when that
similarity reaches ``threshold``, else it starts a new cluster. With the default weight 0.5 and
threshold 0.5, identical signatures always merge, and different signatures merge only when the
intents are close.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from datasketch import MinHash

from .delex import delexicalize

SIG_WEIGHT = 0.5
DEFAULT_THRESHOLD = 0.5
NUM_PERM = 128
MINHASH_SEED = 1

_STOP = frozenset("""a an and are as at be but by can could do for from have hello hi i i'd i'm im in is it
my me of on or please so that the there this to was we with would you your yes thanks thank""".split())
_WORD = re.compile(r"<[a-z_]+>|[a-z][a-z']+")


def shingles(text: str) -> set[str]:
    """Word unigrams and bigrams of ``text`` (lower-cased, stop words removed; a placeholder such
    as ``<PERSON>`` is one word)."""
    words = [w for w in _WORD.findall((text or "").lower()) if w not in _STOP]
    return set(words) | {f"{a} {b}" for a, b in zip(words, words[1:])}


def minhash(text: str) -> MinHash | None:
    """The MinHash of :func:`shingles` of ``text``; None when the text has no shingle."""
    sh = shingles(text)
    if not sh:
        return None
    m = MinHash(num_perm=NUM_PERM, seed=MINHASH_SEED)
    for s in sorted(sh):
        m.update(s.encode("utf-8"))
    return m


def intent_similarity(a: MinHash | None, b: MinHash | None) -> float:
    """Estimated Jaccard similarity of two intent MinHashes (1.0 for two empty texts, 0.0 for one)."""
    if a is None or b is None:
        return 1.0 if a is None and b is None else 0.0
    return float(a.jaccard(b))


def signature_similarity(a: list[str], b: list[str]) -> float:
    """Jaccard similarity of two action signatures as sets (1.0 for two empty ones)."""
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


@dataclass
class Case:
    """One log as the clusterer sees it: its family key, signature, intent text and record."""

    family: tuple[str, str, str]  # (domain, kind or "", outcome)
    signature: list[str]
    intent: str
    record_id: str
    payload: Any = None  # whatever the caller needs back (the record, its calls)
    _mh: Any = field(default=None, repr=False)

    @property
    def delex_intent(self) -> str:
        """The intent with values replaced by entity-type placeholders (what is compared)."""
        return delexicalize(self.intent)

    @property
    def mh(self) -> MinHash | None:
        """MinHash of the delexicalized intent's shingles (None when it has none)."""
        if self._mh is None:
            self._mh = minhash(self.delex_intent) or False
        return self._mh or None


def similarity(a: Case, b: Case, sig_weight: float = SIG_WEIGHT) -> float:
    """``sig_weight * signature + (1 - sig_weight) * intent`` similarity of two cases."""
    return (sig_weight * signature_similarity(a.signature, b.signature)
            + (1 - sig_weight) * intent_similarity(a.mh, b.mh))


def cluster_cases(cases: list[Case], threshold: float = DEFAULT_THRESHOLD,
                  sig_weight: float = SIG_WEIGHT) -> list[list[Case]]:
    """Deterministic leader clustering (see the module docstring). Returns clusters, each a list
    of cases with its leader first, ordered by family then creation. ValueError when
    ``threshold`` or ``sig_weight`` is outside [0, 1]. Memory: only leaders keep their MinHash
    (128 hash values); a member's is dropped once it joins a cluster (rebuilt, the same, and not kept,
    when :func:`medoid` or :func:`mean_intent_similarity` samples it)."""
    if not 0.0 <= threshold <= 1.0 or not 0.0 <= sig_weight <= 1.0:
        raise ValueError(f"threshold and sig_weight must be in [0, 1], got {threshold}, {sig_weight}")
    order = sorted(cases, key=lambda c: (c.family, c.signature, c.record_id))
    clusters: list[list[Case]] = []
    by_family: dict[tuple, list[list[Case]]] = {}
    for c in order:
        best, best_sim = None, -1.0
        for cl in by_family.get(c.family, []):
            s = similarity(c, cl[0], sig_weight)
            if s > best_sim:
                best, best_sim = cl, s
        if best is not None and best_sim >= threshold:
            best.append(c)
            c._mh = None  # only leaders are compared again: a member's MinHash is rebuilt if needed
        else:
            new = [c]
            clusters.append(new)
            by_family.setdefault(c.family, []).append(new)
    return clusters


#: Clusters larger than this are summarized (medoid, mean similarity) over this many members,
#: evenly spaced in cluster order: the pairwise work is quadratic in the members compared.
MAX_PAIRWISE = 256


def _sample(cluster: list[Case]) -> list[Case]:
    """``cluster`` itself, or :data:`MAX_PAIRWISE` evenly spaced members (deterministic)."""
    n = len(cluster)
    if n <= MAX_PAIRWISE:
        return cluster
    return [cluster[(i * n) // MAX_PAIRWISE] for i in range(MAX_PAIRWISE)]


def _equal_counts(cases: list[Case]) -> np.ndarray:
    """``(n, n)`` int matrix: for each pair, the number of equal MinHash values out of
    :data:`NUM_PERM` (``NUM_PERM`` * the Jaccard estimate of :func:`intent_similarity`: two empty
    intents count as all equal, an empty and a non-empty one as none)."""
    # a member's MinHash is rebuilt here and not cached on it (only leaders keep theirs)
    mhs = [c.mh if c._mh is not None else minhash(c.delex_intent) for c in cases]
    n = len(cases)
    empty = np.array([m is None for m in mhs])
    hv = np.zeros((n, NUM_PERM), dtype=np.uint64)
    for i, m in enumerate(mhs):
        if m is not None:
            hv[i] = m.hashvalues
    counts = np.zeros((n, n), dtype=np.int64)
    for i in range(n):  # row by row: (n, NUM_PERM) at a time, not (n, n, NUM_PERM)
        counts[i] = (hv == hv[i]).sum(axis=1)
    counts[empty, :] = 0
    counts[:, empty] = 0
    counts[np.ix_(empty, empty)] = NUM_PERM
    return counts


def medoid(cluster: list[Case]) -> Case:
    """The member with the highest mean intent similarity to the others (first on ties); over
    :data:`MAX_PAIRWISE` evenly spaced members when the cluster is larger."""
    if len(cluster) <= 2:
        return cluster[0]
    cases = _sample(cluster)
    counts = _equal_counts(cases)
    totals = counts.sum(axis=1) - np.diag(counts)  # integers: ties are exact, as with the float sums
    return cases[int(np.argmax(totals))]


def mean_intent_similarity(cluster: list[Case]) -> float:
    """Mean pairwise intent similarity inside a cluster (1.0 for a single case), rounded to 3
    places; over :data:`MAX_PAIRWISE` evenly spaced members when the cluster is larger."""
    cases = _sample(cluster)
    n = len(cases)
    if n < 2:
        return 1.0
    counts = _equal_counts(cases)
    tot = int(np.triu(counts, k=1).sum()) / NUM_PERM
    return round(tot / (n * (n - 1) / 2), 3)
