"""The exported datasets load in the trainers as they are: TRL (SFT, DPO, GRPO) and veRL (rl).

Tasks come from the real airline generator; trajectories are constructed from reference solutions
(passing) and mutations (failing) and checked by the real verifier; the SFT check tokenizes with
TRL's SFTTrainer and the bundled SmolLM2 tokenizer (no training, no hub download).
"""
from __future__ import annotations

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from export_helpers import DOMAIN, build_run, export_run, mutated_calls, reference_calls  # noqa: E402

datasets = pytest.importorskip("datasets", reason="`datasets` not installed: pip install -e '.[train]'")
trl = pytest.importorskip("trl", reason="`trl` not installed: pip install -e '.[train]'")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    run = build_run()
    out = str(tmp_path_factory.mktemp("trainers"))
    paths = export_run(out, run)
    return {"run": run, "paths": paths, "out": out}


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    from pipeline.rollout.models import ModelNotFound, default_model

    try:
        spec = default_model()
    except ModelNotFound as exc:
        pytest.skip(str(exc))
    return AutoTokenizer.from_pretrained(spec.folder, gguf_file=spec.gguf_file)


def _assistant_text(m: dict) -> str:
    from pipeline.rollout.prompting import render_for_model

    return render_for_model([{k: v for k, v in m.items() if v is not None}])[0]["content"] + "<|im_end|>"


def test_sft_loads_in_trl_sfttrainer_and_mask_covers_assistant_tokens_only(exported, tokenizer, tmp_path):
    from transformers import LlamaConfig, LlamaForCausalLM
    from trl import SFTConfig, SFTTrainer

    from pipeline.trl_env import TRAINING_CHAT_TEMPLATE

    ds = datasets.load_dataset("parquet", data_files=exported["paths"]["sft"])["train"]
    assert len(ds) == 12 and {"messages", "tools", "loss_mask"} <= set(ds.column_names)
    ds = ds.select(range(3))
    from pipeline.trl_env import prepare_tokenizer

    prepare_tokenizer(tokenizer)
    assert tokenizer.chat_template == TRAINING_CHAT_TEMPLATE
    # a tiny random model: SFTTrainer needs one to build, nothing is trained
    model = LlamaForCausalLM(LlamaConfig(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32,
                                         num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2))
    cfg = SFTConfig(output_dir=str(tmp_path), assistant_only_loss=True, max_length=None, report_to="none",
                    dataset_num_proc=None, use_cpu=True)
    trainer = SFTTrainer(model=model, args=cfg, train_dataset=ds, processing_class=tokenizer)
    tok_ds = trainer.train_dataset
    # TRL turns the template's assistant mask into labels: -100 (ignored by the loss) outside it
    assert "labels" in tok_ds.column_names
    for row, src in zip(tok_ds, ds):
        ids = row["input_ids"]
        mask = [lab != -100 for lab in row["labels"]]
        assert [lab for lab in row["labels"] if lab != -100] == [i for i, m in zip(ids, mask) if m]
        assert len(ids) == len(mask) and 0 < sum(mask) < len(mask)
        trained = tokenizer.decode([i for i, m in zip(ids, mask) if m])
        context = tokenizer.decode([i for i, m in zip(ids, mask) if not m])
        expected = "".join(_assistant_text(m) for m in src["messages"] if m["role"] == "assistant")
        assert trained == expected  # every assistant token, and nothing else
        for m in src["messages"]:
            if m["role"] in ("system", "user", "tool") and m["content"]:
                assert m["content"] not in trained and m["content"].strip()[:200] in context
        # the exported loss_mask says the same per message
        assert [m["role"] == "assistant" for m in src["messages"]] == src["loss_mask"]


def test_rl_rows_meet_verl_expectations(exported):
    """veRL's RLHFDataset / ToolAgentLoop row expectations (verl examples/data_preprocess/
    gsm8k_multiturn_w_tool.py, verl/experimental/agent_loop/tool_agent_loop.py)."""
    ds = datasets.load_dataset("parquet", data_files=exported["paths"]["rl"])["train"]
    assert len(ds) == 6
    assert {"data_source", "prompt", "ability", "reward_model", "extra_info", "agent_name"} <= set(ds.column_names)
    indexes = set()
    for row in ds:
        assert isinstance(row["data_source"], str) and row["data_source"] == "trajpipe/airline"
        assert isinstance(row["ability"], str) and row["agent_name"] == "tool_agent"
        assert isinstance(row["prompt"], list) and [m["role"] for m in row["prompt"]] == ["system", "user"]
        assert all(isinstance(m["content"], str) and m["content"] for m in row["prompt"])
        rm = row["reward_model"]
        assert rm["style"] == "rule" and isinstance(rm["ground_truth"], str)
        gt = json.loads(rm["ground_truth"])
        assert {"task_id", "initial_state", "expected_state_hash"} <= set(gt)
        ei = row["extra_info"]
        assert isinstance(ei, dict) and ei["split"] == row["split"] and ei["task_id"] == gt["task_id"]
        assert isinstance(ei["index"], int)
        indexes.add(ei["index"])
        tools = [t["function"]["name"] for t in json.loads(row["tools"])]
        for name in tools:  # ToolAgentLoop: tools_kwargs.get(name, {}).get("create_kwargs", {})
            assert isinstance(ei["tools_kwargs"][name]["create_kwargs"], dict)
        assert ei["interaction_kwargs"]["name"] and isinstance(ei["interaction_kwargs"]["user_messages"], list)
        # the hidden reference solution is nowhere in the row a model sees
        visible = json.dumps([row["prompt"], row["tools"], ei])
        assert gt["expected_state_hash"] not in visible
    assert len(indexes) == len(ds)


def _response(task, calls) -> str:
    """A Hermes-format response: reads, a confirmation question, writes, a closing line."""
    parts, asked = [], False
    for c in calls:
        if DOMAIN.tools[c["name"]].writes and not asked:
            parts.append("I can do that now. Shall I proceed?")
            asked = True
        parts.append("<tool_call>\n" + json.dumps({"name": c["name"], "arguments": c["arguments"]}) + "\n</tool_call>")
        parts.append("<tool_response>\n(ignored: the sandbox recomputes)\n</tool_response>")
    parts.append("Thank you, is there anything else I can help with?")
    return "\n".join(parts)


def test_compute_score_replays_and_verifies(exported):
    from pipeline.rewards import compute_score

    rows = {r["task_id"]: r for r in datasets.load_dataset("parquet", data_files=exported["paths"]["rl"])["train"]}
    for task in exported["run"]["tasks"][:4]:
        row = rows[task.task_id]
        gt = row["reward_model"]["ground_truth"]
        good = compute_score(row["data_source"], _response(task, reference_calls(task)), gt, row["extra_info"])
        bad = compute_score(row["data_source"], _response(task, mutated_calls(task)), gt, row["extra_info"])
        junk = compute_score(row["data_source"], "<tool_call>{not json</tool_call> I cancelled it!", gt)
        assert good["score"] == 1.0 and good["passed"] == 1.0 and good["outcome"] == 1.0
        assert bad["score"] < good["score"] and bad["outcome"] == 0.0 and bad["passed"] == 0.0
        assert junk["score"] == 0.0 and junk["format_valid"] == 0.0
        assert set(good) >= {"score", "format_valid", "violations", "tool_calls", "length"}
    with pytest.raises(ValueError, match="domain"):
        compute_score("trajpipe/retail", "", gt)


def test_trl_grpo_reward_function_and_environment(exported):
    from transformers.utils import get_json_schema

    from pipeline.trl_env import environment_factory, grpo_reward

    rows = {r["task_id"]: r for r in datasets.load_dataset("parquet", data_files=exported["paths"]["rl"])["train"]}
    task = exported["run"]["tasks"][0]
    row = rows[task.task_id]
    good, bad = _response(task, reference_calls(task)), _response(task, mutated_calls(task))
    # conversational completion with structured tool calls, as TRL produces with tools
    conv = [{"role": "assistant", "content": "Shall I proceed?"}]
    for i, c in enumerate(reference_calls(task)):
        conv.append({"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}]})
        conv.append({"role": "tool", "name": c["name"], "content": "ok"})
    conv.append({"role": "assistant", "content": "Done, anything else?"})
    n = 3
    rewards = grpo_reward(completions=[good, bad, conv], prompts=[row["prompt"]] * n,
                          reward_model=[row["reward_model"]] * n, data_source=[row["data_source"]] * n,
                          extra_info=[row["extra_info"]] * n)
    assert len(rewards) == n and all(isinstance(r, float) for r in rewards)
    assert rewards[0] == 1.0 and rewards[1] < rewards[0] and rewards[2] == 1.0

    factory = environment_factory("airline")
    env, env_bad = factory(), factory()
    assert env.reset(**row) is None and env_bad.reset(**row) is None
    for name in DOMAIN.tools:  # TRL builds each tool's schema from the method's hints + docstring
        schema = get_json_schema(getattr(env, name))
        assert schema["function"]["name"] == name
        assert set(schema["function"]["parameters"].get("required", [])) == \
            set(DOMAIN.tools[name].schema["function"]["parameters"].get("required", []))
    for c in reference_calls(task):
        out = getattr(env, c["name"])(**c["arguments"])
        assert isinstance(out, str) and not out.startswith("Error")
    for c in mutated_calls(task):
        getattr(env_bad, c["name"])(**c["arguments"])
    assert env.get_reward() == 1.0 and env.get_reward() > env_bad.get_reward()
    assert env_bad.get_reward() == 0.0
    # the reward function scores an environment rollout from the calls the sandbox really ran
    r = grpo_reward(completions=["Done."], environments=[env_bad], reward_model=[row["reward_model"]],
                    data_source=[row["data_source"]])
    assert r == [0.0]


def test_dpo_rows_are_trl_preference_pairs(exported):
    from trl.data_utils import is_conversational

    ds = datasets.load_dataset("parquet", data_files=exported["paths"]["dpo"])["train"]
    assert len(ds) == 6  # one failed rollout per task, each paired with a verified one
    verdicts = {v.trajectory_id: v for v in exported["run"]["verdicts"]}
    for row in ds:
        assert is_conversational({"prompt": row["prompt"], "chosen": row["chosen"], "rejected": row["rejected"]})
        assert [m["role"] for m in row["prompt"]] == ["system", "user"]
        assert row["chosen"][0]["role"] == "assistant" and row["rejected"][0]["role"] == "assistant"
        assert verdicts[row["chosen_trajectory_id"]].passed and not verdicts[row["rejected_trajectory_id"]].passed
        assert row["rejected_reason_code"] == verdicts[row["rejected_trajectory_id"]].reason_codes[0]
        assert row["chosen_reward"] > row["rejected_reward"]


def test_llamafactory_sharegpt_export(exported):
    lf = exported["paths"]["llamafactory"]
    data = json.load(open(lf))
    info = json.load(open(exported["paths"]["llamafactory_dataset_info"]))
    entry = info["trajpipe_sft"]
    assert entry["formatting"] == "sharegpt" and entry["columns"]["messages"] == "conversations"
    assert entry["file_name"] == os.path.basename(lf)
    import pyarrow.parquet as pq

    train = [r for r in pq.read_table(exported["paths"]["sft"]).to_pylist() if r["split"] == "train"]
    assert len(data) == len(train)
    for ex in data:
        conv = ex["conversations"]
        assert conv[0]["from"] == "human" and conv[-1]["from"] in ("gpt", "function_call")
        for i, turn in enumerate(conv):  # LLaMA-Factory's alternation rule
            assert (turn["from"] in ("human", "observation")) == (i % 2 == 0)
            if turn["from"] == "function_call":
                call = json.loads(turn["value"])
                assert call["name"] in DOMAIN.tools and isinstance(call["arguments"], dict)
        assert isinstance(ex["tools"], str) and json.loads(ex["tools"]) and ex["system"]


def test_grpo_trainer_accepts_rl_dataset_reward_and_environment(exported, tokenizer, tmp_path):
    """GRPOTrainer builds with the rl dataset, the reward function and the environment factory
    (TRL checks the chat template renders tool calls, probes the environment's reset / tools /
    get_reward and sets up tool-call parsing). Nothing is generated or trained."""
    from transformers import LlamaConfig, LlamaForCausalLM
    from trl import GRPOConfig, GRPOTrainer

    from pipeline.trl_env import environment_factory, grpo_reward, prepare_tokenizer

    prepare_tokenizer(tokenizer)
    ds = datasets.load_dataset("parquet", data_files=exported["paths"]["rl"])["train"]
    model = LlamaForCausalLM(LlamaConfig(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32,
                                         num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2))
    cfg = GRPOConfig(output_dir=str(tmp_path), report_to="none", use_cpu=True, per_device_train_batch_size=2,
                     num_generations=2, max_completion_length=8, max_steps=1)
    trainer = GRPOTrainer(model=model, args=cfg, train_dataset=ds, processing_class=tokenizer,
                          reward_funcs=grpo_reward, environment_factory=environment_factory("airline"))
    assert {t.__name__ for t in trainer.tools} == set(DOMAIN.tools)
    assert "AirlineSandboxEnv" in trainer.reward_func_names  # get_reward() is an extra reward source
    parsed = tokenizer.parse_response(
        '<tool_call>\n{"name": "cancel_reservation", "arguments": {"reservation_id": "ABC123"}}\n</tool_call><|im_end|>',
        prefix="<|im_start|>assistant\n")
    assert parsed["tool_calls"][0]["function"] == {"name": "cancel_reservation", "arguments": {"reservation_id": "ABC123"}}
