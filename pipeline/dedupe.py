"""Exact and near-duplicate removal over the agent-visible text of kept trajectories.

Two trajectories are compared on what an agent saw and did: the user, assistant and tool
messages and the tool calls (name + canonical arguments). The system prompt is left out (the
policy is shared by every task of a domain and would make everything look alike), and so are
tool-call ids (random per rollout).

* **Exact**: SHA-256 of that canonical text; a repeat is rejected with ``DEDUPE_EXACT``.
* **Near**: candidate pairs come from MinHash LSH (Broder 1997, "On the resemblance and
  containment of documents"; Leskovec, Rajaraman & Ullman, *Mining of Massive Datasets*, ch. 3.4)
  over lower-cased word ``shingle``-grams; each candidate pair is then decided on the **exact**
  Jaccard similarity of the two shingle sets, ``|A & B| / |A | B| >= threshold``, and a later
  trajectory that passes is rejected with ``DEDUPE_NEAR``.

  LSH bands each signature into ``b`` bands of ``r`` rows; a pair whose true Jaccard similarity
  is ``s`` shares at least one band, i.e. becomes a candidate, with probability
  ``P(s) = 1 - (1 - s**r)**b`` (the S-curve; MMDS ch. 3.4, "Analysis of the Banding Technique"). :func:`lsh_params` picks ``(b, r)``
  with ``b >= 2``, ``b*r <= num_perm`` and ``P(threshold) >= RECALL_AT_THRESHOLD`` (0.99), and among
  those the one with the least false-candidate area ``∫_0^threshold P(s) ds`` (the quantity
  datasketch's own optimizer weighs as false positives); it is passed to
  ``MinHashLSH(params=(b, r))`` explicitly. Since ``P`` rises with ``s``, every pair at or above the
  threshold is a candidate with probability >= 0.99, and the exact check makes the decision
  itself noise-free: no pair below the threshold is rejected, and a pair at or above it is
  rejected whenever LSH proposes it. (Confirming with the MinHash *estimate* instead, as trajpipe
  did before, misses about half of the pairs right at the threshold: the estimate's standard error
  is ``sqrt(s(1-s)/num_perm)``, about 0.027 at ``s = 0.9`` with 128 permutations.)

  The exact check needs the kept trajectory's shingle set: it is rebuilt from the kept
  trajectory itself (which :func:`dedupe`'s result holds anyway; :func:`dedupe_ids` reads it
  again from the input by position) when a candidate names it; the :data:`SHINGLE_CACHE` most
  recently used sets are cached, so memory does not grow with them.

Signatures are computed in bulk (datasketch ``MinHash.generator``, which reuses one MinHash's
permutations instead of drawing them per document) over chunks of ``chunk_size`` trajectories,
with datasketch's default shingle hash (``sha1_hash32``; the signatures are bit-identical to a
per-document ``MinHash(num_perm, seed=1).update_batch(...)``), as
:class:`datasketch.LeanMinHash` (hash values only, no permutations). Input is consumed chunk by
chunk, so a generator of trajectories is never held whole; what stays in memory per kept
trajectory is its band keys in the LSH index, its SHA-256, and the reference the result keeps
anyway (plus at most :data:`SHINGLE_CACHE` cached shingle sets). :func:`dedupe_ids` makes the
same decisions keeping ids only (no trajectory, kept or rejected): for inputs larger than memory,
e.g. a :class:`pipeline.streams.JsonlSeq`. ``bench/dedupe.py`` measures the
speed against a plain per-document datasketch loop, and recall / false positives on planted pairs.

Order is deterministic: the first trajectory seen wins, later copies are rejected with a detail
naming the kept one. Dedupe runs across all tasks (not only within one); different task
instances carry different fictional entities (names, ids, dates), so they rarely collide.

Example: threshold 0.9 with 128 permutations gives ``(b, r) = (11, 10)``: ``P(0.9) = 0.991``,
``P(0.8) = 0.71``, ``P(0.5) = 0.011``, ``P(0.3) = 0.0001``. ``lsh_threshold`` moves the point
where ``P >= 0.99`` is guaranteed below ``threshold`` (more candidates to check exactly, recall at
the threshold closer to 1); it never changes which pairs count as duplicates.
"""
from __future__ import annotations

import hashlib
import json
import math
import numbers
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import islice
from typing import Any, Callable, Iterable, Iterator

from datasketch import LeanMinHash, MinHash, MinHashLSH

from .records import Trajectory, canonical_json

DEDUPE_EXACT = "DEDUPE_EXACT"
DEDUPE_NEAR = "DEDUPE_NEAR"

#: Seed of the MinHash permutations; fixed so signatures (and results) are reproducible.
MINHASH_SEED = 1
#: Trajectories whose signatures are computed in one bulk call (bounds the working memory).
CHUNK_SIZE = 1024
#: Probability that LSH proposes a pair whose Jaccard similarity is at the threshold (lsh_params).
RECALL_AT_THRESHOLD = 0.99
#: Kept trajectories whose shingle sets are cached for exact Jaccard checks (least recently used
#: out; a miss rebuilds the set from the kept trajectory). Bounds that memory to about one chunk's.
SHINGLE_CACHE = 1024


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
    exact Jaccard similarity of the shingle sets). ``params``: the LSH ``(b, r)`` used;
    ``candidates``: candidate pairs LSH proposed and that were checked exactly.
    """

    kept: list[Trajectory] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    params: tuple[int, int] = (0, 0)
    candidates: int = 0


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


def jaccard(a: set[str] | frozenset[str], b: set[str] | frozenset[str]) -> float:
    """Exact Jaccard similarity ``|a & b| / |a | b|`` of two shingle sets (1.0 for two empty sets)."""
    if not a and not b:
        return 1.0
    inter = len(a & b) if len(a) <= len(b) else len(b & a)
    return inter / (len(a) + len(b) - inter)


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
    """Probability that a pair of Jaccard similarity ``s`` becomes an LSH candidate: ``1-(1-s^r)^b``,
    computed as ``-expm1(b * log1p(-s^r))`` so that it does not round to 0 for tiny ``s`` (at
    ``s = 1e-17``, ``1 - s`` is 1.0 in floating point)."""
    p = s**r
    if p >= 1.0:
        return 1.0
    return -math.expm1(b * math.log1p(-p))


def _valid_threshold(threshold: float, name: str = "threshold") -> float:
    """``threshold`` as a float; ValueError unless it is a real number in ``(0, 1]`` (NaN, bools,
    strings and values outside the range are refused)."""
    if isinstance(threshold, (bool, str, bytes)) or not isinstance(threshold, numbers.Real):
        raise ValueError(f"{name} must be a number in (0, 1], got {threshold!r}")
    t = float(threshold)
    if not 0.0 < t <= 1.0:
        raise ValueError(f"{name} must be in (0, 1], got {threshold!r}")
    return t


def _valid_int(value: Any, name: str) -> int:
    """``value`` as an int; ValueError unless it is an integer (``128``, ``numpy.int64(128)``;
    not ``128.5``, ``"128"``, ``None`` or a bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return int(value)


def _fp_area(b: int, r: int, threshold: float, steps: int = 200) -> float:
    """``∫_0^threshold s_curve(s, b, r) ds`` (midpoint rule): how many pairs below the threshold
    LSH proposes, for similarities spread evenly (datasketch weighs false positives the same way)."""
    h = threshold / steps
    return h * sum(s_curve((i + 0.5) * h, b, r) for i in range(steps))


def lsh_params(threshold: float, num_perm: int, recall: float = RECALL_AT_THRESHOLD) -> tuple[int, int]:
    """Bands and rows ``(b, r)`` for ``MinHashLSH(params=(b, r))``: ``b >= 2`` (datasketch needs
    two bands), ``b*r <= num_perm``, ``s_curve(threshold, b, r) = 1-(1-threshold**r)**b >= recall``
    (a pair whose Jaccard similarity is at the threshold becomes a candidate with at least that
    probability; Leskovec, Rajaraman & Ullman, *Mining of Massive Datasets*, ch. 3.4), and, among
    those, the least false-candidate area ``∫_0^threshold s_curve(s) ds`` (ties: fewer bands).

    Examples with 128 permutations: 0.9 -> ``(11, 10)`` (``P(0.9) = 0.991``), 0.8 -> ``(16, 6)``,
    0.995 -> ``(3, 42)``, 1.0 -> ``(2, 64)``. If no choice reaches ``recall`` (very few
    permutations), the one with the highest ``s_curve(threshold)`` is returned.

    Raises:
        ValueError: ``threshold`` not a number in ``(0, 1]``, ``num_perm < 2``, or ``recall``
            not in ``(0, 1)``.
    """
    threshold = _valid_threshold(threshold)
    num_perm = _valid_int(num_perm, "num_perm")
    if num_perm < 2:
        raise ValueError(f"num_perm must be >= 2, got {num_perm}")
    if not 0.0 < recall < 1.0:
        raise ValueError(f"recall must be in (0, 1), got {recall!r}")
    return _lsh_params(threshold, int(num_perm), float(recall))


@lru_cache(maxsize=256)
def _lsh_params(threshold: float, num_perm: int, recall: float) -> tuple[int, int]:
    best: tuple[tuple[float, float, int], int, int] | None = None
    for r in range(1, num_perm // 2 + 1):
        b_max = num_perm // r
        if s_curve(threshold, b_max, r) < recall:
            key: tuple[float, float, int] = (1.0, -s_curve(threshold, b_max, r), b_max)
            b = b_max
        else:
            # s_curve and the false-candidate area both grow with b: take the fewest bands
            lo, hi = 2, b_max
            while lo < hi:
                mid = (lo + hi) // 2
                if s_curve(threshold, mid, r) >= recall:
                    hi = mid
                else:
                    lo = mid + 1
            b = lo
            key = (0.0, _fp_area(b, r, threshold), b)
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
            near duplicates (computed exactly for every LSH candidate pair); any number in
            ``(0, 1]`` (at 1.0, texts with the same shingle set, e.g. differing only in case or
            spacing, are near duplicates).
        num_perm: MinHash permutations (signature length).
        shingle: words per shingle.
        lsh_threshold: the similarity at which LSH must propose a pair with probability >= 0.99
            (:func:`lsh_params`; default and at most: ``threshold``). Lower values only add
            candidates (each costs one exact Jaccard check) and push recall at ``threshold``
            closer to 1; which pairs are duplicates is decided by ``threshold`` alone.
        chunk_size: trajectories whose signatures are computed in one bulk call (>= 1); the
            result does not depend on it.

    Returns:
        :class:`DedupeResult`; ``len(kept) + len(rejected)`` equals the number of inputs. Exact
        copies (same SHA-256 of :func:`agent_visible_text`) get ``DEDUPE_EXACT`` with detail
        ``"duplicate of <id>"``; near copies get ``DEDUPE_NEAR`` with detail
        ``"near duplicate of <id> (jaccard=0.950)"`` (exact Jaccard, rounded for display), naming the
        most similar kept trajectory (the earliest kept one among equals).

    Raises:
        ValueError: ``threshold`` or ``lsh_threshold`` not a number in ``(0, 1]``,
            ``num_perm < 2``, ``shingle < 1``, ``chunk_size < 1``, or two inputs share a
            ``trajectory_id``.
    """
    result = DedupeResult()
    kept_by_id: dict[str, Trajectory] = {}

    def keep(_pos: int, t: Trajectory) -> None:
        kept_by_id[t.trajectory_id] = t
        result.kept.append(t)

    def reject(_pos: int, t: Trajectory, code: str, detail: str) -> None:
        result.rejected.append((t, code, detail))

    result.params, result.candidates = _run(trajectories, threshold, num_perm, shingle, lsh_threshold, chunk_size,
                                            keep, reject, lambda tid: agent_visible_text(kept_by_id[tid]))
    return result


@dataclass
class DedupeIds:
    """What :func:`dedupe_ids` returns: the decisions of :func:`dedupe`, by id.

    ``kept``: ``trajectory_id`` of each kept trajectory, in input order; ``rejected``:
    ``(trajectory_id, reason_code, detail)``, details as in :class:`DedupeResult`; ``params`` and
    ``candidates`` as there."""

    kept: list[str] = field(default_factory=list)
    rejected: list[tuple[str, str, str]] = field(default_factory=list)
    params: tuple[int, int] = (0, 0)
    candidates: int = 0


def dedupe_ids(
    trajectories: Iterable[Trajectory],
    threshold: float = 0.9,
    num_perm: int = 128,
    shingle: int = 5,
    lsh_threshold: float | None = None,
    chunk_size: int = CHUNK_SIZE,
    fetch: Callable[[int], Trajectory] | None = None,
) -> DedupeIds:
    """:func:`dedupe` (the same decisions, in the same order, with the same details) holding no
    trajectory: memory per kept trajectory is its id, its input position, its SHA-256 and its LSH
    band keys, plus at most :data:`SHINGLE_CACHE` cached shingle sets and one chunk of input.

    When an LSH candidate's shingle set is not cached, the kept trajectory is read again by its
    position in the input: ``fetch(position)`` (0-based), or ``trajectories[position]`` when
    ``trajectories`` is a sequence (a list, a :class:`pipeline.streams.JsonlSeq`). For a one-pass
    iterator without ``fetch``, each kept trajectory's agent-visible text is kept zlib-compressed
    instead (that memory grows with the kept count). Arguments and errors as :func:`dedupe`."""
    import zlib
    from collections.abc import Sequence

    result = DedupeIds()
    pos_of: dict[str, int] = {}
    packed: dict[str, bytes] = {}
    if fetch is None and isinstance(trajectories, Sequence):
        fetch = trajectories.__getitem__

    def keep(pos: int, t: Trajectory) -> None:
        pos_of[t.trajectory_id] = pos
        if fetch is None:
            packed[t.trajectory_id] = zlib.compress(_utf8(agent_visible_text(t)), 1)
        result.kept.append(t.trajectory_id)

    def reject(_pos: int, t: Trajectory, code: str, detail: str) -> None:
        result.rejected.append((t.trajectory_id, code, detail))

    def kept_text(tid: str) -> str:
        if fetch is None:
            return zlib.decompress(packed[tid]).decode("utf-8", "surrogatepass")
        t = fetch(pos_of[tid])
        if t.trajectory_id != tid:
            raise ValueError(f"fetch({pos_of[tid]}) returned {t.trajectory_id!r}, expected {tid!r}")
        return agent_visible_text(t)

    result.params, result.candidates = _run(trajectories, threshold, num_perm, shingle, lsh_threshold, chunk_size,
                                            keep, reject, kept_text)
    return result


def _run(trajectories: Iterable[Trajectory], threshold: float, num_perm: int, shingle: int,
         lsh_threshold: float | None, chunk_size: int, keep: Callable[[int, Trajectory], None],
         reject: Callable[[int, Trajectory, str, str], None],
         kept_text: Callable[[str], str]) -> tuple[tuple[int, int], int]:
    """The dedupe pass shared by :func:`dedupe` and :func:`dedupe_ids`: calls ``keep(position,
    trajectory)`` or ``reject(position, trajectory, code, detail)`` for each input in order;
    ``kept_text(id)`` gives a kept trajectory's agent-visible text when its shingle set is not
    cached. Returns ``((b, r), candidates)``."""
    shingle = _valid_int(shingle, "shingle")
    num_perm = _valid_int(num_perm, "num_perm")
    if shingle < 1:
        raise ValueError(f"shingle must be >= 1, got {shingle}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be an int >= 1, got {chunk_size!r}")
    threshold = _valid_threshold(threshold)
    if lsh_threshold is not None:
        lsh_threshold = _valid_threshold(lsh_threshold, "lsh_threshold")
    point = threshold if lsh_threshold is None else min(lsh_threshold, threshold)
    b, r = lsh_params(point, num_perm)
    lsh = MinHashLSH(num_perm=num_perm, params=(b, r))
    candidates = 0
    exact: dict[str, str] = {}  # sha256 -> kept trajectory_id
    cache: OrderedDict[str, frozenset[str]] = OrderedDict()  # kept id -> shingle set (LRU)
    order: dict[str, int] = {}

    def remember(tid: str, shingle_set: frozenset[str]) -> None:
        cache[tid] = shingle_set
        if len(cache) > SHINGLE_CACHE:
            cache.popitem(last=False)

    def kept_shingles(tid: str) -> frozenset[str]:
        got = cache.get(tid)
        if got is None:
            got = frozenset(shingles(kept_text(tid), shingle))
            remember(tid, got)
        else:
            cache.move_to_end(tid)
        return got

    seen: set[str] = set()
    pos = 0
    for chunk in _chunks(trajectories, chunk_size):
        rows: list[tuple[int, Trajectory, str, str]] = []  # (position, trajectory, text, digest)
        for t in chunk:
            if t.trajectory_id in seen:
                raise ValueError(f"duplicate trajectory_id {t.trajectory_id!r}")
            seen.add(t.trajectory_id)
            text = agent_visible_text(t)
            rows.append((pos, t, text, hashlib.sha256(_utf8(text)).hexdigest()))
            pos += 1
        # one signature per distinct text not already kept, computed in bulk
        todo: dict[str, frozenset[str]] = {}  # digest -> shingle set
        for _, _, text, digest in rows:
            if digest not in exact and digest not in todo:
                todo[digest] = frozenset(shingles(text, shingle))
        sigs = dict(zip(todo, minhashes(todo.values(), num_perm)))
        for p, t, _, digest in rows:
            if digest in exact:
                reject(p, t, DEDUPE_EXACT, f"duplicate of {exact[digest]}")
                continue
            m, mine = sigs[digest], todo[digest]
            best_id, best_j = None, -1.0
            for cand in sorted(lsh.query(m), key=order.__getitem__):
                candidates += 1
                j = jaccard(mine, kept_shingles(cand))
                if j >= threshold and j > best_j:
                    best_id, best_j = cand, j
            if best_id is not None:
                reject(p, t, DEDUPE_NEAR, f"near duplicate of {best_id} (jaccard={best_j:.3f})")
                continue
            exact[digest] = t.trajectory_id
            order[t.trajectory_id] = len(order)
            remember(t.trajectory_id, mine)
            lsh.insert(t.trajectory_id, m)
            keep(p, t)
    return (b, r), candidates
