"""Grammar-constrained agent turns (pipeline/rollout/grammar.py) checked with XGrammar itself.

Unit tests compile each structural tag for the bundled tokenizer (SmolLM2-135M) with the
backend's own compiler (pipeline/rollout/backends/xgrammar_hf.py) and run xgrammar's
GrammarMatcher over candidate turns: every airline and retail tool schema accepts a valid call and
rejects an extra key, a missing required key, a wrong type, a value outside an enum and an
unknown tool; the turn kinds; grounded decoding; strict schemas; the turn token budget.

With the real model (slow): real airline tasks sampled at temperature 1.0 give 100% valid calls
under the grammar (transformers, and vLLM where the session's engine exists), and not without it.
"""
from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from pipeline.domains import get_domain
from pipeline.records import TaskHidden, TaskPackage, TaskVisible, ToolCall
from pipeline.rollout import grammar as gr
from pipeline.rollout.backends.base import SamplingConfig
from pipeline.rollout.prompting import parse_tool_calls, render_for_model, system_prompt
from pipeline.sandbox import Sandbox

xgr = pytest.importorskip("xgrammar")

DOMAINS = ("airline", "retail")
CALL_TEXT = "Let me look into that for you."


# ------------------------------------------------------------------ helpers
@pytest.fixture(scope="module")
def tokenizer():
    """The bundled teacher's tokenizer from its cached safetensors folder (no model load)."""
    from transformers import AutoTokenizer

    from pipeline.rollout.models import ensure_safetensors, resolve_model

    return AutoTokenizer.from_pretrained(ensure_safetensors(resolve_model(None)))


@pytest.fixture(scope="module")
def compiler(tokenizer):
    """The transformers backend's grammar compiler (same TokenizerInfo, stop ids and cache)."""
    from pipeline.rollout.backends.xgrammar_hf import GrammarCompiler

    stop = [tokenizer.eos_token_id, tokenizer.convert_tokens_to_ids("<|im_end|>")]
    return GrammarCompiler(tokenizer, len(tokenizer), sorted(set(stop)))


def matches(compiler, grammar: str, text: str) -> bool:
    """True when ``text`` is a complete turn of ``grammar``: the matcher accepts every character
    and then the stop token, and terminates."""
    m = xgr.GrammarMatcher(compiler.compile(grammar))
    if not m.accept_string(text):
        return False
    return m.accept_token(compiler.info.stop_token_ids[0]) and m.is_terminated()


def call_text(name: str, args) -> str:
    """A call in the harness's Hermes format, arguments as ``json.dumps`` writes them."""
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}) + "\n</tool_call>"


def fn(tool):
    return tool.get("function", tool)


def valid_value(schema: dict, key: str = "") -> object:
    """A valid value of ``schema`` (every declared property, in declared order; arrays of one
    item, or ``minItems``)."""
    if "enum" in schema:
        return schema["enum"][-1]
    t = schema.get("type")
    if t == "object" or "properties" in schema:
        return {k: valid_value(v, k) for k, v in (schema.get("properties") or {}).items()}
    if t == "array":
        return [valid_value(schema.get("items") or {}, key) for _ in range(max(1, schema.get("minItems", 1)))]
    if t == "integer":
        return max(2, schema.get("minimum", 2))
    if t == "number":
        return 12.5
    if t == "boolean":
        return True
    if "pattern" in schema:  # the only pattern of the shipped schemas: ISO dates
        assert schema["pattern"] == r"^\d{4}-\d{2}-\d{2}$", schema["pattern"]
        return "2024-05-18"
    return "sara_doe_496" if gr.ID_KEY_RE.search(key) else "Mia Li"


def wrong_type(schema: dict) -> object:
    t = schema.get("type")
    return {"string": 7, "integer": "7", "number": "7.5", "boolean": "yes", "array": "x", "object": "x"}[t]


def leaf_paths(schema: dict, path=()):
    """(path, schema) of every property, nested ones included (array items at index 0)."""
    for k, sub in (schema.get("properties") or {}).items():
        yield path + (k,), sub
        if sub.get("type") == "array" and isinstance(sub.get("items"), dict):
            yield path + (k, 0), sub["items"]
            yield from leaf_paths(sub["items"], path + (k, 0))
        elif sub.get("type") == "object":
            yield from leaf_paths(sub, path + (k,))


def put(args, path, value):
    out = copy.deepcopy(args)
    cur = out
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = value
    return out


def strict_validator(tool):
    return jsonschema.Draft202012Validator(gr.strict_schema(fn(tool).get("parameters")))


def all_tools():
    return [(d, t) for d in DOMAINS for t in get_domain(d).tool_schemas()]


# ------------------------------------------------------------------ schemas, every tool
@pytest.mark.parametrize("domain", DOMAINS)
def test_every_tool_accepts_valid_calls_and_rejects_invalid_ones(compiler, domain):
    tools = get_domain(domain).tool_schemas()
    g = gr.turn_grammar(tools, "call")
    assert gr.grammar_kind(g) == "call"
    n_enum = 0
    for tool in tools:
        name, params = fn(tool)["name"], fn(tool).get("parameters") or {}
        check = strict_validator(tool)
        full = valid_value(params)
        minimal = {k: v for k, v in full.items() if k in (params.get("required") or [])}
        for args in (full, minimal):
            assert check.is_valid(args), (name, args)  # the helper's own value is valid
            assert matches(compiler, g, call_text(name, args)), (name, args)
        # the opening up to the arguments is fixed text; inside them JSON white space is free
        assert matches(compiler, g, gr.call_begin(name) + json.dumps(full, separators=(",", ":")) + gr.CALL_END), name

        bad: list[tuple[str, object]] = [("extra key", {**full, "zzz_extra": "x"})]
        for key in params.get("required") or []:
            bad.append((f"missing {key}", {k: v for k, v in full.items() if k != key}))
        for path, sub in leaf_paths(params):
            if sub.get("type") in ("string", "integer", "number", "boolean", "array", "object"):
                bad.append((f"wrong type at {path}", put(full, path, wrong_type(sub))))
            if "enum" in sub:
                n_enum += 1
                bad.append((f"outside enum at {path}", put(full, path, "zzz_not_in_enum")))
            if sub.get("type") == "object":
                bad.append((f"nested extra key at {path}", put(full, path, {**full_at(full, path), "zzz": 1})))
        for why, args in bad:
            assert not check.is_valid(args), (name, why)  # invalid by the strict schema ...
            assert not matches(compiler, g, call_text(name, args)), (name, why, args)  # ... and by the grammar
    assert n_enum > 0  # the domain's enums (cabin, flight type, insurance ...) were exercised
    # an unknown tool, a tool outside `only`, a second call in the same turn
    assert not matches(compiler, g, call_text("no_such_tool", {}))
    first, second = (fn(t)["name"] for t in tools[:2])
    only = gr.turn_grammar(tools, "call", only=[first])
    assert matches(compiler, only, call_text(first, valid_value(fn(tools[0])["parameters"])))
    assert not matches(compiler, only, call_text(second, valid_value(fn(tools[1])["parameters"])))
    one = call_text(first, valid_value(fn(tools[0])["parameters"]))
    assert not matches(compiler, g, one + "\n" + one)


def full_at(args, path):
    cur = args
    for p in path:
        cur = cur[p]
    return cur


def test_nested_objects_reject_extra_keys(compiler):
    """book_reservation's passengers / flights / payment_methods items are closed objects too."""
    tools = get_domain("airline").tool_schemas()
    tool = next(t for t in tools if fn(t)["name"] == "book_reservation")
    g = gr.turn_grammar([tool], "call")
    args = valid_value(fn(tool)["parameters"])
    assert matches(compiler, g, call_text("book_reservation", args))
    for arr in ("passengers", "flights", "payment_methods"):
        bad = copy.deepcopy(args)
        bad[arr][0]["nickname"] = "x"
        assert not matches(compiler, g, call_text("book_reservation", bad)), arr


# ------------------------------------------------------------------ turn kinds
def test_turn_kinds(compiler):
    tools = get_domain("airline").tool_schemas()
    call = call_text("get_user_details", {"user_id": "mia_li_3668"})
    grammars = {k: gr.turn_grammar(tools, k) for k in gr.TURN_KINDS}
    assert {k: gr.grammar_kind(g) for k, g in grammars.items()} == {k: k for k in gr.TURN_KINDS}
    # call: exactly one call, never plain text
    assert matches(compiler, grammars["call"], call)
    for text in (CALL_TEXT, "", "Sure! " + call, call + " Done."):
        assert not matches(compiler, grammars["call"], text), text
    # any: text or one call (not both)
    assert matches(compiler, grammars["any"], call) and matches(compiler, grammars["any"], CALL_TEXT)
    assert not matches(compiler, grammars["any"], "Sure! " + call)
    assert not matches(compiler, grammars["any"], call + "\n" + call)
    # text: plain text only; no call opening, no tool response anywhere in it
    assert matches(compiler, grammars["text"], CALL_TEXT)
    assert not matches(compiler, grammars["text"], call)
    # ... nor an invented tag of the same family (seen from the bundled model on the airline tasks)
    for bad in ("<tool_call>", "<tool_response>", "</tool_response>", "<tool_response_json>",
                "<tool_response:custom_code_value>", "<tool_response_4>", "</tool_call>", "<tool>",
                "<tool-call>", "<tool-response>", "```python\nimport requests\n```"):
        for text in (bad, f"Here you go: {bad} ok", f"Done.\n{bad}\n{{\"a\": 1}}"):
            assert not matches(compiler, grammars["text"], text), text
            assert not matches(compiler, grammars["any"], text), text
    # no admissible tool: call and any degrade to text
    assert gr.grammar_kind(gr.turn_grammar(tools, "call", only=[])) == "text"
    with pytest.raises(ValueError, match="unknown turn kind"):
        gr.turn_grammar(tools, "prefix")


def test_text_replies_are_bounded_by_text_tokens(compiler, tokenizer):
    """After ``text_tokens`` tokens of text, only a stop token is admissible (the mask the
    backends apply); a call in an ``any`` turn is not cut by the text bound."""
    import torch

    tools = get_domain("airline").tool_schemas()
    ids = tokenizer("Hello there, this is a rather long reply to the customer about many things.",
                    add_special_tokens=False)["input_ids"]
    assert len(ids) > 8
    for kind in ("text", "any"):
        m = xgr.GrammarMatcher(compiler.compile(gr.turn_grammar(tools, kind, text_tokens=5)))
        mask = xgr.allocate_token_bitmask(1, compiler.vocab_size)
        admissible = []
        for tok in ids[:6]:
            m.fill_next_token_bitmask(mask, 0)
            scores = torch.zeros(1, compiler.vocab_size)
            xgr.apply_token_bitmask_inplace(scores, mask)
            admissible.append(torch.isfinite(scores[0]).nonzero().squeeze(1).tolist())
            m.accept_token(tok)
        assert all(len(a) > 1000 for a in admissible[:5]), kind
        assert set(admissible[5]) <= set(compiler.info.stop_token_ids), (kind, admissible[5])
    long_call = call_text("get_user_details", {"user_id": "a_very_long_user_identifier_1234567890"})
    assert len(tokenizer(long_call)["input_ids"]) > 5
    assert matches(compiler, gr.turn_grammar(tools, "any", text_tokens=5), long_call)


# ------------------------------------------------------------------ grounded decoding
def _call(cid, name, args):
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}


GROUNDED_MSGS = [
    {"role": "system", "content": "Policy. Ids look like 'sara_doe_496' and '8JX2WO'."},
    {"role": "user", "content": "Hi, I'm mia_li_3668. Please cancel reservation ABC123 (or was it Q7W8E9?)."},
    _call("c0", "get_reservation_details", {"reservation_id": "ABC123"}),
    {"role": "tool", "tool_call_id": "c0", "name": "get_reservation_details",
     "content": "Error: reservation ABC123 not found"},
    _call("c1", "get_user_details", {"user_id": "mia_li_3668"}),
    {"role": "tool", "tool_call_id": "c1", "name": "get_user_details",
     "content": json.dumps({"reservations": ["Q7W8E9", "K2L9P0"], "payment_methods": {"gift_card_7701": {}}})},
]


def test_grounded_decoding_admits_only_seen_ids(compiler):
    tools = get_domain("airline").tool_schemas()
    g = gr.turn_grammar(tools, "call", messages=GROUNDED_MSGS, grounded=True)
    ok = matches
    # seen in the customer's turn / a tool result
    assert ok(compiler, g, call_text("get_user_details", {"user_id": "mia_li_3668"}))
    for rid in ("Q7W8E9", "K2L9P0"):
        assert ok(compiler, g, call_text("get_reservation_details", {"reservation_id": rid}))
    # never seen (the system prompt's examples are not a source), or a variant of a seen id
    for uid in ("sara_doe_496", "mia_li_3669", "MIA_LI_3668", "bob_7"):
        assert not ok(compiler, g, call_text("get_user_details", {"user_id": uid})), uid
    assert not ok(compiler, g, call_text("cancel_reservation", {"reservation_id": "8JX2WO"}))
    # ABC123 failed for get_reservation_details: dropped for that tool only
    assert not ok(compiler, g, call_text("get_reservation_details", {"reservation_id": "ABC123"}))
    assert ok(compiler, g, call_text("cancel_reservation", {"reservation_id": "ABC123"}))
    assert gr.failed_identifiers(GROUNDED_MSGS) == {"get_reservation_details": {"ABC123"}}
    # arguments that are not identifiers stay free
    assert ok(compiler, g, call_text("search_direct_flight", {"origin": "JFK", "destination": "SEA", "date": "2024-05-20"}))
    # nested ids (book_reservation payment_methods[].payment_id) are grounded as well
    book = next(t for t in tools if fn(t)["name"] == "book_reservation")
    args = valid_value(fn(book)["parameters"])
    args["user_id"] = "mia_li_3668"
    args["payment_methods"][0]["payment_id"] = "gift_card_7701"
    assert ok(compiler, g, call_text("book_reservation", args))
    args["payment_methods"][0]["payment_id"] = "gift_card_7702"
    assert not ok(compiler, g, call_text("book_reservation", args))
    # ungrounded the same ids are all admissible
    free = gr.turn_grammar(tools, "call", messages=GROUNDED_MSGS, grounded=False)
    assert ok(compiler, free, call_text("get_user_details", {"user_id": "sara_doe_496"}))


def test_grounded_decoding_without_candidates_drops_the_tool():
    """A tool whose required identifier has no candidate is not offered; with none left, the turn
    is text."""
    tools = get_domain("airline").tool_schemas()
    opening = [{"role": "user", "content": "Hello, I would like to book a flight."}]
    fmt = json.loads(gr.turn_grammar(tools, "call", messages=opening, grounded=True))["format"]
    offered = {e["begin"] for e in fmt.get("elements", [fmt])}
    assert gr.call_begin("get_user_details") not in offered and gr.call_begin("list_all_airports") in offered
    only = gr.turn_grammar(tools, "call", only=["get_user_details"], messages=opening, grounded=True)
    assert gr.grammar_kind(only) == "text"


def test_grounded_decoding_reads_only_customer_turns_and_tool_results(compiler):
    """An identifier the agent itself wrote (a free-text argument, a text turn) or a harness
    note echoing the agent's broken call is not grounded: only customer turns and tool results are
    (the verifier's TRAJ_UNGROUNDED_ARGUMENT evidence)."""
    tools = get_domain("airline").tool_schemas()
    msgs = [
        {"role": "user", "content": "Hi, I'm mia_li_3668."},
        _call("c0", "think", {"thought": "maybe the reservation is ZZ9Q01"}),
        {"role": "tool", "tool_call_id": "c0", "name": "think", "content": ""},
        {"role": "assistant", "content": "Is your reservation YY8P02?"},
        {"role": "user", "content": "[format error] tool call is not valid JSON near 'XX7R03'. Reply with ..."},
    ]
    assert gr.seen_identifiers(msgs) == ["mia_li_3668"]
    g = gr.turn_grammar(tools, "call", messages=msgs, grounded=True)
    for rid in ("ZZ9Q01", "YY8P02", "XX7R03"):
        assert not matches(compiler, g, call_text("get_reservation_details", {"reservation_id": rid})), rid
    assert matches(compiler, g, call_text("get_user_details", {"user_id": "mia_li_3668"}))


def test_grounded_ids_follow_their_key(compiler):
    """An id argument takes ids seen under a related key (``reservation_id`` ~ ``reservations``,
    ``payment_id`` ~ ``payment_methods``) or said by the customer (a capitals record locator
    without a digit too), never a value seen under an unrelated key: the bundled model otherwise
    tried the user id, a birth date and a zip code as reservation ids until the turn limit."""
    tools = get_domain("airline").tool_schemas()
    details = {"name": {"first_name": "Todd"}, "address": {"address1": "4788 Walker Harbor", "zip": "25696"},
               "dob": "1994-03-17", "payment_methods": {"credit_card_1592375": {"source": "credit_card"}},
               "reservations": ["NQ7YTR", "4WQ1CX"]}
    msgs = [{"role": "user", "content": "Hi, my user id is todd_barry_8952. Please cancel reservation XFADMP."},
            _call("c0", "get_user_details", {"user_id": "todd_barry_8952"}),
            {"role": "tool", "tool_call_id": "c0", "name": "get_user_details", "content": json.dumps(details)}]
    pool = gr.GroundingPool(msgs)
    assert pool.for_arg("get_reservation_details", "reservation_id") == ["NQ7YTR", "4WQ1CX", "XFADMP"]
    # a customer's code not seen under any key stays a candidate everywhere (it may be either)
    assert pool.for_arg("get_user_details", "user_id") == ["todd_barry_8952", "XFADMP"]
    g = gr.turn_grammar(tools, "call", messages=msgs, grounded=True)
    for rid in ("XFADMP", "NQ7YTR", "4WQ1CX"):
        assert matches(compiler, g, call_text("get_reservation_details", {"reservation_id": rid})), rid
    for bad in ("todd_barry_8952", "1994-03-17", "25696", "4788", "credit_card_1592375"):
        assert not matches(compiler, g, call_text("get_reservation_details", {"reservation_id": bad})), bad
    book = next(t for t in tools if fn(t)["name"] == "book_reservation")
    args = valid_value(fn(book)["parameters"])
    args["user_id"] = "todd_barry_8952"
    args["payment_methods"][0]["payment_id"] = "credit_card_1592375"
    assert matches(compiler, g, call_text("book_reservation", args))
    args["payment_methods"][0]["payment_id"] = "NQ7YTR"
    assert not matches(compiler, g, call_text("book_reservation", args))


def test_failed_call_drops_only_the_id_it_failed_on():
    """A failed call drops the id its error names, or its only id; a failed call with several
    ids that names none drops none (a declined payment says nothing about the user id)."""
    msgs = [_call("c0", "book_reservation", {"user_id": "mia_li_3668", "payment_id": "gift_card_7701"}),
            {"role": "tool", "tool_call_id": "c0", "content": "Error: not enough balance in the payment method"},
            _call("c1", "update_reservation_flights", {"reservation_id": "Q7W8E9", "payment_id": "credit_card_55"}),
            {"role": "tool", "tool_call_id": "c1", "content": "Error: payment method credit_card_55 not found"},
            _call("c2", "get_reservation_details", {"reservation_id": "K2L9P0"}),
            {"role": "tool", "tool_call_id": "c2", "content": "Error: reservation not found"}]
    assert gr.failed_identifiers(msgs) == {"update_reservation_flights": {"credit_card_55"},
                                           "get_reservation_details": {"K2L9P0"}}


@pytest.mark.parametrize("a, b, related", [
    ("reservation_id", "reservations", True), ("payment_id", "payment_methods", True),
    ("payment_method_id", "payment_methods", True), ("new_item_ids", "item_id", True),
    ("order_id", "orders", True), ("user_id", "reservation_id", False), ("id", "id", False),
    ("item_ids", "dob", False), ("product_id", "item_id", False)])
def test_keys_related(a, b, related):
    assert gr.keys_related(a, b) is related and gr.keys_related(b, a) is related


@pytest.mark.parametrize("kind", ["timeout", "transient", "wrong_type"])
def test_grounded_decoding_allows_the_retry_after_an_injected_fault(compiler, kind):
    """A call that did not run (an injected timeout / 503 / re-typed argument: pipeline.faults,
    whose retry always succeeds) says nothing about its identifiers: the retry stays admissible."""
    from pipeline.faults import FaultConfig, FaultInjector

    tools = get_domain("airline").tool_schemas()
    task = _task("cancel_reservation", 3, short=False)
    uid = task.hidden.reference_solution[0].arguments["user_id"]
    sb = Sandbox(get_domain("airline"), task.hidden.initial_state,
                 faults=FaultInjector(FaultConfig(rate=1.0, kinds=(kind,)), 0))
    res = sb.call("get_user_details", {"user_id": uid})
    assert res.fault == kind and res.content.startswith("Error")
    msgs = [{"role": "user", "content": f"I am {uid}."}, _call("c0", "get_user_details", {"user_id": uid}),
            {"role": "tool", "tool_call_id": "c0", "name": "get_user_details", "content": res.content}]
    g = gr.turn_grammar(tools, "call", messages=msgs, grounded=True)
    assert matches(compiler, g, call_text("get_user_details", {"user_id": uid})), res.content


def test_grounded_optional_identifier_without_candidates_is_not_free(compiler):
    """An optional id-typed argument with no seen candidate cannot be written at all (it is not
    left as a free string)."""
    tool = {"type": "function", "function": {"name": "lookup", "parameters": {
        "type": "object", "properties": {"query": {"type": "string"}, "order_id": {"type": "string"}},
        "required": ["query"]}}}
    msgs = [{"role": "user", "content": "find my order please"}]
    g = gr.turn_grammar([tool], "call", messages=msgs, grounded=True)
    assert matches(compiler, g, call_text("lookup", {"query": "shoes"}))
    assert not matches(compiler, g, call_text("lookup", {"query": "shoes", "order_id": "#W1234567"}))
    seen = msgs + [{"role": "user", "content": "it is #W1234567"}]
    g2 = gr.turn_grammar([tool], "call", messages=seen, grounded=True)
    assert matches(compiler, g2, call_text("lookup", {"query": "shoes", "order_id": "#W1234567"}))


# ------------------------------------------------------------------ strict schemas, budget
def test_strict_schema_closes_every_object_recursively():
    tools = {fn(t)["name"]: t for t in get_domain("airline").tool_schemas()}
    params = fn(tools["book_reservation"])["parameters"]
    before = json.dumps(params, sort_keys=True)
    s = gr.strict_schema(params)
    assert json.dumps(params, sort_keys=True) == before  # a deep copy: the domain's schema is untouched
    assert s["additionalProperties"] is False
    for arr in ("flights", "passengers", "payment_methods"):
        assert s["properties"][arr]["items"]["additionalProperties"] is False, arr
    nested = {"type": "object", "properties": {
        "a": {"type": "object", "properties": {"b": {"type": "array", "items": {"type": "object", "properties": {
            "c": {"type": "object", "properties": {"d": {"type": "string"}}}}}}}},
        "e": {"anyOf": [{"type": "object", "properties": {"f": {"type": "integer"}}}, {"type": "null"}]},
        "g": {"type": "object", "additionalProperties": {"type": "object", "properties": {"h": {"type": "string"}}}},
        "keep": {"type": "object", "additionalProperties": True}},
        "$defs": {"X": {"type": "object", "properties": {"y": {"type": "string"}}}}}
    s = gr.strict_schema(nested)
    assert s["additionalProperties"] is False
    a = s["properties"]["a"]
    assert a["additionalProperties"] is False and a["properties"]["b"]["items"]["additionalProperties"] is False
    assert a["properties"]["b"]["items"]["properties"]["c"]["additionalProperties"] is False
    assert s["properties"]["e"]["anyOf"][0]["additionalProperties"] is False
    assert s["properties"]["g"]["additionalProperties"]["additionalProperties"] is False  # values' schema closed
    assert s["properties"]["keep"]["additionalProperties"] is True  # an explicit choice is kept
    assert s["$defs"]["X"]["additionalProperties"] is False
    assert gr.strict_schema(None) == gr.strict_schema({}) == {"type": "object", "properties": {},
                                                             "additionalProperties": False}


@pytest.mark.parametrize("domain", DOMAINS)
def test_turn_token_budget_fits_the_longest_call(tokenizer, domain):
    """The budget fits the longest call of every tool (every argument present, 24-character
    strings, two array items) and every reference call the domain's generator writes."""
    dom = get_domain(domain)
    tools = dom.tool_schemas()
    budget = gr.turn_token_budget(tools, floor=0)
    assert gr.turn_token_budget(tools, floor=budget + 100) == budget + 100  # the floor wins when larger
    n = lambda s: len(tokenizer(s, add_special_tokens=False)["input_ids"])  # noqa: E731
    longest = 0
    for tool in tools:
        args = gr._example_value(gr.strict_schema(fn(tool).get("parameters")))
        text = gr.call_begin(fn(tool)["name"]) + json.dumps(args) + gr.CALL_END
        assert len(text) <= gr.longest_call_chars(tools)
        longest = max(longest, n(text))
    assert longest <= budget, (longest, budget)
    ref_longest = 0
    for kind in dom.task_kinds:
        for seed in range(6):
            for c in dom.generate_task(kind, seed).reference_solution:
                ref_longest = max(ref_longest, n(call_text(c["name"], c.get("arguments", {}))))
    assert 0 < ref_longest <= budget, (ref_longest, budget)


# ------------------------------------------------------------------ the real model
FEW_TOOLS = ("get_user_details", "get_reservation_details", "cancel_reservation", "transfer_to_human_agents")
SHORT_POLICY = ("Airline agent rules: check the customer's user id with get_user_details before any change; "
                "cancel a reservation only for its owner and only after the customer says yes.")
AIRLINE_CASES = [("cancel_reservation", s) for s in (3, 4, 5, 6)] + [("update_reservation_baggages", s) for s in (1, 2)] \
    + [("update_reservation_passengers", s) for s in (1, 2)]


def _task(kind: str, seed: int, short: bool = True) -> TaskPackage:
    """A real airline task from the domain generator; ``short``: a two-sentence policy and four
    tools in the agent's view (CPU prefill time), as tests/test_rollout_engine.py."""
    dom = get_domain("airline")
    gen = dom.generate_task(kind, seed)
    tools = [t for t in dom.tool_schemas() if not short or fn(t)["name"] in FEW_TOOLS]
    sb = Sandbox(dom, gen.initial_state)
    sb.run(gen.reference_solution)
    return TaskPackage(
        task_id=f"{kind}-{seed}", blueprint_id=f"bp-{kind}", domain="airline", seed=seed,
        visible=TaskVisible(instruction=gen.instruction, policy=SHORT_POLICY if short else dom.policy, tools=tools,
                            user_messages=list(gen.user_messages)),
        hidden=TaskHidden(initial_state=gen.initial_state,
                          reference_solution=[ToolCall(**c) for c in gen.reference_solution],
                          expected_state_hash=sb.state_hash(), verifier={"type": "state_hash"}),
        task_kind=kind, expected_outcome=gen.expected_outcome)


def first_turn_rows():
    """The harness's first agent turn of 8 real airline tasks: prompts, grounded "call" grammars
    (as RolloutConfig's defaults: grammar, grounded) and the token budget of the turn."""
    tasks = [_task(k, s) for k, s in AIRLINE_CASES]
    tools = tasks[0].visible.tools
    prompts, grammars = [], []
    for t in tasks:
        msgs = [{"role": "system", "content": system_prompt(t.visible.policy, t.visible.tools)},
                {"role": "user", "content": t.visible.instruction}]
        prompts.append(render_for_model(msgs))
        grammars.append(gr.turn_grammar(t.visible.tools, "call", messages=msgs, grounded=True, text_tokens=64))
    # rollout_stage's default max_new_tokens (64) as the floor, as the harness sizes a turn
    return tasks, tools, prompts, grammars, gr.turn_token_budget(tools, 64)


def call_problem(text: str, tools) -> str | None:
    """None when ``text`` is exactly one call of one of ``tools`` whose arguments validate against
    the tool's JSON schema with additionalProperties false everywhere; else what is wrong."""
    p = parse_tool_calls(text)
    if len(p.calls) != 1 or p.errors:
        return f"{len(p.calls)} calls, errors {p.errors}"
    name, args = p.calls[0]
    tool = next((t for t in tools if fn(t)["name"] == name), None)
    if tool is None:
        return f"unknown tool {name!r}"
    errs = [e.message for e in strict_validator(tool).iter_errors(args)]
    return f"{name}: {errs}" if errs else None


def _check_valid(gens, tools):
    """Every generation is one valid call (what the harness would execute)."""
    problems = [(g.finish_reason, g.text, call_problem(g.text, tools)) for g in gens]
    bad = [p for p in problems if p[2] is not None]
    assert not bad, f"{len(bad)}/{len(gens)} constrained call turns invalid (finish, text, problem): {bad}"


@pytest.mark.slow
def test_real_model_calls_are_valid_under_the_grammar(teacher):
    tasks, tools, prompts, grammars, budget = first_turn_rows()
    samp = SamplingConfig(max_new_tokens=budget, temperature=1.0, top_p=1.0, seed=11)
    gens = teacher.generate(prompts, [None] * len(prompts), samp, grammars=grammars)
    _check_valid(gens, tools)
    # ids come from what the customer said (grounded decoding)
    for t, g in zip(tasks, gens):
        args = parse_tool_calls(g.text).calls[0][1]
        for k, v in args.items():
            if gr.ID_KEY_RE.search(k):
                assert v in t.visible.instruction, (k, v)
    # the same prompts without the grammar: not all valid (the check can fail)
    free = teacher.generate(prompts, [None] * len(prompts), samp)
    assert any(call_problem(g.text, tools) is not None for g in free), [g.text for g in free]


@pytest.mark.slow
def test_vllm_calls_are_valid_under_the_same_structural_tag(request):
    """The same structural tags through the vLLM backend (StructuredOutputsParams(structural_tag=...))."""
    try:
        be = request.getfixturevalue("vllm_backend")
    except pytest.FixtureLookupError:
        pytest.skip("no `vllm_backend` session fixture in tests/conftest.py")
    _, tools, prompts, grammars, budget = first_turn_rows()
    gens = be.generate(prompts, [None] * len(prompts),
                       SamplingConfig(max_new_tokens=budget, temperature=1.0, top_p=1.0, seed=11), grammars=grammars)
    _check_valid(gens, tools)


def test_arrays_are_bounded(compiler):
    """An array argument without maxItems gets MAX_ARRAY_ITEMS: a runaway list of flights cannot
    fill a turn's budget (seen: thousands of tokens of appended flight objects)."""
    tools = get_domain("airline").tool_schemas()
    upd = next(t for t in tools if fn(t)["name"] == "update_reservation_flights")
    strict = gr.strict_schema(fn(upd)["parameters"])
    assert strict["properties"]["flights"]["maxItems"] == gr.MAX_ARRAY_ITEMS
    g = gr.turn_grammar([upd], "call")
    flight = {"flight_number": "HAT001", "date": "2024-05-20"}
    args = {"reservation_id": "ABC123", "cabin": "economy", "flights": [flight] * gr.MAX_ARRAY_ITEMS,
            "payment_id": "gift_card_1"}
    assert matches(compiler, g, call_text("update_reservation_flights", args))
    args["flights"] = [flight] * (gr.MAX_ARRAY_ITEMS + 1)
    assert not matches(compiler, g, call_text("update_reservation_flights", args))
