"""``rl.parquet``: one row per verified task, in veRL's layout (``verl.utils.dataset.RLHFDataset``)."""
from __future__ import annotations

from typing import Any, Callable

import pyarrow as pa

from ..records import TaskPackage
from .columns import PROMPT_MESSAGE, json_text, req

#: veRL's ``extra_info.interaction_kwargs``: the scripted customer (veRL interaction ``name``).
INTERACTION_KWARGS = pa.struct([
    pa.field("name", pa.string()),
    pa.field("task_id", pa.string()),
    pa.field("user_messages", pa.list_(pa.string())),
])


def rl_schema(tool_names: list[str] | tuple[str, ...] = ()) -> pa.Schema:
    """The ``rl.parquet`` schema in veRL's row layout (``verl.utils.dataset.RLHFDataset``).

    veRL reads ``data_source``, ``prompt`` (chat messages), ``ability``, ``reward_model``
    (``{"style": "rule", "ground_truth"}``) and ``extra_info`` (``split``, ``index``,
    ``tools_kwargs``, ``interaction_kwargs``) and picks the agent loop by ``agent_name``
    (``"tool_agent"``: veRL's ToolAgentLoop). ``extra_info.tools_kwargs`` maps every tool name to
    ``{"create_kwargs": {"task_id"}}`` (ToolAgentLoop calls ``tools_kwargs.get(name)["create_kwargs"]``);
    its struct fields are the sorted ``tool_names`` of the run, so every row carries every tool and
    pandas / ``datasets`` read it back as a dict (a Parquet map would come back as a list of pairs).
    """
    tk = pa.struct([pa.field(n, pa.struct([pa.field("create_kwargs", pa.struct([pa.field("task_id", pa.string())]))]))
                    for n in sorted(set(tool_names))]) if tool_names else pa.struct([pa.field("_none", pa.string())])
    return pa.schema(
        [
            req("data_source", pa.string()),  # "trajpipe/<domain>": selects the reward function
            pa.field("prompt", pa.list_(PROMPT_MESSAGE)),  # system (policy + tools) + first customer message
            req("ability", pa.string()),  # "tool_use/<domain>"
            pa.field("reward_model", pa.struct([pa.field("style", pa.string()), pa.field("ground_truth", pa.string())])),
            pa.field("extra_info", pa.struct([
                pa.field("split", pa.string()),
                pa.field("index", pa.int64()),
                pa.field("task_id", pa.string()),
                pa.field("blueprint_id", pa.string()),
                pa.field("need_tools_kwargs", pa.bool_()),
                pa.field("tools_kwargs", tk),
                pa.field("interaction_kwargs", INTERACTION_KWARGS),
            ])),
            req("agent_name", pa.string()),  # "tool_agent"
            # flat copies for filtering / joins (not read by veRL)
            req("task_id", pa.string()),
            req("blueprint_id", pa.string()),
            req("split", pa.string()),
            pa.field("tools", pa.string()),  # JSON list of OpenAI function-tool schemas (agent-visible)
            pa.field("skills", pa.list_(pa.string())),
            pa.field("expected_outcome", pa.string()),
        ]
    )


#: The schema without tools (an export writes :func:`rl_schema` of its run's tool names).
SCHEMA = rl_schema()
#: Columns a model sees (the hidden-information audit scans them: :mod:`pipeline.export.audit`).
MODEL_VISIBLE = ("prompt", "tools", "extra_info")


def default_system_prompt(task: TaskPackage) -> str:
    """The RL prompt's system content when the caller gives none: the domain policy."""
    return task.visible.policy


def ground_truth(task: TaskPackage) -> dict[str, Any]:
    """What the reward function needs to replay and verify a response: task id, domain, the
    sandbox's initial state, the expected final-state hash, the verifier spec, task kind, variant,
    expected outcome, the names of the task's tools, the (agent-visible) instruction and scripted
    customer turns, and the *length* of the reference solution (the verifier normalizes tool-call
    counts and token budgets by it).

    Deliberately *not* included: the reference solution itself and the generation notes (not
    needed to score, and a reward log that printed them would show the answer). Never
    model-visible: veRL passes ``reward_model.ground_truth`` only to the reward function.
    """
    return {
        "task_id": task.task_id,
        "blueprint_id": task.blueprint_id,
        "domain": task.domain,
        "initial_state": task.hidden.initial_state,
        "expected_state_hash": task.hidden.expected_state_hash,
        "verifier": task.hidden.verifier,
        "task_kind": task.task_kind,
        "variant": task.variant,
        "expected_outcome": task.expected_outcome,
        "tool_names": [tl.get("function", tl).get("name") for tl in task.visible.tools],
        "instruction": task.visible.instruction,
        "user_messages": list(task.visible.user_messages),
        "reference_calls": len(task.hidden.reference_solution),
    }


def rl_row(
    task: TaskPackage, split: str, system_prompt: Callable[[TaskPackage], str], index: int = 0,
    tool_names: list[str] | None = None,
) -> dict[str, Any]:
    """A ``rl.parquet`` row in veRL's layout (see :func:`rl_schema`).

    ``prompt`` = system (``system_prompt(task)``) + the customer's first message; the scripted
    later customer turns go to ``extra_info.interaction_kwargs.user_messages``;
    ``reward_model.ground_truth`` is the JSON of :func:`ground_truth`; ``tool_names`` (default:
    the task's tools) are the keys of ``extra_info.tools_kwargs``.
    """
    names = tool_names if tool_names is not None else [tl.get("function", tl).get("name") for tl in task.visible.tools]
    return {
        "data_source": f"trajpipe/{task.domain}",
        "prompt": [
            {"role": "system", "content": system_prompt(task)},
            {"role": "user", "content": task.visible.instruction},
        ],
        "ability": f"tool_use/{task.domain}",
        "reward_model": {"style": "rule", "ground_truth": json_text(ground_truth(task))},
        "extra_info": {
            "split": split,
            "index": index,
            "task_id": task.task_id,
            "blueprint_id": task.blueprint_id,
            "need_tools_kwargs": True,
            "tools_kwargs": {n: {"create_kwargs": {"task_id": task.task_id}} for n in sorted(set(names))}
            if names else {"_none": None},
            "interaction_kwargs": {"name": "trajpipe_customer", "task_id": task.task_id,
                                   "user_messages": list(task.visible.user_messages)},
        },
        "agent_name": "tool_agent",
        "task_id": task.task_id,
        "blueprint_id": task.blueprint_id,
        "split": split,
        "tools": json_text(task.visible.tools),
        "skills": list(task.skills),
        "expected_outcome": task.expected_outcome,
    }
