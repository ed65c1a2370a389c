"""Exported sft rows rendered by models' own chat templates (the Qwen2.5 / Qwen3 / Qwen3.5 /
Qwen3.6 templates TRL ships in ``trl/chat_templates``): tool-call arguments come out as JSON
objects encoded once, whichever template renders the row, and nothing raises.

Rows are real exports (real airline tasks, reference rollouts checked by the real verifier) read
back with ``datasets.load_dataset(OUT, "sft")``; the tokenizer is the bundled SmolLM2's with its
``chat_template`` replaced by TRL's template text (nothing downloaded); rendering goes through
transformers' ``apply_chat_template`` (its ``tojson``, ``{% generation %}`` support).
"""
from __future__ import annotations

import json
import os
import re
import sys

import pyarrow.parquet as pq
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from export_helpers import DOMAIN, build_run, export_run, reference_calls, trajectory  # noqa: E402

datasets = pytest.importorskip("datasets", reason="`datasets` not installed: pip install -e '.[train]'")
trl = pytest.importorskip("trl", reason="`trl` not installed: pip install -e '.[train]'")

#: "<tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call>" templates
JSON_STYLE = ("qwen2_5", "qwen2_5_training", "qwen3", "qwen3_training", "qwen3_instruct_2507")
#: "<tool_call>\n<function=NAME>\n<parameter=K>\nV\n</parameter>\n</function>\n</tool_call>" templates
XML_STYLE = ("qwen3_5_nothink", "qwen3_5_think", "qwen3_5_nothink_training", "qwen3_6", "qwen3_8")
TEMPLATES = JSON_STYLE + XML_STYLE

# nested objects and lists, a number, a boolean, non-ASCII and markup characters, empty arguments,
# and three calls in one assistant message
VARIED_CALLS = [
    {"name": "get_user_details", "arguments": {}},
    {"name": "book_reservation", "arguments": {
        "user_id": "zoë_<b>&_9", "passengers": [{"first_name": "Zoë", "last_name": "O'Brien \"Jr\"", "dob": "1990-01-01"}],
        "payment_methods": [{"payment_id": "credit_card_1", "amount": 12.5}], "insurance": "no",
        "nested": {"a": {"b": [1, {"c": None}]}}, "total_baggages": 2, "flexible": True}},
    {"name": "get_reservation_details", "arguments": {"reservation_id": "ABC123"}},
]


def _template(name: str) -> str:
    path = os.path.join(os.path.dirname(trl.__file__), "chat_templates", f"{name}.jinja")
    with open(path, encoding="utf-8") as fh:
        return fh.read()


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    from pipeline.rollout.models import ModelNotFound, resolve_model

    try:
        spec = resolve_model(None)
    except ModelNotFound as exc:
        pytest.skip(str(exc))
    return AutoTokenizer.from_pretrained(spec.folder, gguf_file=spec.gguf_file)


def _varied_trajectory(run):
    """A kept trajectory of a real task whose agent makes VARIED_CALLS in one message."""
    task = run["tasks"][0]
    base = trajectory(task, 0, reference_calls(task))
    calls = [{"id": f"call_v{i}", "type": "function",
              "function": {"name": c["name"], "arguments": json.dumps(c["arguments"], ensure_ascii=False)}}
             for i, c in enumerate(VARIED_CALLS)]
    msgs = base.messages[:2] + [{"role": "assistant", "content": "Let me check a few things.", "tool_calls": calls}]
    msgs += [{"role": "tool", "tool_call_id": c["id"], "name": c["function"]["name"], "content": "{}"} for c in calls]
    msgs += [{"role": "assistant", "content": "Done."}]
    return base.model_copy(update={"trajectory_id": base.trajectory_id + "-varied", "messages": msgs})


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    from pipeline.export import export_all
    from pipeline.rollout.prompting import system_prompt

    run = build_run(kinds=("cancel_reservation", "update_reservation_baggages"), tasks_per_bp=1, k=2)
    out = str(tmp_path_factory.mktemp("chat_real"))
    paths = export_run(out, run)
    varied_out = str(tmp_path_factory.mktemp("chat_varied"))
    varied_paths = export_all(varied_out, kept=[_varied_trajectory(run)], rejects=[], tasks=run["tasks"][:1],
                              task_verdicts=run["task_verdicts"][:1], blueprints=run["blueprints"][:1], groups=[],
                              quarantine=[], manifest={"seed": 0},
                              system_prompt=lambda t: system_prompt(t.visible.policy, t.visible.tools))
    cache = str(tmp_path_factory.mktemp("chat_cache"))
    real = [r for d in datasets.load_dataset(out, "sft", cache_dir=cache).values() for r in d]
    varied = [r for d in datasets.load_dataset(varied_out, "sft", cache_dir=cache).values() for r in d]
    assert real and len(varied) == 1
    return {"real": real, "varied": varied, "paths": paths, "varied_paths": varied_paths}


def _render(tok, name: str, row: dict, messages=None) -> str:
    tok.chat_template = _template(name)
    tools = json.loads(row["tools"]) if isinstance(row["tools"], str) else row["tools"]
    return tok.apply_chat_template(messages if messages is not None else row["messages"], tools=tools,
                                   tokenize=False)


def _calls(row: dict) -> list[tuple[str, object]]:
    return [(tc["function"]["name"], tc["function"]["arguments"])
            for m in row["messages"] if m["role"] == "assistant" for tc in (m["tool_calls"] or [])]


def _rendered_calls(name: str, text: str) -> list[tuple[str, object]]:
    """The tool calls as the rendered text shows them, in order: (name, arguments as decoded from
    the text). Only the conversation part (after the first assistant turn starts) is read, so the
    tool instructions in the system turn are not taken for calls."""
    text = text[text.index("<|im_start|>assistant"):]
    out = []
    for block in re.findall(r"<tool_call>\n(.*?)\n</tool_call>", text, re.S):
        if name in JSON_STYLE:
            call = json.loads(block)  # the whole block is one JSON object
            out.append((call["name"], call["arguments"]))
        else:
            m = re.fullmatch(r"<function=([^>\n]+)>\n(.*)</function>", block, re.S)
            assert m, block
            params = re.findall(r"<parameter=([^>\n]+)>\n(.*?)\n</parameter>\n", m.group(2), re.S)
            assert "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params) == m.group(2), block
            out.append((m.group(1), dict(params)))
    return out


def _same(name: str, rendered: object, arguments: dict) -> bool:
    """The rendered arguments are ``arguments`` encoded once. JSON-style templates: the decoded
    object equals them (a double-encoded call decodes to a string). XML-style: every parameter is
    there, a string value verbatim, any other value as JSON that decodes to it (Qwen3.6 / 3.8 write
    every non-string with ``tojson``) or, for scalars, as Jinja's ``string`` filter writes it
    (Qwen3.5: ``True``, ``2``)."""
    if name in JSON_STYLE:
        return rendered == arguments and isinstance(rendered, dict)

    def one(text: str, value: object) -> bool:
        if isinstance(value, str):
            return text == value
        try:
            if json.loads(text) == value and type(json.loads(text)) is type(value):
                return True
        except ValueError:
            pass
        return not isinstance(value, (dict, list)) and text == str(value)

    return isinstance(rendered, dict) and list(rendered) == list(arguments) and all(
        one(rendered[k], v) for k, v in arguments.items())


@pytest.mark.parametrize("name", TEMPLATES)
def test_exported_rows_render_arguments_once_encoded(exported, tokenizer, name):
    rows = exported["real"] + exported["varied"]
    for row in rows:
        calls = _calls(row)
        assert calls and all(isinstance(a, dict) for _, a in calls)  # datasets hands out objects
        text = _render(tokenizer, name, row)
        shown = _rendered_calls(name, text)
        assert [n for n, _ in shown] == [n for n, _ in calls]
        assert all(_same(name, r, a) for (_, r), (_, a) in zip(shown, calls)), (shown, calls)
        assert '"arguments": "' not in text and '\\"' not in text.split("<|im_start|>assistant", 1)[1].replace(
            'O\'Brien \\"Jr\\"', "")  # nothing double-encoded (the one legitimately escaped value aside)
    varied = _rendered_calls(name, _render(tokenizer, name, exported["varied"][0]))
    assert [n for n, _ in varied] == [c["name"] for c in VARIED_CALLS] and varied[0][1] == {}


@pytest.mark.parametrize("name", ("qwen2_5", "qwen3_5_nothink"))
def test_string_arguments_are_what_breaks_and_template_messages_repairs(exported, tokenizer, name):
    """Rows read by pyarrow / pandas carry the JSON text (the OpenAI form): rendered as they are,
    Qwen2.5 double-encodes them and Qwen3.5 raises TypeError; chat.template_messages repairs both,
    to exactly what the ``datasets`` route renders."""
    from pipeline.export.chat import template_messages, template_row

    for path, loaded in ((exported["paths"]["sft"], exported["real"]), (exported["varied_paths"]["sft"], exported["varied"])):
        raw = {r["trajectory_id"]: r for r in pq.read_table(path).to_pylist()}
        for row in loaded:
            pa_row = raw[row["trajectory_id"]]
            assert all(isinstance(a, str) for _, a in _calls(pa_row))
            if name == "qwen2_5":
                bad = _rendered_calls(name, _render(tokenizer, name, pa_row))
                assert all(isinstance(a, str) for _, a in bad)  # '"arguments": "{\"user_id\": ...}"'
            else:
                with pytest.raises(TypeError):
                    _render(tokenizer, name, pa_row)
            fixed = template_row(pa_row)
            assert _render(tokenizer, name, pa_row, fixed["messages"]) == _render(tokenizer, name, row)
            # objects stay objects (the null keys a Parquet struct adds are dropped: same text)
            assert _render(tokenizer, name, row, template_messages(row["messages"])) == _render(tokenizer, name, row)


@pytest.mark.parametrize("name", ("llama3_1", "llama3_2", "gptoss", "lfm2_2_5", "qwen2_5_vl", "qwen3_vl"))
def test_null_keys_of_datasets_rows_are_dropped_for_templates_that_test_presence(exported, tokenizer, name):
    """A red-team pass: every message a ``datasets`` row hands out carries every struct field
    (``tool_calls: None``, ``tool_call_id: None``, ``name: None``); templates that test a key's
    presence ('tool_calls' in message) raise TypeError on them. template_row drops null keys
    (a tool-call message's null content too), and the calls then render with object arguments."""
    from pipeline.export.chat import template_row

    row = next(r for r in exported["real"] if _calls(r))
    assert any(m.get("tool_calls") is None and "tool_calls" in m for m in row["messages"])
    with pytest.raises(TypeError):
        _render(tokenizer, name, row)
    fixed = template_row(row)
    assert not [k for m in fixed["messages"] for k, v in m.items() if v is None]
    text = _render(tokenizer, name, row, fixed["messages"])
    for _, args in _calls(row):
        for v in args.values():
            assert json.dumps(v) in text or str(v) in text


def test_template_arguments_forms():
    from pipeline.export.chat import template_arguments

    assert template_arguments('{"a": {"b": [1]}}') == {"a": {"b": [1]}}
    assert template_arguments("") == {} and template_arguments("{}") == {}
    assert template_arguments({"a": 1}) == {"a": 1} and template_arguments(None) is None
    assert template_arguments("{not json") == "{not json"


def test_non_json_arguments_are_stored_as_json_text(tmp_path):
    """A tool call whose arguments are not JSON (kept as the model wrote them) still fits the
    JSON-typed column: stored as a JSON string literal, so every row loads in ``datasets``."""
    from pipeline.export.rows import sft_row
    from pipeline.export.schemas import SFT
    from pipeline.export.writer import write_parquet

    run = build_run(kinds=("cancel_reservation",), tasks_per_bp=1, k=2)
    t = run["trajectories"][0]
    msgs = [dict(m) for m in t.messages]
    i = next(j for j, m in enumerate(msgs) if m.get("tool_calls"))
    msgs[i]["tool_calls"] = [{"id": "c", "type": "function", "function": {"name": "x", "arguments": "{oops"}}]
    path = str(tmp_path / "sft.parquet")
    write_parquet(path, [sft_row(t.model_copy(update={"messages": msgs}), "train", 1.0)], SFT)
    assert pq.read_table(path).to_pylist()[0]["messages"][i]["tool_calls"][0]["function"]["arguments"] == '"{oops"'
    ds = datasets.load_dataset("parquet", data_files=path, cache_dir=str(tmp_path / "cache"))["train"]
    assert ds[0]["messages"][i]["tool_calls"][0]["function"]["arguments"] == "{oops"
    assert DOMAIN.name == "airline"


def test_trl_sfttrainer_with_a_qwen35_template_trains_on_object_arguments(exported, tokenizer, tmp_path):
    """TRL's own path (SFTTrainer's dataset.map + apply_chat_template, assistant-only loss) on the
    exported sft config with TRL's Qwen3.5 training template: no TypeError, and the tokens the loss
    covers hold each call's parameters (not a JSON string)."""
    from transformers import LlamaConfig, LlamaForCausalLM
    from trl import SFTConfig, SFTTrainer

    out = os.path.dirname(exported["varied_paths"]["sft"])
    ds = datasets.load_dataset(out, "sft", cache_dir=str(tmp_path / "cache"))
    ds = ds[next(iter(ds))]
    tokenizer.chat_template = _template("qwen3_5_nothink_training")
    model = LlamaForCausalLM(LlamaConfig(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32,
                                         num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2))
    cfg = SFTConfig(output_dir=str(tmp_path), assistant_only_loss=True, max_length=None, report_to="none",
                    dataset_num_proc=None, use_cpu=True)
    tok_ds = SFTTrainer(model=model, args=cfg, train_dataset=ds, processing_class=tokenizer).train_dataset
    row = tok_ds[0]
    trained = tokenizer.decode([i for i, lab in zip(row["input_ids"], row["labels"]) if lab != -100])
    assert "<function=book_reservation>\n<parameter=user_id>\nzoë_<b>&_9\n</parameter>" in trained
    assert '<parameter=nested>\n{"a": {"b": [1, {"c": null}]}}\n</parameter>' in trained
    assert "<function=get_user_details>\n</function>" in trained  # empty arguments: no parameters
