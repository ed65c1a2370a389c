"""dedupe over the whole documented threshold range (0, 1] (pipeline.dedupe).

datasketch's MinHashLSH refuses fewer than two bands; thresholds near 1 used to pick one band
and raise ``ValueError: The number of bands are too small (b < 2)``.
"""
from __future__ import annotations

import pytest
from datasketch import MinHashLSH

from pipeline.dedupe import DEDUPE_EXACT, DEDUPE_NEAR, _fp_area, dedupe, lsh_params, s_curve
from pipeline.records import Trajectory


def traj(tid: str, words: str) -> Trajectory:
    return Trajectory(
        trajectory_id=tid, task_id="task", blueprint_id="bp", sample_index=0, model="m", backend="fake",
        messages=[{"role": "system", "content": "policy"}, {"role": "user", "content": words},
                  {"role": "assistant", "content": "Your reservation ABC123 has been cancelled as you asked."}],
        tools=[], tool_calls=[], final_state_hash="h", finish_reason="agent_stop", n_turns=1, prompt_tokens=1,
        completion_tokens=1, seed=0)


TEXT = ("please cancel my reservation ABC123 because my plans changed and I will not travel to Boston "
        "next week after all thank you very much for the help")


@pytest.mark.parametrize("threshold", [1.0, 0.995, 0.99, 0.9, 0.5, 0.01])
def test_exact_copy_is_rejected_at_any_valid_threshold(threshold):
    a, copy = traj("a", TEXT), traj("a-copy", TEXT)
    res = dedupe([a, copy], threshold=threshold)
    assert [t.trajectory_id for t in res.kept] == ["a"]
    assert [(t.trajectory_id, code, detail) for t, code, detail in res.rejected] == [
        ("a-copy", DEDUPE_EXACT, "duplicate of a")]
    b, r = res.params
    assert b >= 2 and b * r <= 128


def test_params_at_the_top_of_the_range():
    assert lsh_params(1.0, 128) == (2, 64)
    assert lsh_params(0.995, 128) == (3, 42)  # (2, 64) would propose a pair at 0.995 only 92.5% of the time
    assert lsh_params(0.9, 128) == (11, 10)
    assert lsh_params(0.01, 128) == (128, 1)  # 0.99 unreachable: the highest P(0.01) there is
    assert lsh_params(1.0, 2) == (2, 1)
    for n in (2, 3, 16, 128, 256):
        for i in range(1, 201):
            t = i / 200
            b, r = lsh_params(t, n)
            assert b >= 2 and 1 <= r and b * r <= n
            MinHashLSH(num_perm=n, params=(b, r))  # datasketch accepts every choice
            best = max(s_curve(t, bb, rr) for rr in range(1, n // 2 + 1) for bb in range(2, n // rr + 1))
            # P(candidate | J = t) >= 0.99 wherever some (b, r) reaches it, else the best reachable
            assert s_curve(t, b, r) >= 0.99 if best >= 0.99 else s_curve(t, b, r) == best, (t, n, b, r)


def test_params_are_the_feasible_choice_with_least_false_candidate_area():
    """Brute force over every (b, r) at 128 permutations: among choices with P(t) >= 0.99, the
    chosen one has the least area under the S-curve below t."""
    for t in (0.5, 0.75, 0.8, 0.85, 0.9, 0.95, 0.99, 0.995):
        b, r = lsh_params(t, 128)
        feasible = [(_fp_area(bb, rr, t), bb, rr) for rr in range(1, 65) for bb in range(2, 128 // rr + 1)
                    if s_curve(t, bb, rr) >= 0.99]
        assert _fp_area(b, r, t) == min(feasible)[0], (t, b, r, min(feasible))


def test_near_copy_at_threshold_one_is_kept_and_found_below():
    a = traj("a", TEXT)
    near = traj("near", TEXT.replace("Boston", "Denver"))
    res = dedupe([a, near], threshold=1.0)
    assert [t.trajectory_id for t in res.kept] == ["a", "near"] and res.rejected == []
    res = dedupe([a, near], threshold=0.5)
    assert [t.trajectory_id for t in res.kept] == ["a"]
    assert [(t.trajectory_id, code) for t, code, _ in res.rejected] == [("near", DEDUPE_NEAR)]


@pytest.mark.parametrize("bad", [0, 0.0, -0.5, 1.5, 1.0000001, float("nan"), float("inf"), True, "0.9", None])
def test_threshold_outside_the_range_is_a_clear_value_error(bad):
    a, b = traj("a", TEXT), traj("b", TEXT)
    with pytest.raises(ValueError, match=r"^threshold must be (a number )?in \(0, 1\], got "):
        dedupe([a, b], threshold=bad)
    with pytest.raises(ValueError, match=r"^threshold must be"):
        lsh_params(bad, 128)
    if bad is not None:  # lsh_threshold=None means "use threshold"
        with pytest.raises(ValueError, match=r"^lsh_threshold must be"):
            dedupe([a, b], threshold=0.9, lsh_threshold=bad)


@pytest.mark.parametrize("threshold", [1e-12, 1e-16, 1e-17, 1e-300])
def test_tiny_thresholds_pick_the_same_bands_as_small_ones(threshold):
    """A red-team pass: below ~1.1e-16 ``1 - s`` rounds to 1.0, every s-curve read 0 and the
    tie-break chose (2, 43): a near copy found at 1e-16 was kept at 1e-17. The s-curve is now
    computed with log1p / expm1."""
    assert s_curve(threshold, 128, 1) > 0
    assert lsh_params(threshold, 128) == lsh_params(1e-6, 128) == (128, 1)
    near = TEXT.replace("Boston", "Denver").replace("very much", "so much")
    res = dedupe([traj("a", TEXT), traj("b", near)], threshold=threshold)
    assert [(t.trajectory_id, code) for t, code, _ in res.rejected] == [("b", DEDUPE_NEAR)]


@pytest.mark.parametrize("kw", [{"num_perm": 128.5}, {"num_perm": "128"}, {"num_perm": None}, {"num_perm": True},
                                {"shingle": 2.5}, {"shingle": None}])
def test_num_perm_and_shingle_of_the_wrong_type_are_a_clear_value_error(kw):
    with pytest.raises(ValueError, match="must be an integer"):
        dedupe([traj("a", TEXT)], **kw)
