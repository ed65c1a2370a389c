"""Bulk signatures and streaming in pipeline.dedupe: the same results as one MinHash per
document, whatever the chunk size; thresholds across (0, 1] on planted pairs of known Jaccard;
hostile text (lone surrogates) does not crash."""
from __future__ import annotations

import random

import pytest
from datasketch import MinHash

from pipeline.dedupe import (DEDUPE_EXACT, DEDUPE_NEAR, agent_visible_text, dedupe, minhash, minhashes,
                             shingles)
from pipeline.records import Trajectory

WORDS = ("flight reservation cancel change baggage refund upgrade seat cabin economy business passenger "
         "date city airport delay policy insurance payment card voucher certificate member gold silver").split()


def traj(tid: str, text: str, extra: str = "") -> Trajectory:
    return Trajectory(
        trajectory_id=tid, task_id="t", blueprint_id="bp", sample_index=0, model="m", backend="fake",
        messages=[{"role": "system", "content": "policy"}, {"role": "user", "content": text},
                  {"role": "assistant", "content": "Done. " + extra}],
        tools=[], tool_calls=[], final_state_hash="h", finish_reason="agent_stop", n_turns=1,
        prompt_tokens=1, completion_tokens=1, seed=0)


def random_text(rng: random.Random, n: int = 120) -> str:
    return " ".join(f"{rng.choice(WORDS)}{rng.randint(0, 50)}" for _ in range(n))


def corpus(seed: int = 0, n: int = 60):
    """Distinct texts plus exact copies and light edits (near copies), shuffled."""
    rng = random.Random(seed)
    base = [traj(f"b{i}", random_text(rng)) for i in range(n)]
    extra = []
    for i in range(0, n, 3):
        extra.append(traj(f"x{i}", base[i].messages[1]["content"]))  # exact
        words = base[i].messages[1]["content"].split()
        words[rng.randrange(len(words))] = "edited"
        extra.append(traj(f"n{i}", " ".join(words)))  # near (one word of 120)
    items = base + extra
    rng.shuffle(items)
    return items


def test_bulk_signatures_equal_per_document_minhash():
    rng = random.Random(1)
    sets = [shingles(random_text(rng, rng.randint(1, 80))) for _ in range(25)] + [shingles("")]
    bulk = minhashes(sets)
    assert len(bulk) == len(sets)
    for s, m in zip(sets, bulk):
        ref = MinHash(num_perm=128, seed=1)  # datasketch's default hash, as before bulk signatures
        ref.update_batch([x.encode("utf-8") for x in sorted(s)])
        assert (m.hashvalues == ref.hashvalues).all()
        assert (minhash(s).hashvalues == m.hashvalues).all()
    assert minhashes([]) == []


@pytest.mark.parametrize("chunk_size", [1, 2, 7, 64, 10_000])
def test_result_does_not_depend_on_chunk_size_or_input_type(chunk_size):
    items = corpus()
    ref = dedupe(items, chunk_size=10_000)
    got = dedupe(iter(items), chunk_size=chunk_size)  # a one-pass iterator is enough
    assert [t.trajectory_id for t in got.kept] == [t.trajectory_id for t in ref.kept]
    assert [(t.trajectory_id, c, d) for t, c, d in got.rejected] == \
        [(t.trajectory_id, c, d) for t, c, d in ref.rejected]
    assert len(got.kept) + len(got.rejected) == len(items)
    codes = {c for _, c, _ in got.rejected}
    assert codes == {DEDUPE_EXACT, DEDUPE_NEAR}


def test_exact_copy_of_a_near_duplicate_in_the_same_chunk():
    """First seen wins across chunk boundaries: a copy of a rejected near duplicate is itself a
    near duplicate of the kept original (same as the one-at-a-time order)."""
    rng = random.Random(5)
    text = random_text(rng)
    words = text.split()
    words[10] = "edited"
    near = " ".join(words)
    items = [traj("a", text), traj("n1", near), traj("n2", near), traj("a2", text)]
    for cs in (1, 2, 4):
        res = dedupe(items, chunk_size=cs)
        assert [t.trajectory_id for t in res.kept] == ["a"]
        assert [(t.trajectory_id, c) for t, c, _ in res.rejected] == [
            ("n1", DEDUPE_NEAR), ("n2", DEDUPE_NEAR), ("a2", DEDUPE_EXACT)]
        assert all("of a" in d for _, _, d in res.rejected)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, None])
def test_bad_chunk_size_is_a_value_error(bad):
    with pytest.raises(ValueError, match="chunk_size"):
        dedupe([traj("a", "x")], chunk_size=bad)


def _pair_at(rng: random.Random, target: float, width: float = 0.02):
    """Two texts whose exact 5-shingle Jaccard is in [target, target + width) (None if the
    appended word that crosses target + width also crosses target)."""
    text = random_text(rng, 300)
    a = traj("a", text)
    tail = []
    while True:
        b = traj("b", text, " ".join(tail))
        sa, sb = shingles(agent_visible_text(a)), shingles(agent_visible_text(b))
        j = len(sa & sb) / len(sa | sb)
        if j < target + width:
            return (a, b, j) if j >= target else None
        tail.append(f"new{len(tail)}")


@pytest.mark.parametrize("threshold", [0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 0.995, 1.0])
def test_thresholds_across_the_range_split_planted_pairs(threshold):
    """A pair well above the threshold is found, one well below is kept (margin 0.1 is ~4
    standard errors of a 128-permutation estimate); exact copies are found at every threshold."""
    rng = random.Random(int(threshold * 1000))
    if threshold <= 0.9:
        a, b, j = _pair_at(rng, min(threshold + 0.1, 0.97))
        res = dedupe([a, b], threshold=threshold)
        assert [(t.trajectory_id, c) for t, c, _ in res.rejected] == [("b", DEDUPE_NEAR)], j
    if threshold >= 0.4:
        a, b, j = _pair_at(rng, threshold - 0.1 - 0.02 * (threshold > 0.98))
        res = dedupe([a, b], threshold=threshold)
        assert [t.trajectory_id for t in res.kept] == ["a", "b"], j
    c = traj("c", random_text(rng))
    res = dedupe([c, traj("c2", c.messages[1]["content"])], threshold=threshold)
    assert [(t.trajectory_id, code) for t, code, _ in res.rejected] == [("c2", DEDUPE_EXACT)]


def _pairs(seed: int, lo: float, hi: float, n: int):
    rng, out = random.Random(seed), []
    while len(out) < n:
        got = _pair_at(rng, lo, hi - lo)
        if got is not None:
            out.append(got)
    return out


def test_recall_right_at_the_threshold_and_nothing_just_below():
    """Pairs whose exact Jaccard is in [0.900, 0.905) are near duplicates at threshold 0.9: LSH
    proposes each with probability >= 0.99 and the exact check keeps it (the MinHash estimate
    alone would have let about half of them through); pairs in [0.895, 0.900) never are."""
    at = _pairs(11, 0.900, 0.905, 40)
    assert all(0.9 <= j < 0.905 for _, _, j in at)
    found = sum(len(dedupe([a, b], threshold=0.9).rejected) for a, b, _ in at)
    assert found >= 38, found  # >= 0.95 recall; expected 0.99 or more
    below = _pairs(12, 0.895, 0.900, 40)
    assert all(0.895 <= j < 0.9 for _, _, j in below)
    assert sum(len(dedupe([a, b], threshold=0.9).rejected) for a, b, _ in below) == 0


def test_lone_surrogates_and_odd_unicode_do_not_crash():
    a = traj("a", "bad \ud83d surrogate and \udfff more \u0000 nul \u202e rtl " + "x " * 20)
    b = traj("b", "bad \ud83d surrogate and \udfff more \u0000 nul \u202e rtl " + "x " * 20)
    c = traj("c", "bad \ud83e surrogate and \udfff more \u0000 nul \u202e rtl " + "x " * 20)
    res = dedupe([a, b, c], threshold=1.0)
    assert [t.trajectory_id for t in res.kept] == ["a", "c"]
    assert [(t.trajectory_id, code) for t, code, _ in res.rejected] == [("b", DEDUPE_EXACT)]
