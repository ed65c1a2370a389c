"""RL smoke with TRL's real GRPOTrainer: a few real steps on rl.parquet rows with the bundled
SmolLM2-135M and trajpipe's reward (pipeline.trl_env.grpo_reward), and the rewards TRL logs are
the verifier's scores of the completions it generated.

The rows are a real export of the library domain (tests/test_train_data.py: real generator, real
verifier, real exporter), whose short policy keeps a generation step on this CPU to seconds.
"""
from __future__ import annotations

import math

import pytest

from tests.test_train_data import library_export

pytestmark = pytest.mark.slow
datasets = pytest.importorskip("datasets", reason="`datasets` not installed: pip install -e '.[train]'")
trl = pytest.importorskip("trl", reason="`trl` not installed: pip install -e '.[train]'")


def test_grpo_trainer_runs_real_steps_and_logs_the_verifiers_rewards(tmp_path):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    from pipeline.export.hf import load_export
    from pipeline.rewards import compute_score
    from pipeline.rollout.models import ModelNotFound, default_model, ensure_safetensors
    from pipeline.trl_env import completion_text, grpo_reward, prepare_tokenizer

    try:
        folder = ensure_safetensors(default_model())
    except ModelNotFound as exc:
        pytest.skip(str(exc))
    library_export(tmp_path / "data")
    ds = load_export(str(tmp_path / "data"), "rl", split="train")
    assert len(ds) >= 3 and {"prompt", "reward_model", "data_source"} <= set(ds.column_names)

    calls: list[dict] = []

    def verifier_reward(completions, **kwargs):
        """grpo_reward, recording what TRL handed it and what it returned."""
        scores = grpo_reward(completions, **kwargs)
        calls.append({"completions": list(completions), "ground_truths": [rm["ground_truth"] for rm in kwargs["reward_model"]],
                      "sources": list(kwargs["data_source"]), "scores": list(scores)})
        return scores

    tok = prepare_tokenizer(AutoTokenizer.from_pretrained(folder))
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
    before = {n: p.detach().clone() for n, p in model.named_parameters() if "layers.0.self_attn.q_proj" in n}
    steps = 3
    cfg = GRPOConfig(output_dir=str(tmp_path / "grpo"), report_to="none", use_cpu=True, per_device_train_batch_size=2,
                     num_generations=2, max_completion_length=24, max_steps=steps, logging_steps=1,
                     learning_rate=1e-5, save_strategy="no", seed=0, temperature=1.0, disable_tqdm=True)
    trainer = GRPOTrainer(model=model, args=cfg, train_dataset=ds, processing_class=tok, reward_funcs=verifier_reward)
    trainer.train()

    assert trainer.state.global_step == steps
    logged = [h for h in trainer.state.log_history if "rewards/verifier_reward/mean" in h]
    assert len(logged) == steps and len(calls) == steps
    for h, call in zip(logged, calls):
        assert len(call["completions"]) == 2  # one prompt x num_generations per step
        # the verifier's score of each completion TRL generated, recomputed from the text alone
        verifier = [compute_score(src, completion_text(c), gt)["score"]
                    for c, gt, src in zip(call["completions"], call["ground_truths"], call["sources"])]
        assert call["scores"] == verifier
        assert math.isclose(h["rewards/verifier_reward/mean"], sum(verifier) / len(verifier), abs_tol=1e-6)
        assert math.isclose(h["reward"], sum(verifier) / len(verifier), abs_tol=1e-6)
    # the per-completion rewards TRL keeps for its completion log are the same numbers
    assert list(trainer._logs["rewards"]["verifier_reward"]) == calls[-1]["scores"]
    # the ground truths TRL forwarded are the rows' own (task ids of the train split)
    task_ids = {gt_task for gt_task in ds["task_id"]}
    import json
    assert all(json.loads(gt)["task_id"] in task_ids for call in calls for gt in call["ground_truths"])
    # real optimizer steps ran (a zero-advantage step leaves the weights; the loss was still computed)
    assert all("loss" in h for h in logged)
    after = {n: p.detach() for n, p in trainer.model.named_parameters() if n in before}
    moved = any(not torch.equal(before[n], after[n]) for n in before)
    if any(h["reward_std"] > 0 for h in logged):
        assert moved
