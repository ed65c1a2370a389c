"""Unit tests of rejection sampling (pipeline.select) and dedupe (pipeline.dedupe)."""
from __future__ import annotations

import json
import random

import pytest

from pipeline.dedupe import (
    DEDUPE_EXACT,
    DEDUPE_NEAR,
    agent_visible_text,
    dedupe,
    lsh_params,
    s_curve,
)
from pipeline.records import Trajectory, Verdict
from pipeline.select import SELECT_OVER_CAP, select

WORDS = ("reservation flight booking refund change cancel baggage seat upgrade passenger "
         "economy business basic insurance policy customer agent confirm date airport "
         "delay payment voucher certificate gift card credit membership gold silver regular "
         "origin destination return one way round trip cabin class fare").split()


def prose(seed: int, n: int) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(n))


def conversation(seed: int, n_words: int = 120, system: str = "You are an airline agent.",
                 call_id: str = "call_1", args: str = '{"reservation_id": "ABC123", "reason": "change"}'):
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": prose(seed, n_words)},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": "get_reservation_details", "arguments": args}}]},
        {"role": "tool", "tool_call_id": call_id, "name": "get_reservation_details",
         "content": prose(seed + 1000, n_words)},
        {"role": "assistant", "content": prose(seed + 2000, n_words)},
    ]


def traj(tid: str, task: str = "task-1", bp: str = "bp-1", idx: int = 0, messages=None,
         errors: int = 0, completion_tokens: int = 100) -> Trajectory:
    calls = [{"step": i, "name": "book", "arguments": {}, "valid_json": True, "error": "Error: x"}
             for i in range(errors)]
    return Trajectory(
        trajectory_id=tid, task_id=task, blueprint_id=bp, sample_index=idx, model="teacher",
        backend="fake", messages=messages if messages is not None else conversation(idx),
        tools=[], tool_calls=calls, final_state_hash="h", finish_reason="agent_stop", n_turns=2,
        prompt_tokens=10, completion_tokens=completion_tokens, seed=0,
    )


def verdict(t: Trajectory, passed: bool, codes=()) -> Verdict:
    return Verdict(trajectory_id=t.trajectory_id, task_id=t.task_id, passed=passed,
                   reason_codes=list(codes), reward=1.0 if passed else 0.0)


# ---------------------------------------------------------------- select


def test_select_counts_cap_and_groups():
    ts = [traj(f"a{i}", "task-a", idx=i) for i in range(5)] + \
         [traj(f"b{i}", "task-b", "bp-2", idx=i) for i in range(3)]
    passed = {"a0", "a1", "a2", "a4", "b1"}
    vs = [verdict(t, t.trajectory_id in passed,
                  () if t.trajectory_id in passed else ("VERIFY_STATE_MISMATCH", "VERIFY_POLICY"))
          for t in ts]
    res = select(ts, vs, cap=2)
    assert len(res.kept) + len(res.rejected) == len(ts)
    kept_ids = [t.trajectory_id for t in res.kept]
    assert kept_ids == ["a0", "a1", "b1"]  # input order, cap 2 per task
    codes = {t.trajectory_id: (c, d) for t, c, d in res.rejected}
    assert codes["a2"][0] == SELECT_OVER_CAP and codes["a4"][0] == SELECT_OVER_CAP
    assert codes["a3"][0] == "VERIFY_STATE_MISMATCH"
    assert "VERIFY_POLICY" in codes["a3"][1]
    assert json.loads(codes["a3"][1])["other_reason_codes"] == ["VERIFY_POLICY"]
    groups = {g["task_id"]: g for g in res.groups}
    assert [g["task_id"] for g in res.groups] == ["task-a", "task-b"]
    assert groups["task-a"] == {"task_id": "task-a", "blueprint_id": "bp-1", "k": 5, "passes": 4,
                                "pass_rate": 0.8, "kept": 2}
    assert groups["task-b"]["k"] == 3 and groups["task-b"]["passes"] == 1
    assert groups["task-b"]["kept"] == 1
    assert sum(g["kept"] for g in res.groups) == len(res.kept)


def test_select_prefers_fewer_errors_then_shorter_then_lowest_index_regardless_of_order():
    msgs = conversation(0)
    ts = [
        traj("err", idx=0, errors=2, messages=msgs),
        traj("long", idx=1, messages=msgs + [{"role": "user", "content": "thanks"}]),
        traj("late", idx=5, messages=msgs),
        traj("early", idx=3, messages=msgs),
    ]
    vs = [verdict(t, True) for t in ts]
    for order in (ts, list(reversed(ts))):
        res = select(order, vs, cap=2)
        assert {t.trajectory_id for t in res.kept} == {"early", "late"}
    res = select(ts, vs, cap=1)
    assert [t.trajectory_id for t in res.kept] == ["early"]
    assert all(c == SELECT_OVER_CAP for _, c, _ in res.rejected)
    assert len(select(ts, vs, cap=None).kept) == 4


def test_select_errors():
    t = traj("x")
    with pytest.raises(ValueError, match="no verdict"):
        select([t], [])
    with pytest.raises(ValueError, match="duplicate"):
        select([t, t], [verdict(t, True)])
    wrong = Verdict(trajectory_id="x", task_id="other", passed=True, reason_codes=[])
    with pytest.raises(ValueError, match="names task"):
        select([t], [wrong])
    res = select([], [])
    assert res.kept == [] and res.rejected == [] and res.groups == []


# ---------------------------------------------------------------- dedupe


def _retitle(msgs, system=None, call_id=None, args=None):
    out = json.loads(json.dumps(msgs))
    if system is not None:
        out[0]["content"] = system
    if call_id is not None:
        out[2]["tool_calls"][0]["id"] = call_id
        out[3]["tool_call_id"] = call_id
    if args is not None:
        out[2]["tool_calls"][0]["function"]["arguments"] = args
    return out


def test_dedupe_exact_near_and_distinct():
    base = conversation(1)
    # Same agent-visible content: other system prompt, tool-call id, argument key order/spacing.
    exact = _retitle(base, system="A different system prompt", call_id="call_zz",
                     args='{"reason":"change","reservation_id":"ABC123"}')
    near = _retitle(base)
    near[4]["content"] = near[4]["content"].replace(near[4]["content"].split()[50], "UNIQUEWORD", 1)
    near[1]["content"] += " please"
    distinct = conversation(99)
    ts = [traj("orig", messages=base), traj("exact", messages=exact),
          traj("near", messages=near), traj("other", messages=distinct)]
    assert agent_visible_text(ts[0]) == agent_visible_text(ts[1])
    assert "You are an airline agent" not in agent_visible_text(ts[0])
    assert agent_visible_text(ts[0]) != agent_visible_text(ts[2])
    res = dedupe(ts)
    assert len(res.kept) + len(res.rejected) == len(ts)
    assert [t.trajectory_id for t in res.kept] == ["orig", "other"]
    rej = {t.trajectory_id: (c, d) for t, c, d in res.rejected}
    assert rej["exact"] == (DEDUPE_EXACT, "duplicate of orig")
    assert rej["near"][0] == DEDUPE_NEAR and "orig" in rej["near"][1]


def test_dedupe_keeps_moderately_similar_and_first_seen_wins():
    base = conversation(7)
    edited = _retitle(base)
    rng = random.Random(3)
    words = edited[4]["content"].split()
    for i in rng.sample(range(len(words)), 15):  # 15 of 120 words of one message: J ~ 0.72
        words[i] = f"new{i}"
    edited[4]["content"] = " ".join(words)
    res = dedupe([traj("b", messages=edited), traj("a", messages=base)])
    assert [t.trajectory_id for t in res.kept] == ["b", "a"] and res.rejected == []
    # first seen wins: order decides which copy survives
    res = dedupe([traj("second", messages=base), traj("first", messages=base)])
    assert [t.trajectory_id for t in res.kept] == ["second"]
    assert res.rejected[0][2] == "duplicate of second"


def test_dedupe_many_counts_add_up_and_params():
    ts = []
    for i in range(30):
        ts.append(traj(f"u{i}", task=f"task-{i}", messages=conversation(10 * i)))
        if i % 3 == 0:
            ts.append(traj(f"c{i}", task=f"task-{i}", messages=_retitle(conversation(10 * i), call_id=f"x{i}")))
    res = dedupe(ts)
    assert len(res.kept) == 30 and len(res.rejected) == 10
    assert all(c in (DEDUPE_EXACT, DEDUPE_NEAR) for _, c, _ in res.rejected)
    b, r = res.params
    assert (b, r) == lsh_params(0.9, 128)
    assert b * r <= 128
    assert s_curve(0.9, b, r) >= 0.99  # a pair at the threshold is proposed 99% of the time
    assert s_curve(0.5, b, r) < 0.02 and s_curve(0.3, b, r) < 0.001
    with pytest.raises(ValueError):
        dedupe(ts, threshold=0)
    with pytest.raises(ValueError, match="duplicate trajectory_id"):
        dedupe([ts[0], ts[0]])
    assert dedupe([]).kept == []


def test_lsh_params_track_threshold():
    """P(candidate | J = threshold) >= 0.99, and no other (b, r) reaching it proposes fewer pairs
    below the threshold (false-candidate area), at several signature lengths."""
    from pipeline.dedupe import _fp_area

    for thr in (0.5, 0.7, 0.8, 0.9, 0.95):
        for n in (64, 128, 256):
            b, r = lsh_params(thr, n)
            assert b * r <= n and b >= 2
            assert s_curve(thr, b, r) >= 0.99, (thr, n, b, r)
            area = _fp_area(b, r, thr)
            for rr in range(1, n // 2 + 1):
                for bb in range(2, n // rr + 1):
                    if s_curve(thr, bb, rr) >= 0.99:
                        assert area <= _fp_area(bb, rr, thr), (thr, n, (b, r), (bb, rr))


def _edit(msgs, k: int, seed: int):
    out = _retitle(msgs)
    words = out[4]["content"].split()
    for i in random.Random(seed).sample(range(len(words)), k):
        words[i] = f"new{i}"
    out[4]["content"] = " ".join(words)
    return out


def _exact(x, y) -> float:
    from pipeline.dedupe import jaccard, shingles

    return jaccard(shingles(agent_visible_text(traj("x", messages=x))),
                   shingles(agent_visible_text(traj("y", messages=y))))


def test_dedupe_decides_lsh_candidates_on_exact_jaccard():
    """A pair is rejected iff it is an LSH candidate AND its exact shingle Jaccard >= threshold;
    the MinHash estimate plays no part in the decision."""
    from datasketch import MinHashLSH

    from pipeline.dedupe import minhash, shingles

    base = conversation(7)
    sig = minhash(shingles(agent_visible_text(traj("a", messages=base))))
    b, r = lsh_params(0.9, 128)
    below_but_candidate = estimate_disagrees = 0
    for k in range(1, 9):
        for seed in range(3):
            edited = _edit(base, k, seed)
            m = minhash(shingles(agent_visible_text(traj("e", messages=edited))))
            lsh = MinHashLSH(num_perm=128, params=(b, r))
            lsh.insert("a", sig)
            candidate, j, est = bool(lsh.query(m)), _exact(base, edited), m.jaccard(sig)
            below_but_candidate += candidate and j < 0.9
            estimate_disagrees += candidate and (est >= 0.9) != (j >= 0.9)
            res = dedupe([traj("a", messages=base), traj("e", messages=edited)])
            assert (len(res.rejected) == 1) == (candidate and j >= 0.9), (k, seed, j, est)
            if res.rejected:
                assert res.rejected[0][2] == f"near duplicate of a (jaccard={j:.3f})"
    assert below_but_candidate > 0  # the exact check turned a candidate down
    assert estimate_disagrees > 0  # and it decided a pair the MinHash estimate would have got wrong


def test_lower_lsh_threshold_keeps_the_decision_and_finds_every_pair_above():
    pairs = [(base, _edit(base, k, seed)) for base in (conversation(7), conversation(8))
             for k in (1, 2, 3, 4) for seed in range(6)]
    exact = [_exact(x, y) for x, y in pairs]
    above = sum(j >= 0.9 for j in exact)
    assert 0 < above < len(pairs)  # both sides of the threshold are covered
    for lt in (None, 0.75):
        for (x, y), j in zip(pairs, exact):
            res = dedupe([traj("a", messages=x), traj("e", messages=y)], lsh_threshold=lt)
            if j < 0.9:  # never a duplicate below the threshold, whatever the LSH setting
                assert res.rejected == [], (lt, j)
            elif lt == 0.75:  # P(candidate | J >= 0.9) > 1 - 1e-6 at (17, 5)
                assert [c for _, c, _ in res.rejected] == [DEDUPE_NEAR], j
    assert dedupe([], lsh_threshold=0.75).params == lsh_params(0.75, 128)
    # lsh_threshold above threshold is capped at threshold: recall at the threshold is kept
    assert dedupe([], threshold=0.8, lsh_threshold=0.95).params == lsh_params(0.8, 128)
