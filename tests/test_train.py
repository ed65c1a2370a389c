"""``trajpipe train`` and ``trajpipe eval`` for real: a few LoRA steps of the bundled SmolLM2-135M on
a real sft.parquet (tests/test_train_data.py: the library domain's generator, sandbox, verifier and
exporter), then the saved folder loads and generates, and ``eval`` scores it on the held-out split.
"""
from __future__ import annotations

import json
import os

import pytest

from tests.test_train_data import HOLDOUT_KIND, library_export

pytestmark = pytest.mark.slow
pytest.importorskip("datasets", reason="`datasets` not installed: pip install -e '.[train]'")
pytest.importorskip("trl", reason="`trl` not installed: pip install -e '.[train]'")
pytest.importorskip("peft", reason="`peft` not installed: pip install -e '.[train]'")

STEPS = 4


@pytest.fixture(scope="module")
def base_folder():
    from pipeline.rollout.models import ModelNotFound, default_model, ensure_safetensors

    try:
        return ensure_safetensors(default_model())
    except ModelNotFound as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def trained(tmp_path_factory, base_folder):
    """``trajpipe train`` (LoRA, the default) for STEPS steps on one train row (~1,000 tokens), through the CLI."""
    from typer.testing import CliRunner

    from pipeline.cli import app

    root = tmp_path_factory.mktemp("train")
    data, model = root / "data", root / "model"
    library_export(data)
    r = CliRunner().invoke(app, ["train", "--data", str(data), "--out", str(model), "--max-steps", str(STEPS),
                                 "--max-rows", "1", "--lr", "1e-3", "--seed", "0"])
    assert r.exit_code == 0, r.output
    return data, model, json.loads((model / "train_log.json").read_text())


def test_train_log_shows_the_loss_falling(trained):
    _, _, log = trained
    losses = [s["loss"] for s in log["steps"]]
    assert log["method"] == "lora" and log["rows"] == 1 and log["optimizer_steps"] == STEPS
    assert [s["step"] for s in log["steps"]] == list(range(1, STEPS + 1)) and all(x == x and x > 0 for x in losses)
    # the same row STEPS times: the loss falls step by step
    assert all(b < a for a, b in zip(losses, losses[1:])) and log["loss_last"] < 0.8 * log["loss_first"]
    # tokens: TRL's count of every input token trained on; the loss covers the assistant's only
    assert log["tokens_seen"] == STEPS * log["tokens_per_epoch"]
    assert 0 < log["trained_tokens_per_epoch"] < log["tokens_per_epoch"] / 2
    assert log["train_seconds"] > 0 and log["wall_seconds"] >= log["train_seconds"]
    assert log["config"]["learning_rate"] == 1e-3 and log["versions"]["peft"]


def test_saved_model_is_a_transformers_folder_that_loads_and_generates(trained, base_folder):
    import torch
    from safetensors.torch import load_file
    from transformers import AutoTokenizer

    from pipeline.rollout.backends import load_backend
    from pipeline.rollout.models import resolve_model

    data, model, _ = trained
    files = {p.name for p in model.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "generation_config.json",
            "train_log.json"} <= files
    assert not any("adapter" in f for f in files)  # merged, no peft adapter left
    config = json.loads((model / "config.json").read_text())
    assert config["architectures"] == ["LlamaForCausalLM"] and config.get("use_cache", True)
    spec = resolve_model(str(model))
    assert spec.gguf_file is None and spec.folder == str(model)  # what --model DIR resolves to, in every backend
    # the base's own tokenizer and chat template: the harness prompts it exactly like the base
    assert AutoTokenizer.from_pretrained(str(model)).chat_template == AutoTokenizer.from_pretrained(base_folder).chat_template
    # the merged update is in the weights (float32 keeps it)
    new, old = load_file(str(model / "model.safetensors")), load_file(os.path.join(base_folder, "model.safetensors"))
    key = "model.layers.0.self_attn.q_proj.weight"
    assert new[key].dtype == torch.float32 and not torch.equal(new[key], old[key].to(torch.float32))
    assert torch.equal(new["model.embed_tokens.weight"], old["model.embed_tokens.weight"].to(torch.float32))
    # the rollout backend loads it and generates
    from pipeline.rollout.backends import SamplingConfig

    be = load_backend("transformers", str(model), batch_size=1)
    gen = be.generate([[{"role": "user", "content": "Hello, can you renew my loan?"}]], [None],
                      SamplingConfig(max_new_tokens=8, temperature=0.0))[0]
    assert be.model_id == model.name and gen.completion_tokens > 0 and gen.text.strip()


def test_eval_scores_the_trained_model_on_the_holdout(trained, tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app

    data, model, _ = trained
    out = tmp_path / "eval.json"
    r = CliRunner().invoke(app, ["eval", "--data", str(data), "--split", "holdout", "--model", str(model), "--k", "2",
                                 "--limit", "1", "--backend", "transformers", "--max-turns", "4", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "pass@1" in r.output and "overall" in r.output
    res = json.loads(out.read_text())
    bp = f"library-{HOLDOUT_KIND}"
    assert res["split"] == "holdout" and res["hints"] == "none" and res["k"] == 2
    assert res["blueprints"] == [bp] and list(res["per_blueprint"]) == [bp]
    o = res["overall"]
    assert o["tasks"] == 1 and o["rollouts"] == 2 and 0 <= o["passes"] <= 2
    assert o["pass_at_1"] == o["passes"] / 2 and o["pass_at_k"] == float(o["passes"] > 0)
    assert res["backend"] == "transformers" and res["model_id"] == model.name
    assert res["settings"]["max_turns"] == 4 and res["settings"]["prompt_style"] == "compact"
    task = res["per_task"][0]
    assert sum(task["finish_reasons"].values()) == 2


def test_train_without_train_rows_exits_with_a_clear_error(tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app
    from tests.test_train_data import library_run

    run = library_run(tasks_per_bp=1, k=1)
    for v in run["verdicts"]:
        v.passed = False
    library_export(tmp_path / "data", run=run)
    r = CliRunner().invoke(app, ["train", "--data", str(tmp_path / "data"), "--out", str(tmp_path / "m")])
    assert r.exit_code == 1 and "no train rows" in r.output
    assert not (tmp_path / "m").exists()
