"""dedupe over the whole documented threshold range (0, 1] (pipeline.dedupe).

datasketch's MinHashLSH refuses fewer than two bands; thresholds near 1 used to pick one band
and raise ``ValueError: The number of bands are too small (b < 2)``.
"""
from __future__ import annotations

import pytest
from datasketch import MinHashLSH

from pipeline.dedupe import DEDUPE_EXACT, DEDUPE_NEAR, dedupe, lsh_params
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
    assert lsh_params(0.995, 128) == (2, 64)
    assert lsh_params(0.9, 128) == (7, 18)  # unchanged where it already worked
    assert lsh_params(0.01, 128) == (128, 1)
    assert lsh_params(1.0, 2) == (2, 1)
    for n in (2, 3, 16, 128, 256):
        for i in range(1, 201):
            b, r = lsh_params(i / 200, n)
            assert b >= 2 and 1 <= r and b * r <= n
            MinHashLSH(num_perm=n, params=(b, r))  # datasketch accepts every choice


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
