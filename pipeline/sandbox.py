"""A resettable, in-process environment over a domain's state and tools.

The sandbox owns a deep copy of a task's initial state; tool calls go through :meth:`Sandbox.call`,
which validates the arguments against the tool's JSON schema, runs the tool, and turns every
failure into an ``"Error: ..."`` tool result (the convention of the logs) plus a machine-readable
error code. The state hash (:func:`pipeline.records.stable_hash` of the state) is the verifier's
anchor, as in tau-bench's reward-by-database-hash.

Model output is untrusted (OWASP LLM Top 10, "LLM05: Improper Output Handling"): before a tool's
own schema, :func:`argument_guard` rejects arguments that are enormous (over
:data:`MAX_ARGUMENT_BYTES` of JSON, a string over :data:`MAX_STRING_CHARS`, nesting deeper than
:data:`MAX_ARGUMENT_DEPTH`), hold control characters or lone surrogates, or look like path
traversal or injected code (the patterns of :data:`UNSAFE_PATTERNS`, after OWASP's Path Traversal
and Command / SQL / code injection pages). Either way the call returns ``INVALID_ARGUMENTS`` and
the tool function is never called. Tools are plain functions over an in-memory state (no shell,
no files, no ``eval``), so this is defence in depth and a clean signal in the trajectory.
"""
from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable

import jsonschema

from pipeline.domains.base import ToolError
from pipeline.records import canonical_json, stable_hash

# error codes of a tool result
OK = None
UNKNOWN_TOOL = "UNKNOWN_TOOL"
INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
TOOL_ERROR = "TOOL_ERROR"          # business error raised by the tool (e.g. "user not found")
TOOL_CRASH = "TOOL_CRASH"          # unexpected exception inside the tool
TOOL_DISABLED = "TOOL_DISABLED"    # removed from this sandbox (task verification: tools needed?)
# injected by pipeline.faults (every injected fault's code starts with FAULT_; the agent sees only the text):
FAULT_TIMEOUT = "FAULT_TIMEOUT"        # the call timed out (not executed)
FAULT_TRANSIENT = "FAULT_TRANSIENT"    # temporary service error (not executed)
FAULT_WRONG_TYPE = "FAULT_WRONG_TYPE"  # an argument re-typed in transit, rejected by the validator (not executed)
# read tools only: the call ran, its result text came back damaged -> FAULT_MALFORMED, FAULT_TRUNCATED,
# FAULT_CORRUPT_RECORD (f"FAULT_{kind.upper()}")


#: Chat markup a tool result must not carry: Hermes tool tags and ChatML-style special tokens.
_MARKUP_RE = re.compile(r"<(/?(?:tool_call|tool_response)>|\|[A-Za-z_]+\|>)")


def neutralize_markup(text: str) -> str:
    """``text`` with every Hermes tag (``<tool_call>``, ``</tool_call>``, ``<tool_response>``,
    ``</tool_response>``) and ChatML-style special-token string (``<|im_end|>``) written with
    ``&lt;`` instead of ``<``, so it reads the same to a person but is no markup to a chat
    template, a tokenizer or :func:`pipeline.rewards.parse_response`. Text without them comes
    back unchanged. (Tool output is untrusted data in the prompt: OWASP LLM Top 10, "LLM01:
    Prompt Injection", indirect injection through tool results.)"""
    if "<" not in text:
        return text
    return _MARKUP_RE.sub(lambda m: "&lt;" + m.group(1), text)


@dataclass
class ToolResult:
    """Result of one call: ``content`` (text returned to the agent) and ``error_code`` (None if ok);
    ``fault`` names the injected fault kind (pipeline.faults), if any."""

    name: str
    arguments: dict[str, Any]
    content: str
    error_code: str | None = None
    writes: bool = False
    fault: str | None = None

    @property
    def ok(self) -> bool:
        return self.error_code is None


#: Limits of one call's arguments (the rollout grammar already caps a free string at 160 chars).
MAX_ARGUMENT_BYTES = 16 * 1024   # UTF-8 JSON of the whole arguments value
MAX_STRING_CHARS = 2048          # one string (value or key)
MAX_ARGUMENT_DEPTH = 8           # nesting of objects / arrays
MAX_ARGUMENT_NODES = 2000        # values in all

#: ``(name, regex)`` of string contents no tool argument has a reason to hold.
UNSAFE_PATTERNS: tuple[tuple[str, re.Pattern], ...] = (
    ("path traversal", re.compile(r"(?:^|[\\/])\.\.(?:[\\/]|$)|%2e%2e|%252e|\.\.%2f|%c0%ae", re.I)),
    ("absolute file path", re.compile(r"^(?:/(?:etc|bin|usr|var|tmp|root|home|proc|dev|sys)\b|~/|[A-Za-z]:\\)")),
    ("code", re.compile(r"__import__|__builtins__|__class__|\b(?:eval|exec|compile|getattr)\s*\(|"
                        r"\bos\.(?:system|popen|remove|unlink|exec\w*)\b|\bsubprocess\b|<script\b|javascript:",
                        re.I)),
    ("shell command", re.compile(r"\$\([^)]*\)|`[^`]*\b(?:rm|curl|wget|sh|bash|nc|cat)\b[^`]*`|"
                                 r"(?:;|&&|\|\|?)\s*(?:rm|curl|wget|sh|bash|nc|chmod|python\d?|perl|cat)\s", re.I)),
    ("SQL injection", re.compile(r"\b(?:drop|truncate)\s+(?:table|database)\b|\bunion\s+(?:all\s+)?select\b|"
                                 r"'\s*or\s+'?\d+'?\s*=\s*'?\d+|;\s*--", re.I)),
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _string_problem(s: str) -> str | None:
    if len(s) > MAX_STRING_CHARS:
        return f"string of {len(s)} characters (limit {MAX_STRING_CHARS})"
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return "lone UTF-16 surrogate (not valid Unicode)"
    if _CONTROL.search(s):
        return "control character"
    for name, rx in UNSAFE_PATTERNS:
        if rx.search(s):
            return f"looks like {name}"
    return None


def argument_guard(arguments: Any) -> str | None:
    """Why ``arguments`` (one tool call's, as parsed from model output) must not reach a tool, or
    None. Checks, without recursion: nesting depth, number of values, every string (value and
    key; see :data:`UNSAFE_PATTERNS`), then the UTF-8 JSON size. Returns ``"<path>: <reason>"``
    (path like ``flights/0/date``, ``(arguments)`` for the root)."""
    stack: list[tuple[Any, str, int]] = [(arguments, "", 0)]
    nodes = 0
    while stack:
        value, path, depth = stack.pop()
        nodes += 1
        where = path or "(arguments)"
        if nodes > MAX_ARGUMENT_NODES:
            return f"(arguments): more than {MAX_ARGUMENT_NODES} values"
        if depth > MAX_ARGUMENT_DEPTH:
            return f"{where}: nested deeper than {MAX_ARGUMENT_DEPTH} levels"
        if isinstance(value, str):
            why = _string_problem(value)
            if why:
                return f"{where}: {why}"
        elif isinstance(value, dict):
            for k, v in value.items():
                key = str(k)
                why = _string_problem(key)
                if why:
                    return f"{where}: key {why}"
                stack.append((v, f"{path}/{key}" if path else key, depth + 1))
        elif isinstance(value, list):
            stack.extend((v, f"{path}/{i}" if path else str(i), depth + 1) for i, v in enumerate(value))
        elif isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
            return f"{where}: not a finite number"
    size = len(json.dumps(arguments, ensure_ascii=False).encode("utf-8"))
    if size > MAX_ARGUMENT_BYTES:
        return f"(arguments): {size} bytes of JSON (limit {MAX_ARGUMENT_BYTES})"
    return None


@lru_cache(maxsize=256)
def _validator(schema_json: str) -> jsonschema.protocols.Validator:
    schema = json.loads(schema_json)
    return jsonschema.validators.validator_for(schema)(schema)


def validate_arguments(tool_schema: dict[str, Any], arguments: Any) -> str | None:
    """Validate ``arguments`` against :func:`argument_guard` (untrusted model output: size,
    nesting, path traversal, code), then an OpenAI function schema's ``parameters``.

    Returns None when valid, else a one-line error message (path: message)."""
    guard = argument_guard(arguments)
    if guard:
        return guard
    params = tool_schema.get("function", {}).get("parameters") or {"type": "object"}
    v = _validator(canonical_json(params))
    errs = sorted(v.iter_errors(arguments), key=lambda e: list(e.absolute_path))
    if not errs:
        return None
    e = errs[0]
    where = "/".join(str(x) for x in e.absolute_path) or "(arguments)"
    return f"{where}: {e.message}"


class Sandbox:
    """Resettable environment: ``Sandbox(domain, initial_state, disabled_tools=(), faults=None)``.

    ``domain`` is an object with ``tools: dict[str, Tool]`` (see pipeline.domains.base).
    ``call`` never raises for agent mistakes; it returns a :class:`ToolResult`. ``faults`` (a
    :class:`pipeline.faults.FaultInjector`) injects seeded faults into calls of known tools.
    """

    def __init__(self, domain: Any, initial_state: dict[str, Any], disabled_tools: Iterable[str] = (),
                 faults: Any = None):
        self.domain = domain
        self.faults = faults
        self._initial = copy.deepcopy(initial_state)
        self.disabled = set(disabled_tools)
        self.reset()

    def reset(self) -> None:
        """Restore the initial state and clear the call log."""
        self.state: dict[str, Any] = copy.deepcopy(self._initial)
        self.calls: list[ToolResult] = []

    def state_hash(self) -> str:
        """SHA-256 prefix of the canonical JSON of the current state."""
        return stable_hash(self.state)

    def call(self, name: str, arguments: Any) -> ToolResult:
        """Run tool ``name`` with ``arguments`` (a dict); returns the result, logs the call.

        The result's text has its chat markup neutralized (:func:`neutralize_markup`): a tool
        that echoes an agent-chosen value ("Error: flight <x> not found") cannot close its own
        ``<tool_response>`` block and smuggle a ``<tool_call>`` into what a reward parser reads."""
        res = self._call(name, arguments)
        res.content = neutralize_markup(res.content)
        return res

    def _call(self, name: str, arguments: Any) -> ToolResult:
        tool = self.domain.tools.get(name)
        if tool is None:
            res = ToolResult(name, arguments if isinstance(arguments, dict) else {},
                             f"Error: unknown tool {name!r}", UNKNOWN_TOOL)
        elif name in self.disabled:
            res = ToolResult(name, arguments, f"Error: tool {name!r} is not available", TOOL_DISABLED, tool.writes)
        else:
            fault = self.faults.draw(name, tool.writes, arguments) if self.faults is not None else None
            if fault in ("timeout", "transient"):  # not executed: state unchanged, a retry can succeed
                from pipeline.faults import TIMEOUT_MESSAGE, TRANSIENT_MESSAGE
                msg, code = ((TIMEOUT_MESSAGE, FAULT_TIMEOUT) if fault == "timeout" else
                             (TRANSIENT_MESSAGE, FAULT_TRANSIENT))
                res = ToolResult(name, arguments if isinstance(arguments, dict) else {}, msg.format(tool=name),
                                 code, tool.writes, fault)
                self.calls.append(res)
                return res
            if fault == "wrong_type":  # re-typed on the way; the real validator rejects it
                err = validate_arguments(tool.schema, self.faults.wrong_type_arguments(arguments))
                if err:
                    res = ToolResult(name, arguments, f"Error: invalid arguments: {err}", FAULT_WRONG_TYPE,
                                     tool.writes, fault)
                    self.calls.append(res)
                    return res
                self.faults.cancel_last()  # the schema accepts the re-typed value: no fault
                fault = None
            err = validate_arguments(tool.schema, arguments)
            if err:
                res = ToolResult(name, arguments if isinstance(arguments, dict) else {},
                                 f"Error: invalid arguments: {err}", INVALID_ARGUMENTS, tool.writes)
            else:
                before = copy.deepcopy(self.state) if tool.writes else None
                try:
                    out = tool.fn(self.state, **arguments)
                    res = ToolResult(name, arguments, out if isinstance(out, str) else canonical_json(out),
                                     None, tool.writes)
                    if fault and not tool.writes:  # malformed / truncated / corrupt_record result
                        res.content, res.fault = self.faults.corrupt(fault, res.content), fault
                        res.error_code = f"FAULT_{fault.upper()}"
                except ToolError as exc:
                    if before is not None:
                        self.state = before  # a failed write leaves no partial change
                    res = ToolResult(name, arguments, f"Error: {exc}", TOOL_ERROR, tool.writes)
                except Exception as exc:  # noqa: BLE001 - tool bugs must not kill an episode
                    if before is not None:
                        self.state = before
                    res = ToolResult(name, arguments, f"Error: {type(exc).__name__}: {exc}", TOOL_CRASH, tool.writes)
            if fault and res.fault is None:  # drawn, but the call failed before its result existed
                self.faults.cancel_last()
        self.calls.append(res)
        return res

    def run(self, calls: Iterable[dict[str, Any]]) -> list[ToolResult]:
        """Run a sequence of ``{"name", "arguments"}`` calls (e.g. a reference solution)."""
        return [self.call(c["name"], c.get("arguments", {})) for c in calls]


def state_diff(a: Any, b: Any, path: str = "", limit: int = 50) -> list[str]:
    """Paths where two JSON values differ, e.g. ``["reservations/ABC123/status: None -> 'cancelled'"]``.

    Used for verifier evidence; at most ``limit`` entries."""
    out: list[str] = []

    def rec(x: Any, y: Any, p: str) -> None:
        if len(out) >= limit:
            return
        if isinstance(x, dict) and isinstance(y, dict):
            for k in sorted(set(x) | set(y), key=str):
                rec(x.get(k), y.get(k), f"{p}/{k}" if p else str(k))
        elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            for i, (u, v) in enumerate(zip(x, y)):
                rec(u, v, f"{p}[{i}]")
        elif x != y:
            xs, ys = repr(x), repr(y)
            out.append(f"{p}: {xs[:80]} -> {ys[:80]}")

    rec(a, b, path)
    return out
