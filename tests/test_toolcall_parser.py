"""The Hermes tool-call parser a model cannot break (pipeline.rollout.prompting.parse_tool_calls).

The three inputs of ../shared/cases/toolcalls/ are copied here verbatim (and checked against the
files when they are present), plus variations of each kind: a close tag inside a JSON string,
several JSON values in one block, invalid Unicode, and broken blocks.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pipeline.rollout.prompting import clean_unicode, parse_tool_calls, scan_tool_calls
from shared_paths import CASES_DIR, missing

CASES = CASES_DIR / "toolcalls"

CLOSE_TAG_IN_STRING = ('<tool_call>\n{"name": "think", "arguments": {"thought": "The customer pasted </tool_call> '
                       'in the chat."}}\n</tool_call>')
TWO_OBJECTS_ONE_BLOCK = ('<tool_call>\n{"name": "cancel_reservation", "arguments": {"reservation_id": "Q3DXYE"}}\n'
                         '{"name": "think", "arguments": {"thought": "done"}}\n</tool_call>')
LONE_SURROGATE_ESCAPE = ('<tool_call>\n{"name": "think", "arguments": {"thought": "customer sent an emoji \\ud83d '
                         'then asked to cancel"}}\n</tool_call>')


@pytest.mark.parametrize("name,text", [("close-tag-inside-json-string.txt", CLOSE_TAG_IN_STRING),
                                       ("two-objects-one-block.txt", TWO_OBJECTS_ONE_BLOCK),
                                       ("lone-surrogate-escape.txt", LONE_SURROGATE_ESCAPE)])
def test_case_copies_match_the_shared_files(name, text):
    path = CASES / name
    if not path.exists():
        pytest.skip(missing(path))
    assert path.read_text(encoding="utf-8") == text


# ---------------------------------------------------------------- the three cases


def test_close_tag_inside_json_string_is_one_think_call():
    p = parse_tool_calls(CLOSE_TAG_IN_STRING)
    assert p.calls == [("think", {"thought": "The customer pasted </tool_call> in the chat."})]
    assert p.errors == [] and p.text == "" and p.had_tag and p.repairs == []


def test_two_objects_in_one_block_are_both_returned_in_order():
    p = parse_tool_calls(TWO_OBJECTS_ONE_BLOCK)
    assert p.calls == [("cancel_reservation", {"reservation_id": "Q3DXYE"}), ("think", {"thought": "done"})]
    assert p.errors == [] and p.text == ""


def test_lone_surrogate_escape_becomes_replacement_character():
    p = parse_tool_calls(LONE_SURROGATE_ESCAPE)
    assert p.calls == [("think", {"thought": "customer sent an emoji \ufffd then asked to cancel"})]
    assert p.errors == []
    assert p.repairs == ["lone UTF-16 surrogate replaced by U+FFFD in the call of 'think'"]
    json.dumps(p.calls, ensure_ascii=False).encode("utf-8")  # would raise with the surrogate


# ---------------------------------------------------------------- variations: close tag / JSON strings


@pytest.mark.parametrize("text,calls", [
    # nested braces and brackets inside strings
    ('<tool_call>{"name": "think", "arguments": {"thought": "a {b} [c] }}} ]]"}}</tool_call>',
     [("think", {"thought": "a {b} [c] }}} ]]"})]),
    # escaped quotes, a backslash and an escaped close tag
    ('<tool_call>{"name": "think", "arguments": {"thought": "he said \\"</tool_call>\\" \\\\ ok"}}</tool_call>',
     [("think", {"thought": 'he said "</tool_call>" \\ ok'})]),
    # a close tag and an open tag inside a string, then the real close tag
    ('<tool_call>{"name": "think", "arguments": {"thought": "<tool_call>x</tool_call>"}}</tool_call>',
     [("think", {"thought": "<tool_call>x</tool_call>"})]),
    # whitespace and newlines everywhere JSON allows them
    ('<tool_call>\n\n  {\n "name" :\t"x" ,\n "arguments" : { "a" : [ 1 ,\n 2 ] }\n }\r\n  </tool_call>',
     [("x", {"a": [1, 2]})]),
    # missing close tag at the end of the text (backends stop at </tool_call> and drop it)
    ('<tool_call>\n{"name": "x", "arguments": {"a": "</tool_call>"}}\n', [("x", {"a": "</tool_call>"})]),
    # OpenAI-style arguments as a JSON string, and "parameters"
    ('<tool_call>{"name": "x", "arguments": "{\\"a\\": \\"</tool_call>\\"}"}</tool_call>',
     [("x", {"a": "</tool_call>"})]),
    ('<tool_call>{"name": "x", "parameters": {"a": 1}}</tool_call>', [("x", {"a": 1})]),
    ('<tool_call>{"name": "x"}</tool_call>', [("x", {})]),
])
def test_json_is_read_to_its_end(text, calls):
    p = parse_tool_calls(text)
    assert p.calls == calls and p.errors == []


def test_text_before_between_and_after_blocks_is_kept():
    p = parse_tool_calls('Let me check. <tool_call>{"name": "a", "arguments": {"q": "</tool_call> x"}}</tool_call>'
                         ' One moment.\n<tool_call>{"name": "b", "arguments": {}}</tool_call>\nDone.')
    assert p.calls == [("a", {"q": "</tool_call> x"}), ("b", {})]
    assert p.errors == [] and p.text == "Let me check.  One moment.\n\nDone."


# ---------------------------------------------------------------- variations: several values per block


def test_three_objects_back_to_back():
    p = parse_tool_calls('<tool_call>{"name": "a", "arguments": {}}{"name": "b", "arguments": {"k": 1}}\n'
                         '  {"name": "c", "arguments": {"s": "}{"}}</tool_call>')
    assert p.calls == [("a", {}), ("b", {"k": 1}), ("c", {"s": "}{"})] and p.errors == []


def test_list_of_objects_and_mixed_values():
    p = parse_tool_calls('<tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]</tool_call>')
    assert p.calls == [("a", {}), ("b", {})] and p.errors == []
    p = parse_tool_calls('<tool_call>[{"name": "a", "arguments": {}}] {"name": "b", "arguments": {}}</tool_call>')
    assert p.calls == [("a", {}), ("b", {})] and p.errors == []


def test_garbage_after_the_object_is_reported_not_dropped():
    p = parse_tool_calls('<tool_call>{"name": "a", "arguments": {}} and then I stop</tool_call> bye')
    assert p.calls == [("a", {})]
    assert p.errors == ["text after the tool call JSON inside <tool_call>: 'and then I stop'"]
    assert p.text == "bye"
    # comma-separated objects are not a list: the second is reported, never silently dropped
    p = parse_tool_calls('<tool_call>{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}</tool_call>')
    assert p.calls == [("a", {})]
    assert p.errors == ["text after the tool call JSON inside <tool_call>: ', {\"name\": \"b\", \"arguments\": {}}'"]
    # garbage with no close tag runs to the end of the text
    p = parse_tool_calls('<tool_call>{"name": "a", "arguments": {}} trailing words')
    assert p.calls == [("a", {})] and p.errors == ["text after the tool call JSON inside <tool_call>: 'trailing words'"]
    assert p.text == ""


def test_second_block_without_close_tag_before_it():
    p = parse_tool_calls('<tool_call>{"name": "a", "arguments": {}}\n<tool_call>{"name": "b", "arguments": {}}')
    assert p.calls == [("a", {}), ("b", {})] and p.errors == []


# ---------------------------------------------------------------- variations: broken blocks


@pytest.mark.parametrize("text,error", [
    ('<tool_call>{"name": "x", "argu', "tool call is not valid JSON: Unterminated string starting at"),
    ('<tool_call>{not json</tool_call>', "tool call is not valid JSON: Expecting property name enclosed in double quotes"),
    ("<tool_call></tool_call>", "tool call is not valid JSON: empty <tool_call> block"),
    ("<tool_call>", "tool call is not valid JSON: empty <tool_call> block"),
    ('<tool_call>{"name": "x", "arguments": {"v": NaN}}</tool_call>', "tool call is not valid JSON: NaN is not valid JSON"),
    ('<tool_call>{"name": "x", "arguments": {"v": -Infinity}}</tool_call>',
     "tool call is not valid JSON: -Infinity is not valid JSON"),
    ("<tool_call>" + "[" * 200_000, "tool call is not valid JSON: nested too deeply"),
    ("<tool_call>[]</tool_call>", "tool call is an empty list"),
    ('<tool_call>{"arguments": {}}</tool_call>', "tool call must be an object with a string 'name'"),
    ('<tool_call>"just a string"</tool_call>', "tool call must be an object with a string 'name'"),
    ('<tool_call>{"name": "x", "arguments": [1]}</tool_call>', "arguments of 'x' must be a JSON object"),
    ('<tool_call>{"name": "x", "arguments": "{oops"}</tool_call>',
     "arguments of 'x' are not valid JSON: Expecting property name enclosed in double quotes"),
])
def test_broken_block_is_an_error_never_an_exception(text, error):
    p = parse_tool_calls(text)
    assert p.calls == [] and p.errors == [error] and p.had_tag


def test_nesting_limit_is_an_error_and_safe_deep_in_the_stack():
    from pipeline.rollout.prompting import MAX_JSON_DEPTH

    def call(depth, as_string=False):
        inner = "[" * depth + "]" * depth
        args = json.dumps('{"a": ' + inner + "}") if as_string else '{"a": ' + inner + "}"
        return '<tool_call>{"name": "x", "arguments": ' + args + "}</tool_call>"

    ok = MAX_JSON_DEPTH - 2  # call object, arguments object, then the lists
    for as_string in (False, True):
        assert parse_tool_calls(call(ok, as_string)).calls[0][0] == "x"
        for depth in (ok + 1, 200):
            p = parse_tool_calls(call(depth, as_string))
            assert p.calls == [] and p.errors == [f"tool call JSON is nested deeper than {MAX_JSON_DEPTH} levels"]
        for depth in (900, 990, 5000):  # the limit, or the decoder's own recursion guard, whichever first
            p = parse_tool_calls(call(depth, as_string))
            assert p.calls == [] and len(p.errors) == 1 and "nested" in p.errors[0]

    def deep_in_the_stack(n):  # a caller already deep in recursion must not get a RecursionError
        return parse_tool_calls(call(950)) if n == 0 else deep_in_the_stack(n - 1)

    p = deep_in_the_stack(100)
    assert p.calls == [] and len(p.errors) == 1


def test_broken_block_does_not_swallow_the_next_one_and_text_is_kept():
    p = parse_tool_calls('Hi. <tool_call>{bad json</tool_call> between <tool_call>{"name": "b", "arguments": {}}'
                         '</tool_call> after')
    assert p.calls == [("b", {})]
    assert p.errors == ["tool call is not valid JSON: Expecting property name enclosed in double quotes"]
    assert p.text == "Hi.  between  after"
    # an unclosed broken block ends at the next opening tag
    p = parse_tool_calls('<tool_call>{"name": "a", "argu\n<tool_call>{"name": "b", "arguments": {}}</tool_call>')
    assert p.calls == [("b", {})] and len(p.errors) == 1


def test_plain_text_has_no_calls():
    p = parse_tool_calls("plain answer")
    assert (p.text, p.calls, p.errors, p.had_tag) == ("plain answer", [], [], False)


def test_never_raises_on_any_prefix_or_cut():
    full = ('Sure. <tool_call>\n{"name": "think", "arguments": {"thought": "a </tool_call> \\"q\\" \\ud83d {x}"}}\n'
            '{"name": "b", "arguments": "{\\"k\\": [1, 2]}"}\n</tool_call> ok')
    for i in range(len(full) + 1):
        for text in (full[:i], full[i:], full[:i] + "</tool_call>" + full[i:]):
            p = parse_tool_calls(text)
            assert isinstance(p.text, str)
            assert p.calls or p.errors or not p.had_tag
            json.dumps([p.text, p.calls, p.errors], ensure_ascii=False).encode("utf-8")
    assert parse_tool_calls(full).calls == [("think", {"thought": 'a </tool_call> "q" \ufffd {x}'}), ("b", {"k": [1, 2]})]


def test_scan_parts_cover_the_text_exactly():
    text = ('a <tool_call>{"name": "x", "arguments": {}}</tool_call> b <tool_response>\n<tool_call>{bad'
            '</tool_response> c <tool_call>{"name": "y"} junk')
    parts = scan_tool_calls(text, skip_tags=("tool_response",))
    assert "".join(text[p.start:p.end] for p in parts) == text
    assert [p.kind for p in parts] == ["text", "block", "text", "skipped", "text", "block"]
    assert parts[3].value == "<tool_response>\n<tool_call>{bad</tool_response>"  # never searched for calls
    assert parts[5].value.calls == [("y", {})] and not parts[5].value.closed
    assert parts[1].value.closed and parts[1].value.raw == '<tool_call>{"name": "x", "arguments": {}}</tool_call>'


# ---------------------------------------------------------------- invalid Unicode


def test_clean_unicode():
    assert clean_unicode("plain é 😀") == "plain é 😀"
    assert clean_unicode("a\ud83db") == "a\ufffdb"
    assert clean_unicode("\ude00x\ud83d") == "\ufffdx\ufffd"
    assert clean_unicode("\ud83d\ud83d") == "\ufffd\ufffd"
    assert clean_unicode("x\ud83d\ude00") == "x\U0001f600"  # a pair of surrogate code points is joined


def test_lone_surrogates_everywhere_are_replaced():
    text = ('raw \ud83d text <tool_call>{"name": "t\\udc00", "arguments": {"k\\ud800": ["\\udfff", {"n": "\\ud83d"}],'
            ' "ok": "\\ud83d\\ude00"}}</tool_call> \ude00')
    p = parse_tool_calls(text)
    assert p.text == "raw \ufffd text  \ufffd"
    assert p.calls == [("t\ufffd", {"k\ufffd": ["\ufffd", {"n": "\ufffd"}], "ok": "\U0001f600"})]
    assert p.errors == []
    assert p.repairs == ["lone UTF-16 surrogate replaced by U+FFFD in the text",
                         "lone UTF-16 surrogate replaced by U+FFFD in the call of 't\ufffd'"]
    p = parse_tool_calls('<tool_call>{"name": "t", "arguments": "{\\"a\\": \\"\\\\ud83d\\"}"}</tool_call>')
    assert p.calls == [("t", {"a": "\ufffd"})]


def test_lone_surrogate_case_survives_jsonl_parquet_and_dedupe(tmp_path):
    """The lone-surrogate case pushed through what comes after parsing: the harness's messages
    (built as pipeline.rollout.harness builds them), trajectories.jsonl (utf-8), a Parquet write of
    the sft row, and dedupe."""
    import pyarrow.parquet as pq

    from pipeline.dedupe import DEDUPE_EXACT, dedupe
    from pipeline.export.rows import sft_row
    from pipeline.export.schemas import SFT
    from pipeline.export.writer import write_parquet
    from pipeline.records import Trajectory

    raw_args = json.loads(LONE_SURROGATE_ESCAPE.split("\n")[1])["arguments"]  # what a plain decode gives
    with pytest.raises(UnicodeEncodeError):
        json.dumps(raw_args, ensure_ascii=False).encode("utf-8")

    p = parse_tool_calls(LONE_SURROGATE_ESCAPE + "\nOne moment \ud83d")
    assert p.text == "One moment \ufffd"
    calls = [{"id": f"call_0_{j}", "type": "function",
              "function": {"name": n, "arguments": json.dumps(a, ensure_ascii=False)}} for j, (n, a) in enumerate(p.calls)]
    messages = [{"role": "system", "content": "policy"}, {"role": "user", "content": "Please cancel."},
                {"role": "assistant", "content": p.text, "tool_calls": calls},
                {"role": "tool", "tool_call_id": "call_0_0", "name": "think", "content": ""},
                {"role": "assistant", "content": "Done."}]

    def traj(tid: str) -> Trajectory:
        return Trajectory(trajectory_id=tid, task_id="t", blueprint_id="bp", sample_index=0, model="m",
                          backend="scripted", messages=messages, tools=[],
                          tool_calls=[{"step": 0, "name": "think", "arguments": calls[0]["function"]["arguments"],
                                       "valid_json": True, "error": None}],
                          final_state_hash="h", finish_reason="agent_stop", n_turns=2, prompt_tokens=1,
                          completion_tokens=1, seed=0)

    a, b = traj("a"), traj("b")
    line = json.dumps(a.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")
    (tmp_path / "trajectories.jsonl").write_bytes(line + b"\n")
    assert "\ufffd" in json.loads((tmp_path / "trajectories.jsonl").read_text(encoding="utf-8"))["messages"][2][
        "tool_calls"][0]["function"]["arguments"]
    write_parquet(str(tmp_path / "sft.parquet"), [sft_row(a, "train", 1.0)], SFT)  # JSON-typed arguments
    back = pq.read_table(tmp_path / "sft.parquet").to_pylist()[0]
    assert json.loads(back["messages"][2]["tool_calls"][0]["function"]["arguments"]) == {
        "thought": "customer sent an emoji \ufffd then asked to cancel"}
    res = dedupe([a, b], threshold=0.9)
    assert [t.trajectory_id for t in res.kept] == ["a"]
    assert [(t.trajectory_id, code) for t, code, _ in res.rejected] == [("b", DEDUPE_EXACT)]


# ---------------------------------------------------------------- vLLM's Hermes parser


WELL_FORMED = [
    '<tool_call>\n{"name": "get_user_details", "arguments": {"user_id": "edwin_norman_9322"}}\n</tool_call>',
    '<tool_call>{"name": "think", "arguments": {"thought": "a {b} \\"c\\""}}</tool_call>',
    'Let me look.\n<tool_call>\n{"name": "a", "arguments": {"x": [1, {"y": null}]}}\n</tool_call>',
    '<tool_call>{"name": "a", "arguments": {}}</tool_call>\n<tool_call>{"name": "b", "arguments": {"k": 2}}</tool_call>',
    '<tool_call>\n{"name": "a", "arguments": {"k": "v"}}\n',
    "no tools here",
]


@pytest.fixture(scope="module")
def vllm_hermes():
    """vLLM's Hermes2ProToolParser when vLLM imports here (skipped otherwise). torchcodec, an audio
    dependency that fails to load its native library on CPU-only machines, is blocked so the import
    raises ImportError, which vLLM handles; tool parsing does not use it."""
    mp = pytest.MonkeyPatch()
    if "vllm.tool_parsers.hermes_tool_parser" not in sys.modules:
        mp.setitem(sys.modules, "torchcodec", None)
    try:
        from vllm.tool_parsers.hermes_tool_parser import Hermes2ProToolParser
    except Exception as exc:  # noqa: BLE001 - not installed, or no usable build on this machine
        mp.undo()
        pytest.skip(f"vLLM's Hermes parser does not import here: {type(exc).__name__}: {exc}")
    mp.undo()

    class _Tok:
        def get_vocab(self):
            return {}

    return Hermes2ProToolParser(_Tok())


@pytest.mark.parametrize("text", WELL_FORMED)
def test_same_calls_as_vllm_hermes_on_well_formed_output(vllm_hermes, text):
    info = vllm_hermes.extract_tool_calls(text, None)
    theirs = [(c.function.name, json.loads(c.function.arguments)) for c in info.tool_calls]
    assert parse_tool_calls(text).calls == theirs


def test_vllm_hermes_has_the_bugs_this_parser_fixes(vllm_hermes):
    for text in (CLOSE_TAG_IN_STRING, TWO_OBJECTS_ONE_BLOCK):
        assert vllm_hermes.extract_tool_calls(text, None).tool_calls == []  # every call lost
        assert len(parse_tool_calls(text).calls) >= 1
    info = vllm_hermes.extract_tool_calls(LONE_SURROGATE_ESCAPE, None)
    with pytest.raises(UnicodeEncodeError):
        info.tool_calls[0].function.arguments.encode("utf-8")
