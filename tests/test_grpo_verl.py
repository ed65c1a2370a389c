"""trajpipe's rl rows through veRL's own code (skipped where ``verl`` does not import).

* veRL's ``RLHFDataset`` reads an exported rl split file as veRL's trainer would
  (``data.train_files``) and hands each row to its agent loop: the raw chat prompt, the
  ``tools_kwargs`` veRL's ToolAgentLoop creates tools with, the ``interaction_kwargs`` of the
  simulated customer, the row index; its ``collate_fn`` batches them.
* veRL's reward loading (``custom_reward_function.path=pkg://pipeline.rewards``,
  ``name=compute_score``, ``load_reward_manager``; the file path form fails in veRL 0.9, see
  :func:`test_verl_loads_the_reward_file_by_path`) builds its ``naive`` reward manager with
  trajpipe's scorer, and that manager, given a multi-turn rollout as token ids the way the agent
  loop hands it over (prompt ids, response ids with the tool results and customer turns inline,
  attention mask), decodes it its own way (``skip_special_tokens=True``) and returns the verifier's
  score of that rollout.

veRL 0.9 installs here without its heavy dependencies (``scripts/install.sh --verl``: verl with
``--no-deps`` plus ray, tensordict, omegaconf, hydra-core, codetiming, torchdata, pylatexenc,
msgpack, pyvers; veRL's declared ``transformers<5.11`` is not enforced and these code paths run on
transformers 5.19). What needs a GPU, and is not tested here: veRL's trainer itself (FSDP / Megatron
workers, vLLM / SGLang rollout servers through Ray, the ToolAgentLoop generating against our tools).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_train_data import LIB, library_export

verl = pytest.importorskip("verl", reason="veRL not importable: bash scripts/install.sh --verl")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("verl")
    run = library_export(out)
    return out, run


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    from pipeline.rollout.models import ModelNotFound, default_model, ensure_safetensors
    from pipeline.trl_env import prepare_tokenizer

    try:
        folder = ensure_safetensors(default_model())
    except ModelNotFound as exc:
        pytest.skip(str(exc))
    return prepare_tokenizer(AutoTokenizer.from_pretrained(folder))


def test_verl_rlhf_dataset_reads_our_rl_rows(exported, tokenizer, tmp_path):
    import pyarrow.parquet as pq
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

    out, _ = exported
    train = out / "splits" / "rl" / "train.parquet"
    rows = pq.read_table(train).to_pylist()
    cfg = OmegaConf.create({"prompt_key": "prompt", "max_prompt_length": 4096, "truncation": "error",
                            "filter_overlong_prompts": True, "return_raw_chat": True,
                            "cache_dir": str(tmp_path / "verl-cache")})
    ds = RLHFDataset(data_files=[str(train)], tokenizer=tokenizer, config=cfg)
    assert len(ds) == len(rows) > 0  # no prompt filtered as overlong
    for i, row in enumerate(rows):
        item = ds[i]
        assert [dict(role=m["role"], content=m["content"]) for m in item["raw_prompt"]] == \
               [dict(role=m["role"], content=m["content"]) for m in row["prompt"]]
        assert item["data_source"] == "trajpipe/library" and item["index"] == row["extra_info"]["index"]
        assert set(item["tools_kwargs"]) == set(LIB.tools)
        assert all(v["create_kwargs"]["task_id"] == row["task_id"] for v in item["tools_kwargs"].values())
        assert item["interaction_kwargs"]["name"] == "trajpipe_customer"
        assert json.loads(item["reward_model"]["ground_truth"])["task_id"] == row["task_id"]
    batch = collate_fn([ds[0], ds[1]])
    assert batch["dummy_tensor"].shape[0] == 2 and len(batch["raw_prompt"]) == 2


#: how veRL should load trajpipe's scorer: as the installed module (``pkg://``), see below
REWARD_PATH = "pkg://pipeline.rewards"


def _reward_manager(tokenizer, path: str = REWARD_PATH):
    from omegaconf import OmegaConf
    from verl.trainer.ppo.reward import load_reward_manager

    config = OmegaConf.create({"reward": {
        "custom_reward_function": {"path": path, "name": "compute_score", "reward_kwargs": {}},
        "reward_manager": {"source": "register", "name": "naive"}}})
    return load_reward_manager(config, tokenizer)


@pytest.mark.xfail(strict=True, raises=RuntimeError,
                   reason="veRL 0.9 execs a file path as a module it never registers in sys.modules, and "
                          "pipeline/rewards.py defines a @dataclass, which looks its module up there "
                          "(AttributeError: 'NoneType' object has no attribute '__dict__'); use "
                          "custom_reward_function.path=pkg://pipeline.rewards")
def test_verl_loads_the_reward_file_by_path(tokenizer):
    _reward_manager(tokenizer, str(ROOT / "pipeline" / "rewards.py"))


def _rollout_batch(tokenizer, traj, row):
    """One rollout as veRL's agent loop hands it to the reward manager: prompt ids (left-padded),
    response ids (the agent's turns with the tool results and customer turns inline, right-padded),
    attention mask over both, and the row's non-tensor fields."""
    import numpy as np
    import torch
    from verl import DataProto

    msgs = [{k: v for k, v in m.items() if v is not None} for m in traj.messages]
    prompt = list(tokenizer.apply_chat_template(msgs[:2], add_generation_prompt=True, tokenize=True)["input_ids"])
    full = list(tokenizer.apply_chat_template(msgs, tokenize=True)["input_ids"])
    assert full[:len(prompt)] == prompt
    response = full[len(prompt):]
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    p_len, r_len = len(prompt) + 3, len(response) + 5  # padding on both sides, as veRL batches
    prompts = torch.tensor([[pad] * (p_len - len(prompt)) + prompt])
    responses = torch.tensor([response + [pad] * (r_len - len(response))])
    mask = torch.tensor([[0] * (p_len - len(prompt)) + [1] * len(prompt) + [1] * len(response)
                         + [0] * (r_len - len(response))])
    return DataProto.from_dict(
        tensors={"prompts": prompts, "responses": responses, "attention_mask": mask,
                 "input_ids": torch.cat([prompts, responses], dim=1)},
        non_tensors={"data_source": np.array([row["data_source"]], dtype=object),
                     "reward_model": np.array([row["reward_model"]], dtype=object),
                     "extra_info": np.array([dict(row["extra_info"])], dtype=object)})


def test_verl_reward_manager_scores_our_rollouts_as_the_verifier(exported, tokenizer):
    import pyarrow.parquet as pq

    from pipeline.verify import verify_trajectory

    out, run = exported
    rl = {r["task_id"]: r for r in pq.read_table(out / "rl.parquet").to_pylist()}
    manager = _reward_manager(tokenizer)
    assert type(manager).__name__ == "NaiveRewardManager"
    tasks = {t.task_id: t for t in run["tasks"]}
    seen = {"passed": 0, "failed": 0}
    for traj in run["trajectories"]:
        task = tasks[traj.task_id]
        verdict = verify_trajectory(traj, task, LIB)
        # the reward loop runs on the manager's own event loop (it offloads decoding and scoring to it)
        got = manager.loop.run_until_complete(manager.run_single(_rollout_batch(tokenizer, traj, rl[traj.task_id])))
        info = got["reward_extra_info"]
        assert info["passed"] == float(verdict.passed), (traj.trajectory_id, info, verdict.reason_codes)
        assert info["outcome"] == verdict.reward_components["outcome"]
        assert got["reward_score"] == pytest.approx(verdict.reward, abs=1e-9), (traj.trajectory_id, info)
        seen["passed" if verdict.passed else "failed"] += 1
    assert seen["passed"] and seen["failed"]
