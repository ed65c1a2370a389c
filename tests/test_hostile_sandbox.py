"""Model output is untrusted: tool-call arguments that try path traversal, enormous payloads or
code are rejected by validation in the sandbox and never executed (issue 16, hostile input).

Property-based (hypothesis): valid arguments are drawn from each real tool's JSON schema (airline,
retail; :func:`from_schema` covers the keywords those schemas use), then a hostile payload is planted in them (in a string
argument, under an extra key, or as the whole value). Every such call must come back as
``INVALID_ARGUMENTS`` with the tool function never called, the state unchanged and no
process-, file- or eval-level function touched. The same through the rollout harness: a scripted
model emits the hostile call as text, the trajectory records the rejection.
"""
from __future__ import annotations

import builtins
import os
import subprocess
from contextlib import ExitStack
from types import SimpleNamespace
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.domains import get_domain
from pipeline.domains.base import Tool
from pipeline.records import TaskHidden, TaskPackage, TaskVisible, ToolCall, stable_hash
from pipeline.rollout.backends.base import Generation
from pipeline.rollout.harness import RolloutConfig, run_rollouts
from pipeline.sandbox import (INVALID_ARGUMENTS, MAX_ARGUMENT_BYTES, MAX_ARGUMENT_DEPTH, MAX_STRING_CHARS,
                              Sandbox, argument_guard)

#: ``TRAJPIPE_HYPOTHESIS_EXAMPLES=N`` explores N random examples per test (default: 80, the same every run)
_EXPLORE = int(os.environ.get("TRAJPIPE_HYPOTHESIS_EXAMPLES", "0") or 0)
SETTINGS = settings(max_examples=_EXPLORE or 80, deadline=None, derandomize=not _EXPLORE, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.large_base_example, HealthCheck.filter_too_much])

words = st.text(st.sampled_from("abcdefghij klmnop"), max_size=12)
traversal = st.builds(lambda pre, n, target, sep: pre + (sep if pre else "") + (".." + sep) * n + target,
                      st.sampled_from(["", "ABC123", "uploads", "user"]), st.integers(1, 6),
                      st.sampled_from(["etc/passwd", "windows/win.ini", ".ssh/id_rsa", "", "x"]),
                      st.sampled_from(["/", "\\"]))
encoded_traversal = st.sampled_from(["%2e%2e%2fetc%2fpasswd", "..%2f..%2fetc", "%252e%252e/x", "%c0%ae%c0%ae/x",
                                     "/etc/shadow", "~/.bashrc", "C:\\Windows\\System32", "/proc/self/environ"])
code = st.sampled_from([
    "__import__('os').system('id')", "eval('2+2')", "exec(open('x').read())", "os.system('ls')",
    "subprocess.run(['ls'])", "().__class__.__bases__", "getattr(__builtins__, 'open')",
    "<script>alert(1)</script>", "javascript:alert(1)", "$(rm -rf /)", "`cat /etc/passwd`",
    "x; rm -rf / ", "ok && curl http://localhost/x ", "a | sh ", "'; DROP TABLE users; --",
    "' OR '1'='1", "1 UNION SELECT password FROM users", "os.popen('id').read()"])
planted_code = st.builds(lambda a, c, b: f"{a} {c} {b}", words, code, words)
control = st.builds(lambda a, c, b: a + c + b, words, st.sampled_from(["\x00", "\x1b[2J", "\x07", "\x7f", "\x08"]), words)
surrogate = st.builds(lambda a, c, b: a + c + b, words, st.characters(categories=["Cs"]), words)
huge_string = st.integers(MAX_STRING_CHARS + 1, 300_000).map(lambda n: "A" * n)
hostile_string = st.one_of(traversal, encoded_traversal, planted_code, control, surrogate, huge_string)


def from_schema(schema: dict) -> st.SearchStrategy:
    """Values valid under ``schema``, for the JSON Schema keywords the domains' tool schemas use:
    ``type`` (object, array, string, integer, number, boolean, null, or a list of them), ``enum``,
    ``const``, ``properties`` / ``required`` (optional properties drawn or left out),
    ``additionalProperties: false``, ``items``, ``minItems`` / ``maxItems``, ``pattern``,
    ``minLength`` / ``maxLength``, ``minimum`` / ``maximum``. (hypothesis-jsonschema 0.23.1 does not
    run on hypothesis 6.170.)"""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([from_schema(s) for s in schema[key]])
    t = schema.get("type", "object")
    if isinstance(t, list):
        return st.one_of([from_schema({**schema, "type": x}) for x in t])
    if t == "object":
        props = schema.get("properties", {})
        required = [k for k in schema.get("required", []) if k in props]
        optional = {k: from_schema(v) for k, v in props.items() if k not in required}
        return st.fixed_dictionaries({k: from_schema(props[k]) for k in required}, optional=optional)
    if t == "array":
        lo = schema.get("minItems", 0)
        return st.lists(from_schema(schema.get("items", {"type": "string"})), min_size=lo,
                        max_size=max(lo, min(schema.get("maxItems", 3), 3)))
    if t == "string":
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True).filter(lambda s: len(s) < 200)
        return st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789_ -"),
                       min_size=schema.get("minLength", 0), max_size=min(schema.get("maxLength", 30), 30))
    if t == "integer":
        return st.integers(schema.get("minimum", -1000), schema.get("maximum", 10_000))
    if t == "number":
        return st.floats(schema.get("minimum", -1000), schema.get("maximum", 10_000), allow_nan=False)
    if t == "boolean":
        return st.booleans()
    return st.none()


def _nest(depth: int):
    v: object = "x"
    for _ in range(depth):
        v = [v]
    return v


hostile_structure = st.one_of(
    st.integers(MAX_ARGUMENT_DEPTH + 1, 3000).map(_nest),  # deep nesting
    st.integers(MAX_ARGUMENT_BYTES // 1000 + 1, 200).map(lambda n: {f"k{i}": "B" * 1000 for i in range(n)}),
    st.integers(2001, 20_000).map(lambda n: {"items": list(range(n))}),  # many values
    st.just({"x": float("nan")}), st.just({"x": float("inf")}),
)


def _string_paths(obj, prefix=()):
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += [prefix + (k,)] if isinstance(v, str) else _string_paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += [prefix + (i,)] if isinstance(v, str) else _string_paths(v, prefix + (i,))
    return out


@st.composite
def hostile_arguments(draw, params):
    """Valid arguments of a tool (from its schema) with one hostile payload planted."""
    args = draw(from_schema(params))
    where = draw(st.sampled_from(["string", "extra_key", "whole"]))
    paths = _string_paths(args)
    if where == "string" and paths:
        path = paths[draw(st.integers(0, len(paths) - 1))]
        parent = args
        for k in path[:-1]:
            parent = parent[k]
        parent[path[-1]] = draw(hostile_string)
        return args
    if where == "whole":
        return draw(hostile_structure)
    args = dict(args) if isinstance(args, dict) else {}
    args[draw(st.sampled_from(["path", "file", "cmd", "x"]))] = draw(hostile_string)
    return args


class Forbidden(Exception):
    pass


def _forbid(*_a, **_k):
    raise Forbidden("called during a hostile tool call")


def _guarded():
    """Patches that raise if a hostile call reaches the process, the file system or eval."""
    stack = ExitStack()
    for target, name in ((os, "system"), (os, "popen"), (os, "remove"), (os, "unlink"),
                         (subprocess, "Popen"), (subprocess, "run"), (builtins, "eval"),
                         (builtins, "exec"), (builtins, "open"), (builtins, "__import__")):
        if name == "__import__":
            real = builtins.__import__

            def guarded_import(n, *a, _real=real, **k):
                if n.split(".")[0] in ("subprocess", "shutil", "ctypes", "socket"):
                    raise Forbidden(f"import {n}")
                return _real(n, *a, **k)
            stack.enter_context(mock.patch.object(builtins, "__import__", guarded_import))
        else:
            stack.enter_context(mock.patch.object(target, name, _forbid))
    return stack


def _spied(domain_name: str):
    """The domain's tools wrapped so a call of any tool function is recorded."""
    domain = get_domain(domain_name)
    called: list[str] = []

    def spy(name, fn):
        def inner(*a, **kw):  # an argument may be named "state" (an address's state)
            called.append(name)
            return fn(*a, **kw)
        return inner
    tools = {n: Tool(spy(n, t.fn), t.schema, t.writes) for n, t in domain.tools.items()}
    return SimpleNamespace(name=domain_name, tools=tools), called


TOOLS = [(d, n) for d in ("airline", "retail") for n in sorted(get_domain(d).tools)]


@pytest.mark.parametrize("domain_name", ["airline", "retail"])
def test_hostile_arguments_are_rejected_and_never_executed(domain_name):
    domain, called = _spied(domain_name)
    names = sorted(domain.tools)
    state = {"users": {}, "reservations": {}, "flights": {}, "orders": {}, "products": {}}

    @SETTINGS
    @given(data=st.data())
    def run(data):
        name = data.draw(st.sampled_from(names))
        params = domain.tools[name].schema["function"].get("parameters") or {"type": "object"}
        args = data.draw(hostile_arguments(params))
        assert argument_guard(args) is not None  # the planted payload is what the guard sees
        box = Sandbox(domain, state)
        before = box.state_hash()
        called.clear()
        with _guarded():
            res = box.call(name, args)
        assert res.error_code == INVALID_ARGUMENTS, (name, res.content[:200])
        assert res.content.startswith("Error: invalid arguments:")
        assert called == [] and box.state_hash() == before

    run()


@pytest.mark.parametrize("domain_name", ["airline", "retail"])
def test_schema_valid_arguments_pass_the_guard_unless_they_hold_a_hostile_shape(domain_name):
    """The guard does not reject ordinary arguments: schema-valid values made of plain text pass it,
    and the tool then runs (its own business errors are fine)."""
    domain, called = _spied(domain_name)
    names = sorted(domain.tools)
    plain = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789_-. @"), max_size=40)
    checked = []

    @SETTINGS
    @given(data=st.data())
    def run(data):
        name = data.draw(st.sampled_from(names))
        params = domain.tools[name].schema["function"].get("parameters") or {"type": "object"}
        args = _replace_strings(data.draw(from_schema(params)), data.draw(plain))
        from pipeline.sandbox import validate_arguments
        if validate_arguments(domain.tools[name].schema, args) is not None:
            return  # the replacement broke a pattern / enum of the schema: nothing to say
        assert argument_guard(args) is None, args
        called.clear()
        res = Sandbox(domain, {}).call(name, args)
        assert res.error_code != INVALID_ARGUMENTS and called == [name]
        checked.append(name)

    run()
    assert len(set(checked)) >= 5  # the property was checked on several tools, not skipped


def _replace_strings(obj, text):
    if isinstance(obj, dict):
        return {k: _replace_strings(v, text) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_replace_strings(v, text) for v in obj]
    return text if isinstance(obj, str) else obj


def test_the_guard_net_is_live():
    """The patches of :func:`_guarded` do raise (so "never executed" above is observed, not assumed)."""
    with _guarded():
        for fn, arg in ((os.system, "true"), (builtins.open, "/etc/hostname"), (builtins.eval, "1")):
            with pytest.raises(Forbidden):
                fn(arg)
        with pytest.raises(Forbidden):
            __import__("subprocess")


# ---------------------------------------------------------------- through the rollout harness

def _write_flag(state, key):
    state["flags"][key] = True
    return "ok"


HARNESS_CALLS: list[str] = []


def _spy_flag(state, key):
    HARNESS_CALLS.append(key)
    return _write_flag(state, key)


class FlagDomain:
    name = "flags"
    write_tools = frozenset({"set_flag"})
    terminate_tools = frozenset()
    tools = {"set_flag": Tool(_spy_flag, {"type": "function", "function": {
        "name": "set_flag", "description": "set a flag",
        "parameters": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"],
                       "additionalProperties": False}}}, writes=True)}


class OneShot:
    """A model double: its first turn is the given text, then it says goodbye."""
    name = "scripted"
    model_id = "scripted"

    def __init__(self, first: str):
        self.first = first
        self.n = 0

    def generate(self, prompts, prefixes, sampling, grammars=None, **kw):
        self.n += 1
        return [Generation(text=self.first if self.n == 1 else "Goodbye.", prompt_tokens=1, completion_tokens=1)
                for _ in prompts]


def _task():
    init = {"flags": {"a": False}}
    return TaskPackage(task_id="t1", blueprint_id="b1", domain="flags", seed=0,
                       visible=TaskVisible(instruction="set flag a", policy="be nice",
                                           tools=[FlagDomain.tools["set_flag"].schema], user_messages=["thanks"]),
                       hidden=TaskHidden(initial_state=init, reference_solution=[ToolCall(name="set_flag", arguments={"key": "a"})],
                                         expected_state_hash=stable_hash({"flags": {"a": True}}), verifier={}))


@SETTINGS
@given(payload=st.one_of(traversal, encoded_traversal, planted_code, control,
                         st.integers(MAX_STRING_CHARS + 1, 50_000).map(lambda n: "A" * n)))
def test_hostile_call_from_the_model_is_rejected_in_the_harness(payload):
    import json

    text = "<tool_call>" + json.dumps({"name": "set_flag", "arguments": {"key": payload}}) + "</tool_call>"
    HARNESS_CALLS.clear()
    with _guarded():
        traj = run_rollouts([_task()], OneShot(text), lambda name: FlagDomain(),
                            RolloutConfig(k=1, max_turns=3, constrain="none"))[0]
    assert HARNESS_CALLS == []
    assert traj.tool_calls and traj.tool_calls[0]["error"] == INVALID_ARGUMENTS
    assert traj.final_state_hash == stable_hash({"flags": {"a": False}})
    tool_msg = next(m for m in traj.messages if m["role"] == "tool")
    assert tool_msg["content"].startswith("Error: invalid arguments:")


@SETTINGS
@given(turn=st.one_of(
    # a tool no domain has, or a look-alike of a real one
    st.sampled_from(["rm_rf_home", "set_flag\u200b", "s\u0435t_flag", "../set_flag", "__import__", ""]).map(
        lambda n: "<tool_call>" + json_dumps({"name": n, "arguments": {"key": "a"}}) + "</tool_call>"),
    # arguments that are not JSON (or not an object)
    st.sampled_from(['"{not json"', '"[1, 2"', '"NaN"', "[1, 2]", '"\\ud800"', "null", "42", '"key=a"']).map(
        lambda a: '<tool_call>{"name": "set_flag", "arguments": ' + a + "}</tool_call>"),
    # a broken block
    st.sampled_from(['<tool_call>{"name": "set_flag", "arguments": {"key": "a"', "<tool_call></tool_call>",
                     '<tool_call>{"name": "set_flag", "argu', "<tool_call>[[[[[[[[</tool_call>"])))
def test_unknown_tools_and_non_json_arguments_never_run(turn):
    HARNESS_CALLS.clear()
    with _guarded():
        traj = run_rollouts([_task()], OneShot(turn), lambda name: FlagDomain(),
                            RolloutConfig(k=1, max_turns=3, constrain="none"))[0]
    assert HARNESS_CALLS == []
    assert traj.final_state_hash == stable_hash({"flags": {"a": False}})
    assert traj.tool_calls and traj.tool_calls[0]["error"] is not None  # recorded as a failed attempt


def json_dumps(obj) -> str:
    import json

    return json.dumps(obj)
