"""Exact and near-duplicate removal over the agent-visible text of kept trajectories.

Two trajectories are compared on what an agent saw and did: the user, assistant and tool
messages and the tool calls (name + canonical arguments). The system prompt is left out (the
policy is shared by every task of a domain and would make everything look alike), and so are
tool-call ids (random per rollout).

* **Exact**: SHA-256 of that canonical text; a repeat is rejected with ``DEDUPE_EXACT``.
* **Near**: MinHash signatures (Broder 1997, "On the resemblance and containment of documents")
  over lower-cased word ``shingle``-grams estimate the Jaccard similarity of shingle sets;
  MinHash LSH (Leskovec, Rajaraman & Ullman, *Mining of Massive Datasets*, ch. 3.4) finds
  candidate pairs by banding the signature into ``b`` bands of ``r`` rows. A pair with Jaccard
  similarity ``s`` becomes a candidate with probability ``1 - (1 - s**r)**b`` (the S-curve), whose
  steep part sits near ``(1/b)**(1/r)`` (MMDS §3.4.3). :func:`lsh_params` picks ``(b, r)`` with
  ``b*r <= num_perm`` so that this point is as close as possible to ``threshold`` and passes it
  to ``MinHashLSH(params=(b, r))`` explicitly (datasketch's own optimizer does not aim at that
  point). Candidates are then confirmed with the MinHash Jaccard estimate ``>= threshold`` and
  rejected with ``DEDUPE_NEAR``.

Signatures are computed in bulk (datasketch ``MinHash.generator``, which reuses one MinHash's
permutations instead of drawing them per document) over chunks of ``chunk_size`` trajectories,
with datasketch's default shingle hash (``sha1_hash32``; the signatures are bit-identical to a
per-document ``MinHash(num_perm, seed=1).update_batch(...)``, so results do not change), and kept as
:class:`datasketch.LeanMinHash` (hash values only: no permutations, about 0.5 KiB each at 128
permutations). Input is consumed chunk by chunk, so a generator of trajectories is never held
whole; only the kept trajectories' sketches stay in memory. ``bench/dedupe.py`` measures the speed
against a plain per-document datasketch loop, and recall / false positives on planted pairs.

Order is deterministic: the first trajectory seen wins, later copies are rejected with a detail
naming the kept one. Dedupe runs across all tasks (not only within one); different task
instances carry different fictional entities (names, ids, dates), so they rarely collide.

Note on recall: with the 50% point at the threshold, a pair exactly at the threshold is found
about two times in three (``b=7, r=18`` at 0.9 with 128 permutations: ``s_curve(0.90) = 0.68``,
``s_curve(0.93) = 0.89``, ``s_curve(0.95) = 0.97``); pass ``lsh_threshold`` below ``threshold``
to trade a few more candidate checks for recall. The MinHash estimate itself has a standard error of ``sqrt(s(1-s)/num_perm)``
(about 0.027 at ``s=0.9``, 128 permutations), so pairs right at the threshold are a coin flip
either way.
"""
from __future__ import annotations

import hashlib
import json
import numbers
from dataclasses import dataclass, field
from itertools import islice
from typing import Iterable, Iterator

from datasketch import LeanMinHash, MinHash, MinHashLSH

from .records import Trajectory, canonical_json

DEDUPE_EXACT = "DEDUPE_EXACT"
DEDUPE_NEAR = "DEDUPE_NEAR"

#: Seed of the MinHash permutations; fixed so signatures (and results) are reproducible.
MINHASH_SEED = 1
#: Trajectories whose signatures are computed in one bulk call (bounds the working memory).
CHUNK_SIZE = 1024


def _utf8(text: str) -> bytes:
    """UTF-8 bytes of ``text``; lone surrogates (from model output that escaped cleaning) are kept
    as their surrogate code units (``surrogatepass``) instead of raising UnicodeEncodeError."""
    return text.encode("utf-8", "surrogatepass")

Rejected = tuple[Trajectory, str, str]


@dataclass
class DedupeResult:
    """What :func:`dedupe` returns.

    ``kept``: trajectories in input order, first occurrence of each duplicate cluster.
    ``rejected``: ``(trajectory, reason_code, detail)`` with ``DEDUPE_EXACT`` or ``DEDUPE_NEAR``;
    the detail names the kept duplicate's ``trajectory_id`` (and, for near duplicates, the
    Jaccard estimate). ``params``: the LSH ``(b, r)`` used.
    """

    kept: list[Trajectory] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    params: tuple[int, int] = (0, 0)


def _canonical_arguments(arguments) -> str:
    if isinstance(arguments, str):
        try:
            return canonical_json(json.loads(arguments))
        except (ValueError, TypeError):
            return arguments
    return canonical_json(arguments)


def agent_visible_text(trajectory: Trajectory) -> str:
    """The canonical text dedupe compares: every non-system message, one line per item.

    Lines are ``"user: ..."``, ``"assistant: ..."``, ``"call NAME {canonical args}"`` for each
    tool call of an assistant message, and ``"tool NAME: ..."`` for tool results. Tool-call ids
    and the system prompt are omitted; arguments given as JSON strings are re-serialized with
    :func:`~pipeline.records.canonical_json` so key order and spacing do not matter.
    """
    lines: list[str] = []
    for m in trajectory.messages:
        role = m.get("role")
        if role == "system":
            continue
        content = m.get("content")
        if content is not None and not isinstance(content, str):
            content = canonical_json(content)
        if role == "tool":
            lines.append(f"tool {m.get('name') or ''}: {content or ''}")
            continue
        if content:
            lines.append(f"{role}: {content}")
        for call in m.get("tool_calls") or []:
            fn = call.get("function") or {}
            lines.append(f"call {fn.get('name', '')} {_canonical_arguments(fn.get('arguments', '{}'))}")
    return "\n".join(lines)


def shingles(text: str, n: int = 5) -> set[str]:
    """Word ``n``-gram shingles of lower-cased, whitespace-split ``text``.

    A text shorter than ``n`` words yields one shingle of all its words (the empty text yields
    ``{""}``), so every text has a non-empty shingle set.
    """
    words = text.lower().split()
    if len(words) < n:
        return {" ".join(words)}
    return {" ".join(words[i : i + n]) for i in range(len(words) - n + 1)}


def _shingle_bytes(shingle_set: Iterable[str]) -> list[bytes]:
    return [_utf8(s) for s in sorted(shingle_set)]


def minhash(shingle_set: Iterable[str], num_perm: int = 128) -> LeanMinHash:
    """The MinHash signature (``num_perm`` permutations, seed :data:`MINHASH_SEED`, datasketch's
    default SHA-1 based 32-bit shingle hash) of one shingle set, as a :class:`datasketch.LeanMinHash`; the same
    values :func:`minhashes` gives in bulk."""
    m = MinHash(num_perm=num_perm, seed=MINHASH_SEED)
    m.update_batch(_shingle_bytes(shingle_set))
    return LeanMinHash(m)


def minhashes(shingle_sets: Iterable[Iterable[str]], num_perm: int = 128) -> list[LeanMinHash]:
    """Signatures of many shingle sets in one bulk call (datasketch ``MinHash.generator``: the
    permutations are drawn once); element ``i`` equals ``minhash(shingle_sets[i], num_perm)``."""
    gen = MinHash.generator((_shingle_bytes(s) for s in shingle_sets), num_perm=num_perm,
                            seed=MINHASH_SEED)
    return [LeanMinHash(m) for m in gen]


def s_curve(s: float, b: int, r: int) -> float:
    """Probability that a pair of Jaccard similarity ``s`` becomes an LSH candidate: ``1-(1-s^r)^b``."""
    return 1.0 - (1.0 - s**r) ** b


def _valid_threshold(threshold: float, name: str = "threshold") -> float:
    """``threshold`` as a float; ValueError unless it is a real number in ``(0, 1]`` (NaN, bools,
    strings and values outside the range are refused)."""
    if isinstance(threshold, (bool, str, bytes)) or not isinstance(threshold, numbers.Real):
        raise ValueError(f"{name} must be a number in (0, 1], got {threshold!r}")
    t = float(threshold)
    if not 0.0 < t <= 1.0:
        raise ValueError(f"{name} must be in (0, 1], got {threshold!r}")
    return t


def lsh_params(threshold: float, num_perm: int) -> tuple[int, int]:
    """Bands and rows ``(b, r)``, ``b >= 2``, ``b*r <= num_perm``, with ``(1/b)**(1/r)`` nearest
    ``threshold``.

    ``(1/b)**(1/r)`` approximates where the S-curve :func:`s_curve` rises through one half
    (MMDS §3.4.3). Ties prefer using more permutations (larger ``b*r``). Example: threshold 0.9
    with 128 permutations gives ``(7, 18)``, point 0.898. datasketch's ``MinHashLSH`` needs at
    least two bands, so the highest point reachable is ``(1/2)**(1/(num_perm//2))``: thresholds
    above it (e.g. 0.995 or 1.0 with 128 permutations, point 0.989) get ``(2, num_perm//2)``,
    which only finds more candidates (each is still confirmed against the threshold).

    Raises:
        ValueError: ``threshold`` not a number in ``(0, 1]``, or ``num_perm < 2``.
    """
    threshold = _valid_threshold(threshold)
    if num_perm < 2:
        raise ValueError(f"num_perm must be >= 2, got {num_perm}")
    best: tuple[tuple[float, int], int, int] | None = None
    for r in range(1, num_perm // 2 + 1):  # b = num_perm // r >= 2
        b = num_perm // r
        key = (abs((1.0 / b) ** (1.0 / r) - threshold), -(b * r))
        if best is None or key < best[0]:
            best = (key, b, r)
    assert best is not None
    return best[1], best[2]


def _chunks(items: Iterable[Trajectory], size: int) -> Iterator[list[Trajectory]]:
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


def dedupe(
    trajectories: Iterable[Trajectory],
    threshold: float = 0.9,
    num_perm: int = 128,
    shingle: int = 5,
    lsh_threshold: float | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> DedupeResult:
    """Remove exact and near-duplicate trajectories (first seen wins).

    Args:
        trajectories: usually the ``kept`` list of :func:`pipeline.select.select`; any iterable
            (read ``chunk_size`` at a time).
        threshold: Jaccard similarity of shingle sets at or above which two trajectories are
            near duplicates (estimated with MinHash); any number in ``(0, 1]`` (at 1.0 only
            copies whose MinHash signatures are identical count as near duplicates).
        num_perm: MinHash permutations (signature length).
        shingle: words per shingle.
        lsh_threshold: where the LSH S-curve's ``(1/b)**(1/r)`` point should sit (default:
            ``threshold``). Lower it (e.g. ``threshold - 0.1``) to find more of the pairs just
            above ``threshold``; extra candidates only cost a Jaccard estimate each, since
            every candidate is confirmed against ``threshold``.
        chunk_size: trajectories whose signatures are computed in one bulk call (>= 1); the
            result does not depend on it.

    Returns:
        :class:`DedupeResult`; ``len(kept) + len(rejected)`` equals the number of inputs. Exact
        copies (same SHA-256 of :func:`agent_visible_text`) get ``DEDUPE_EXACT`` with detail
        ``"duplicate of <id>"``; near copies get ``DEDUPE_NEAR`` with detail
        ``"near duplicate of <id> (jaccard~0.950)"``, naming the most similar kept trajectory.

    Raises:
        ValueError: ``threshold`` or ``lsh_threshold`` not a number in ``(0, 1]``,
            ``num_perm < 2``, ``shingle < 1``, ``chunk_size < 1``, or two inputs share a
            ``trajectory_id``.
    """
    if shingle < 1:
        raise ValueError(f"shingle must be >= 1, got {shingle}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be an int >= 1, got {chunk_size!r}")
    threshold = _valid_threshold(threshold)
    if lsh_threshold is not None:
        lsh_threshold = _valid_threshold(lsh_threshold, "lsh_threshold")
    b, r = lsh_params(threshold if lsh_threshold is None else lsh_threshold, num_perm)
    lsh = MinHashLSH(num_perm=num_perm, params=(b, r))
    result = DedupeResult(params=(b, r))
    exact: dict[str, str] = {}  # sha256 -> kept trajectory_id
    sketches: dict[str, LeanMinHash] = {}
    order: dict[str, int] = {}
    seen: set[str] = set()
    for chunk in _chunks(trajectories, chunk_size):
        rows: list[tuple[Trajectory, str, str]] = []  # (trajectory, text, digest)
        for t in chunk:
            if t.trajectory_id in seen:
                raise ValueError(f"duplicate trajectory_id {t.trajectory_id!r}")
            seen.add(t.trajectory_id)
            text = agent_visible_text(t)
            rows.append((t, text, hashlib.sha256(_utf8(text)).hexdigest()))
        # one signature per distinct text not already kept, computed in bulk
        todo: dict[str, str] = {}
        for _, text, digest in rows:
            if digest not in exact and digest not in todo:
                todo[digest] = text
        sigs = dict(zip(todo, minhashes((shingles(x, shingle) for x in todo.values()), num_perm)))
        for t, _, digest in rows:
            if digest in exact:
                result.rejected.append((t, DEDUPE_EXACT, f"duplicate of {exact[digest]}"))
                continue
            m = sigs[digest]
            best_id, best_j = None, -1.0
            for cand in sorted(lsh.query(m), key=order.__getitem__):
                j = m.jaccard(sketches[cand])
                if j >= threshold and j > best_j:
                    best_id, best_j = cand, j
            if best_id is not None:
                result.rejected.append(
                    (t, DEDUPE_NEAR, f"near duplicate of {best_id} (jaccard~{best_j:.3f})")
                )
                continue
            exact[digest] = t.trajectory_id
            sketches[t.trajectory_id] = m
            order[t.trajectory_id] = len(order)
            lsh.insert(t.trajectory_id, m)
            result.kept.append(t)
    return result
