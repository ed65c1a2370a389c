"""Fault injection in the sandbox, for recovery demonstrations.

A :class:`FaultInjector` is attached to one episode's :class:`~pipeline.sandbox.Sandbox`
(``Sandbox(..., faults=injector)``). Before each tool call it draws, with probability
``rate``, whether to inject a fault and which kind; the draw is a pure function of
``(run seed, episode seed, call index)``, so a rollout is reproducible from its seeds.

Kinds (:data:`FAULT_KINDS`):

* ``timeout``: the call is not executed; ``Error: TimeoutError: ...``. State unchanged.
* ``transient``: the call is not executed; ``Error: 503 Service Unavailable ...``. State unchanged.
* ``wrong_type``: one argument is re-typed on the way to the tool (a flaky client serializer: a
  string id sent as a number, a number as a string) and the real JSON-Schema validator rejects it
  with its real message (``Error: invalid arguments: reservation_id: 123 is not of type 'string'``).
  State unchanged.
* ``malformed``: the call runs; its result text comes back as non-JSON (single-quoted, unclosed).
* ``truncated``: the call runs; its result text is cut to its first 40%.
* ``corrupt_record``: the call runs; one field of the returned JSON record is garbled.

Every injected fault's tool-call error code starts with ``FAULT_`` (``FAULT_TIMEOUT``,
``FAULT_TRANSIENT``, ``FAULT_WRONG_TYPE``, ``FAULT_MALFORMED``, ``FAULT_TRUNCATED``,
``FAULT_CORRUPT_RECORD``), so the verifier can tell a retry after a fault from a needless repeat;
the agent only ever sees the result text.

The last three only hit read tools: a write's result is never corrupted, so a fault can never
make the agent repeat a write that already happened, and the final-state check stays valid.
After a fault on a tool, the next call of that tool is never faulted: a retry succeeds.

Kinds seen in the logs come first (:func:`ordered_kinds`): a blueprint's ``failure_modes``
(``pipeline.blueprints``) map to fault kinds by :data:`FAILURE_MODE_KINDS`; an episode's
faults use those kinds (and the tools they name) before the other configured kinds.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any, Iterable

from pipeline.records import stable_hash

FAULT_KINDS = ("timeout", "transient", "malformed", "truncated", "corrupt_record", "wrong_type")
CONTENT_KINDS = frozenset({"malformed", "truncated", "corrupt_record"})  # read tools only

# failure mode of the logs (pipeline.blueprints) -> fault kinds that reproduce its situation
FAILURE_MODE_KINDS: dict[str, tuple[str, ...]] = {
    "write_call_error": ("transient", "wrong_type"),  # the write call failed in the log
    "wrong_arguments": ("wrong_type",),               # right tool, wrong argument values
    "missing_write": ("timeout",),                    # the write never happened
    "extra_write": ("truncated", "malformed"),        # repeated writes: results the agent could not read
    "write_not_allowed": ("corrupt_record",),         # acted on a misread record
}

TIMEOUT_MESSAGE = "Error: TimeoutError: the {tool} service did not answer within 30 s; no change was made"
TRANSIENT_MESSAGE = "Error: 503 Service Unavailable: {tool} is temporarily unavailable; no change was made, try again"


def parse_kinds(text: str | Iterable[str] | None) -> tuple[str, ...]:
    """``"timeout,transient"`` (or a list) -> a tuple of kinds; empty/None -> all kinds.

    Raises ValueError naming the unknown kind and the valid ones."""
    if text is None:
        return FAULT_KINDS
    items = [k.strip() for k in (text.split(",") if isinstance(text, str) else text) if k and k.strip()]
    if not items:
        return FAULT_KINDS
    bad = [k for k in items if k not in FAULT_KINDS]
    if bad:
        raise ValueError(f"unknown fault kind(s) {bad}; choose from {', '.join(FAULT_KINDS)}")
    return tuple(dict.fromkeys(items))


@dataclass
class FaultConfig:
    """``rate``: probability that a tool call gets a fault (0 disables injection, must be in
    [0, 1]); ``kinds``: allowed kinds; ``seed``: run seed. Raises ValueError on bad values."""

    rate: float = 0.0
    kinds: tuple[str, ...] = FAULT_KINDS
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= float(self.rate) <= 1.0:
            raise ValueError(f"fault rate must be in [0, 1], got {self.rate}")
        self.kinds = parse_kinds(self.kinds)

    @property
    def enabled(self) -> bool:
        return self.rate > 0 and bool(self.kinds)


def ordered_kinds(kinds: Iterable[str], failure_modes: list[dict[str, Any]] | None = None,
                  tool: str | None = None) -> list[str]:
    """``kinds`` reordered so that those mapped from ``failure_modes`` come first: first the modes
    naming ``tool`` (``mode["tool"]`` may be a comma-separated list), then the others, each in the
    order given (the blueprint lists them most frequent first); then the remaining kinds."""
    kinds = list(kinds)
    first: list[str] = []
    modes = list(failure_modes or [])
    on_tool = [m for m in modes if tool and tool in str(m.get("tool", "")).split(",")]
    for m in on_tool + [m for m in modes if m not in on_tool]:
        for k in FAILURE_MODE_KINDS.get(str(m.get("mode")), ()):
            if k in kinds and k not in first:
                first.append(k)
    return first + [k for k in kinds if k not in first]


def _retyped(value: Any) -> Any:
    """A value of another JSON type carrying the same information."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        digits = "".join(ch for ch in value if ch.isdigit())
        return int(digits) if digits else [value]
    if isinstance(value, list):
        return value[0] if value else ""
    if isinstance(value, dict):
        return json.dumps(value)
    return "null"


@dataclass
class FaultInjector:
    """Per-episode injector. ``step`` is set by the harness to the agent turn before tool calls;
    ``log`` collects ``{"step", "tool", "kind"}`` per injected fault (Trajectory.faults)."""

    config: FaultConfig
    episode_seed: int = 0
    failure_modes: list[dict[str, Any]] = field(default_factory=list)
    step: int = 0
    log: list[dict[str, Any]] = field(default_factory=list)
    _n_calls: int = 0
    _last_faulted: dict[str, bool] = field(default_factory=dict)

    def _rng(self) -> random.Random:
        return random.Random(int(stable_hash([self.config.seed, self.episode_seed, self._n_calls], 12), 16))

    def draw(self, tool: str, writes: bool, arguments: Any) -> str | None:
        """The fault kind for this call (None: no fault). Advances the call counter."""
        rng = self._rng()
        self._n_calls += 1
        if not self.config.enabled or self._last_faulted.get(tool):
            self._last_faulted[tool] = False
            return None
        if rng.random() >= self.config.rate:
            self._last_faulted[tool] = False
            return None
        ok = [k for k in ordered_kinds(self.config.kinds, self.failure_modes, tool)
              if not (writes and k in CONTENT_KINDS)
              and not (k == "wrong_type" and not (isinstance(arguments, dict) and arguments))]
        if not ok:
            return None
        used = {f["kind"] for f in self.log}
        kind = next((k for k in ok if k not in used), None) or ok[rng.randrange(len(ok))]
        self._last_faulted[tool] = True
        self.log.append({"step": self.step, "tool": tool, "kind": kind})
        return kind

    def cancel_last(self) -> None:
        """Withdraw the last drawn fault (the sandbox could not apply it, e.g. the call failed
        validation before a result existed to corrupt)."""
        if self.log:
            f = self.log.pop()
            self._last_faulted[f["tool"]] = False

    def wrong_type_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """``arguments`` with its first argument (sorted by name) re-typed (see :func:`_retyped`)."""
        key = sorted(arguments)[0]
        return {**arguments, key: _retyped(arguments[key])}

    def corrupt(self, kind: str, content: str) -> str:
        """The result text as a ``malformed`` / ``truncated`` / ``corrupt_record`` fault returns it."""
        if kind == "truncated":
            return content[:max(1, int(len(content) * 0.4))]
        if kind == "malformed":
            return content.replace('"', "'").rstrip("}]") or "<html>502 Bad Gateway</html>"
        if kind == "corrupt_record":
            try:
                obj = json.loads(content)
            except (json.JSONDecodeError, TypeError):
                return content[: len(content) // 2] + "\ufffd\ufffd" + content[len(content) // 2 + 2:]
            if isinstance(obj, dict) and obj:
                key = sorted(obj)[self._rng().randrange(len(obj))]
                obj[key] = "\ufffd#CORRUPT#\ufffd"
                return json.dumps(obj, ensure_ascii=False)
            if isinstance(obj, list) and obj:
                obj[0] = "\ufffd#CORRUPT#\ufffd"
                return json.dumps(obj, ensure_ascii=False)
            return "\ufffd#CORRUPT#\ufffd"
        raise ValueError(f"not a content fault kind: {kind!r}")


def tag_recovery(trajectories: Iterable[Any], verdicts: Iterable[Any]) -> int:
    """Set ``Trajectory.recovery`` for recovery demonstrations; returns how many were tagged.

    A trajectory is a recovery demonstration when it met at least one injected fault
    (``faults`` non-empty), made a successful (unfaulted, error-free) tool call after its first
    fault (a retry or a work-around), and its verdict passed. Trajectories without a verdict are
    left unchanged."""
    by_id = {v.trajectory_id: v for v in verdicts}
    n = 0
    for t in trajectories:
        v = by_id.get(t.trajectory_id)
        if v is None:
            continue
        first = min((f["step"] for f in t.faults), default=None)
        recovered = first is not None and any(
            tc.get("step", -1) > first and tc.get("error") is None and not tc.get("fault") and tc.get("name")
            for tc in t.tool_calls)
        t.recovery = bool(recovered and v.passed)
        n += t.recovery
    return n
