"""User simulators: the customer on the other side of an episode.

A simulator holds only the task's customer-side information, taken from the agent-visible part
of a task package (never the hidden part): the goal (``visible.instruction``, the customer's
opening message in their own words) and the facts and answers they may give later
(``visible.user_messages``). It answers the agent turn by turn, and ends the episode with the
stop signal :data:`STOP` (tau-bench's ``###STOP###`` convention, Yao et al. 2024).

Two kinds, selected per run (``--user-sim``):

* ``scripted`` (:class:`ScriptedUser`): deterministic; replays ``user_messages`` in order after
  each plain-text agent reply and stops when the script is exhausted.
* ``model`` (:class:`ModelUser`): a backend plays the customer from a role prompt built by
  :func:`user_system_prompt`. Its generation requests go into the same batched ``generate`` call
  as the agents' (the harness collects them), so the engine sees one batch per turn.

The simulator sees what a customer would see: the agent's plain-text replies (never tool calls,
tool results, the policy or the tools).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeline.records import TaskPackage

STOP = "###STOP###"
HARNESS_NOTE_MARK = "[format error]"  # harness messages to the agent; the customer never sees them
USER_SIMULATORS = ("scripted", "model")

USER_SYSTEM_TEMPLATE = """You are a customer contacting customer service. Play the customer only.

Your goal, in your own words:
{instruction}

Facts you know and may give when the agent asks for them:
{facts}

Rules:
- Write one short customer message at a time, in plain text. Never call tools, never act as the agent.
- Only reveal what the agent asks for; do not invent ids, names or numbers you were not given.
- You do not know the company's internal data or rules.
- When your request is done, or the agent cannot help, reply with exactly {stop}"""


def user_system_prompt(task: TaskPackage) -> str:
    """Role prompt for a model-played customer from the task's visible customer side only.

    ``visible.instruction`` is the goal; each ``visible.user_messages`` entry is a fact or
    answer the customer may give. Nothing from ``task.hidden`` is read."""
    vis = task.visible
    facts = "\n".join(f"- {m}" for m in vis.user_messages) or "- (nothing beyond your goal)"
    return USER_SYSTEM_TEMPLATE.format(instruction=vis.instruction.strip(), facts=facts, stop=STOP)


@dataclass
class UserTurn:
    """A customer reply: ``text`` (None when the customer stops without a message) and ``stop``."""

    text: str | None
    stop: bool = False


@dataclass
class ScriptedUser:
    """Deterministic customer: replays ``task.visible.user_messages`` after each agent text reply;
    stops (``UserTurn(None, stop=True)``) when none are left."""

    task: TaskPackage
    kind: str = "scripted"
    needs_model: bool = False
    queue: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.queue = list(self.task.visible.user_messages)

    def opening(self) -> str:
        return self.task.visible.instruction

    def reply(self, agent_text: str) -> UserTurn:
        """The next scripted message, or a stop when the script is exhausted."""
        if self.queue:
            return UserTurn(self.queue.pop(0))
        return UserTurn(None, stop=True)


@dataclass
class ModelUser:
    """Model-played customer. The conversation is seen from the customer's side: the agent's
    plain-text replies become ``user`` messages, the customer's own earlier messages
    ``assistant`` messages. A reply containing :data:`STOP` ends the episode (text before it, if
    any, is kept as the customer's last message); an empty reply counts as a stop too."""

    task: TaskPackage
    kind: str = "model"
    needs_model: bool = True
    system: str = ""

    def __post_init__(self) -> None:
        self.system = user_system_prompt(self.task)

    def opening(self) -> str:
        return self.task.visible.instruction

    def prompt(self, messages: list[dict[str, Any]]) -> list[dict[str, str]]:
        """Chat prompt for the customer's next message, from the episode's OpenAI messages:
        only the customer's own turns and the agent's text turns (no tool calls, tool results,
        harness notes or system prompt)."""
        out = [{"role": "system", "content": self.system}]
        for m in messages:
            if m.get("role") == "user" and not (m.get("content") or "").startswith(HARNESS_NOTE_MARK):
                out.append({"role": "assistant", "content": m.get("content") or ""})
            elif m.get("role") == "assistant" and not m.get("tool_calls") and m.get("content"):
                out.append({"role": "user", "content": m["content"]})
        return out

    def parse(self, text: str) -> UserTurn:
        """Read a generated customer reply (stop signal, surrounding whitespace)."""
        if STOP in text:
            before = text.split(STOP, 1)[0].strip()
            return UserTurn(before or None, stop=True)
        text = text.strip()
        return UserTurn(text, stop=not text)


def make_user(kind: str, task: TaskPackage) -> ScriptedUser | ModelUser:
    """A simulator of ``kind`` (``scripted`` | ``model``) for ``task``; ValueError otherwise."""
    if kind == "scripted":
        return ScriptedUser(task)
    if kind == "model":
        return ModelUser(task)
    raise ValueError(f"unknown user simulator {kind!r}; choose one of {', '.join(USER_SIMULATORS)}")
