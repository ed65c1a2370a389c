"""Path checks: how the agent got to its final state, not only where it ended.

Each check returns violations ``{"code", "step", "detail", ...}`` where ``step`` is the 0-based
index into ``Trajectory.tool_calls`` of the offending call (``None`` for a message-level
finding, which carries ``"message"``: the index into ``Trajectory.messages``).

* ``TRAJ_WRITE_BEFORE_IDENTITY``: a successful state-changing call before any successful call
  of one of the domain's ``identity_tools`` (airline: ``get_user_details``; see
  ``pipeline/domains/airline/checks.py`` for what establishes identity there; none declared: no
  identification step).
* ``TRAJ_WRITE_WITHOUT_CONFIRMATION`` (only where :func:`confirmation_required`): a
  successful write with no affirmative customer message after the agent's last proposal and
  before the write. A *proposal* is any assistant message with text and no tool call; an
  affirmative is a customer message matching :data:`AFFIRMATIVE` and not :data:`NEGATIVE`. When
  the agent made no proposal before the write, an affirmative anywhere earlier counts (e.g.
  "Yes, please go ahead." in the opening request, which answers exactly what was asked).
* ``TRAJ_FORBIDDEN_ACTION``: a rule the domain's ``rule_violations`` reports (with its
  ``rule_id``; None: the domain has no rule checks).
* ``TRAJ_REPEATED_CALL``: a call identical (name and arguments) to an earlier one with no
  successful write in between (it cannot return anything new), or an identical write repeated;
  a retry after an injected fault (error code ``FAULT_*``) is not a repeat.
* ``TRAJ_FALSE_SUCCESS_CLAIM`` (checked in ``trajectory.py``): the last assistant message claims
  success (:data:`CLAIM`, not negated) while the outcome check failed, or the task expected a
  refusal.

The domain's members (``write_tools``, ``identity_tools``, ``confirmation_required``,
``rule_violations``) are those of the contract, :class:`pipeline.domains.base.Domain`.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pipeline.records import canonical_json

AFFIRMATIVE = re.compile(r"\b(yes|yeah|yep|yup|confirm(ed)?|go ahead|proceed|please do|ok(ay)?|"
                         r"sounds good|that'?s (right|correct)|(?<!make )sure)\b", re.I)
NEGATIVE = re.compile(r"\b(no|not|don'?t|do not|never|cancel that|stop|wait)\b", re.I)
#: Success words in a final agent message (a claim that the request was carried out).
CLAIM = re.compile(r"\b(done|cancell?ed|refunded|booked|updated|changed|added|upgraded|corrected|"
                   r"completed|successful(ly)?|has been|have been|is now|are now|all set|sent|issued)\b", re.I)
NEGATED_CLAIM = re.compile(r"\b(not|n't|cannot|unable|unfortunately|sorry|could not|can ?not|won'?t|failed)\b",
                           re.I)
#: Refusal language in a final agent message (refusal tasks).
REFUSAL = re.compile(r"\b(cannot|can'?t|can not|unable|not (be )?(able|allowed|eligible|possible|permitted)|"
                     r"isn'?t (allowed|eligible|possible)|not eligible|sorry|unfortunately|policy does not|"
                     r"i'?m afraid)\b", re.I)
FORMAT_NOTE_PREFIX = "[format error]"

def confirmation_required(domain: Any) -> bool:
    """Does the domain's policy require explicit confirmation before a write? The domain's
    ``confirmation_required`` when it is not None, else True when one of its rules has an id ending
    in ``.general.confirm`` (airline, retail and library policies all have one)."""
    if domain.confirmation_required is not None:
        return bool(domain.confirmation_required)
    return any(r.rule_id.endswith(".general.confirm") for r in domain.rules)


@dataclass
class Call:
    """An executed (parsed, named) tool call: its index in ``Trajectory.tool_calls``, the index
    of the assistant message that made it (None when the messages do not show it), and the
    sandbox error code (None = success)."""

    index: int
    name: str
    arguments: dict[str, Any]
    error: str | None
    message: int | None = None

    def key(self) -> str:
        """Identity of the call for repeat detection: name + canonical JSON of the arguments."""
        return self.name + canonical_json(self.arguments)


def executed_calls(tool_calls: list[dict[str, Any]], messages: list[dict[str, Any]]) -> list[Call]:
    """The parsed calls of a trajectory in order, each mapped to the assistant message that
    carries it (the k-th parsed call is the k-th ``tool_calls`` entry of the assistant
    messages). Unparseable entries (``valid_json`` false or no name) are skipped."""
    positions = [i for i, m in enumerate(messages) if m.get("role") == "assistant"
                 for _ in (m.get("tool_calls") or [])]
    out: list[Call] = []
    k = 0
    for i, tc in enumerate(tool_calls):
        if not tc.get("valid_json") or not tc.get("name"):
            continue
        args = tc.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except json.JSONDecodeError:
                args = {}
        out.append(Call(i, tc["name"], args if isinstance(args, dict) else {}, tc.get("error"),
                        positions[k] if k < len(positions) else None))
        k += 1
    return out


def _text(m: dict[str, Any]) -> str:
    c = m.get("content")
    return c if isinstance(c, str) else ""


def is_affirmative(text: str) -> bool:
    """True for a customer message with a sentence that clearly says yes and does not also say
    no / wait in that sentence (so "it should be May 3, not May 4. Yes, go ahead." counts)."""
    for sentence in re.split(r"(?<=[.!?;])\s+", text):
        if AFFIRMATIVE.search(sentence) and not NEGATIVE.search(AFFIRMATIVE.sub("", sentence)):
            return True
    return False


def last_assistant_text(messages: list[dict[str, Any]]) -> tuple[int | None, str]:
    """Index and text of the last assistant message with text content (None, "" if none)."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if m.get("role") == "assistant" and _text(m).strip() and not m.get("tool_calls"):
            return i, _text(m)
    return None, ""


def claims_success(text: str) -> bool:
    """True when ``text`` says the request was carried out (and does not negate it)."""
    return bool(CLAIM.search(text)) and not NEGATED_CLAIM.search(text)


def states_refusal(text: str) -> bool:
    """True when ``text`` refuses (cannot / not allowed / sorry ...)."""
    return bool(REFUSAL.search(text))


def path_violations(calls: list[Call], messages: list[dict[str, Any]], domain: Any,
                    initial_state: dict[str, Any], final_state: dict[str, Any] | None = None,
                    instruction: str = "") -> list[dict[str, Any]]:
    """Identity, confirmation, forbidden-action and repeated-call violations (see the module
    docstring) of the executed ``calls``. ``messages`` are the episode's messages; when they hold
    no customer message, the conversation is taken to be the task's opening ``instruction``
    followed by the calls (records that keep only the calls)."""
    write_tools = set(domain.write_tools)
    identity_tools = set(domain.identity_tools)
    confirm = confirmation_required(domain)
    msgs = list(messages)
    if not any(m.get("role") == "user" for m in msgs):
        msgs = [{"role": "user", "content": instruction}]
        calls = [Call(c.index, c.name, c.arguments, c.error, 1) for c in calls]
    out: list[dict[str, Any]] = []
    identified = not identity_tools
    seen: dict[str, int] = {}
    for c in calls:
        ok = c.error is None
        is_write = c.name in write_tools
        if ok and c.name in identity_tools:
            identified = True
        if ok and is_write and not identified:
            out.append({"code": "TRAJ_WRITE_BEFORE_IDENTITY", "step": c.index,
                        "detail": f"{c.name} before any of {sorted(identity_tools)} succeeded"})
        if ok and is_write and confirm and not _confirmed(msgs, c.message):
            out.append({"code": "TRAJ_WRITE_WITHOUT_CONFIRMATION", "step": c.index,
                        "detail": f"{c.name} without a customer 'yes' after the last proposal"})
        k = c.key()
        if k in seen:
            out.append({"code": "TRAJ_REPEATED_CALL", "step": c.index,
                        "detail": f"{c.name} repeats call {seen[k]} with identical arguments"})
        if ok and is_write:
            # after a successful write a read may return something new; identical writes stay repeats
            seen = {kk: i for kk, i in seen.items() if kk.split("{", 1)[0] in write_tools}
        if c.error is None or not str(c.error).startswith("FAULT_"):
            seen[k] = c.index  # a retry after an injected fault (timeout, transient) is no repeat
    by_pos = [c.index for c in calls]
    plain = [{"name": c.name, "arguments": c.arguments, "error": c.error} for c in calls]
    for v in domain.rule_violations(initial_state, plain, final_state) or []:  # None: no rule checks
        pos = v.get("step")
        out.append({"code": "TRAJ_FORBIDDEN_ACTION",
                    "step": by_pos[pos] if isinstance(pos, int) and 0 <= pos < len(by_pos) else None,
                    "rule_id": v.get("rule_id"), "detail": v.get("detail", "")})
    out.sort(key=lambda v: (v["step"] if v["step"] is not None else 1 << 30))
    return out


def _confirmed(messages: list[dict[str, Any]], pos: int | None) -> bool:
    """Is there an affirmative customer message after the last proposal before message ``pos``?

    A proposal is an agent text message without tool calls. A turn that failed to be a tool call
    (the harness answered it with a format note) proposes only what it says outside its
    ``<tool_call>`` blocks: "<tool_call>{broken" alone is no new proposal, so the customer's yes
    before it still counts (the reward's replay, :func:`pipeline.rewards.replay`, records such a
    block as an error only)."""
    end = len(messages) if pos is None else pos
    last_proposal = -1
    for i in range(end):
        m = messages[i]
        if m.get("role") == "assistant" and _text(m).strip() and not m.get("tool_calls"):
            nxt = messages[i + 1] if i + 1 < len(messages) else {}
            if nxt.get("role") == "user" and _text(nxt).startswith(FORMAT_NOTE_PREFIX):
                from pipeline.rollout.prompting import parse_tool_calls

                if not parse_tool_calls(_text(m)).text:
                    continue
            last_proposal = i
    for i in range(last_proposal + 1, end):
        m = messages[i]
        if m.get("role") == "user" and not _text(m).startswith(FORMAT_NOTE_PREFIX) and is_affirmative(_text(m)):
            return True
    return False
