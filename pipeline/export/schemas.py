"""Explicit pyarrow schemas of every exported Parquet file.

Schemas are fixed up front (never inferred from rows) so an empty input still writes a valid
file with the right columns and types, and so every run writes the same types.

Nested types are real Arrow types (``list<struct<...>>``), which DuckDB, pyarrow and Hugging
Face ``datasets`` read natively. Free-form JSON objects whose shape differs row to row (tool
schemas, hidden task parts, verifier specs, sandbox state) are stored as JSON strings; tool-call
``arguments`` inside messages use the JSON type (:data:`ARGUMENTS_TYPE`), so ``datasets`` and chat
templates get objects.
"""
from __future__ import annotations

import pyarrow as pa

#: The type of a tool call's ``arguments``: Arrow's canonical JSON extension type
#: (``arrow.json``, pyarrow >= 19), stored in Parquet as a string column with the JSON logical
#: type (Parquet format spec, LogicalTypes.md "JSON"). Every tool's arguments fit one column (a
#: struct of all argument names would fill absent names with null, a map would lose value types),
#: and readers differ only in how they hand it out: Hugging Face ``datasets`` (its ``Json``
#: feature, huggingface/datasets#8027) and DuckDB give the object, which is what model chat
#: templates expect (TRL's Qwen2.5 template applies ``| tojson``, Qwen3.5's iterates ``| items``);
#: pyarrow ``to_pylist`` and pandas give the same JSON text as before (the OpenAI wire form).
#: With an older pyarrow the column is a plain string.
ARGUMENTS_TYPE = pa.json_() if hasattr(pa, "json_") else pa.string()

#: ``{"id", "type", "function": {"name", "arguments"}}``; ``arguments`` holds a JSON object
#: (:data:`ARGUMENTS_TYPE`).
TOOL_CALL = pa.struct(
    [
        pa.field("id", pa.string()),
        pa.field("type", pa.string()),
        pa.field(
            "function",
            pa.struct([pa.field("name", pa.string()), pa.field("arguments", ARGUMENTS_TYPE)]),
        ),
    ]
)


def storage_type(typ: pa.DataType) -> pa.DataType:
    """``typ`` with every extension type (the JSON ``arguments``) replaced by its storage type,
    recursively through lists and structs: the type ``pa.Table.from_pylist`` can build from
    Python values (it cannot build extension arrays; cast the result back to ``typ``)."""
    if isinstance(typ, pa.BaseExtensionType):
        return storage_type(typ.storage_type)
    if pa.types.is_list(typ) or pa.types.is_large_list(typ):
        f = typ.value_field
        inner = pa.field(f.name, storage_type(f.type), f.nullable)
        return pa.large_list(inner) if pa.types.is_large_list(typ) else pa.list_(inner)
    if pa.types.is_struct(typ):
        return pa.struct([pa.field(f.name, storage_type(f.type), f.nullable, f.metadata) for f in typ])
    return typ


def storage_schema(schema: pa.Schema) -> pa.Schema:
    """``schema`` with :func:`storage_type` applied to every field (metadata kept)."""
    return pa.schema([pa.field(f.name, storage_type(f.type), f.nullable, f.metadata) for f in schema],
                     metadata=schema.metadata)

#: One OpenAI chat message. Absent keys are null (``tool_calls`` is null, not ``[]``, when a
#: message has none).
MESSAGE = pa.struct(
    [
        pa.field("role", pa.string()),
        pa.field("content", pa.string()),
        pa.field("reasoning_content", pa.string()),
        pa.field("tool_calls", pa.list_(TOOL_CALL)),
        pa.field("tool_call_id", pa.string()),
        pa.field("name", pa.string()),
    ]
)

#: A prompt message (system or user): only role and content.
PROMPT_MESSAGE = pa.struct([pa.field("role", pa.string()), pa.field("content", pa.string())])

POLICY_RULE = pa.struct([pa.field("rule_id", pa.string()), pa.field("text", pa.string())])

#: The verifier's raw reward components (``Verdict.reward_components``, see docs/rewards.md); a
#: component the verifier did not report is null (``answer``: only answer tasks, routed to the
#: answer matcher, report it).
REWARD_COMPONENT_NAMES = ("outcome", "format_valid", "violations", "tool_calls", "length", "answer")
REWARD_COMPONENTS = pa.struct([pa.field(n, pa.float64()) for n in REWARD_COMPONENT_NAMES])


def _req(name: str, typ: pa.DataType) -> pa.Field:
    return pa.field(name, typ, nullable=False)


SFT = pa.schema(
    [
        _req("trajectory_id", pa.string()),
        _req("task_id", pa.string()),
        _req("blueprint_id", pa.string()),
        _req("split", pa.string()),
        pa.field("messages", pa.list_(MESSAGE)),
        pa.field("tools", pa.string()),  # JSON list of OpenAI function-tool schemas
        pa.field("loss_mask", pa.list_(pa.bool_())),  # aligned with messages: assistant -> True
        pa.field("model", pa.string()),
        pa.field("backend", pa.string()),
        pa.field("sample_index", pa.int64()),
        pa.field("finish_reason", pa.string()),
        pa.field("n_turns", pa.int64()),
        pa.field("reward", pa.float64()),
        pa.field("reward_components", REWARD_COMPONENTS),
        pa.field("recovery", pa.bool_()),  # met an injected fault, recovered and passed
        pa.field("skills", pa.list_(pa.string())),  # the task's skill ids (pipeline.skills)
        pa.field("task_kind", pa.string()),
        pa.field("variant", pa.string()),
        # help the teacher had during generation only (pipeline.rollout.hints): none | plan | example | guided
        pa.field("hint_mode", pa.string()),
    ]
)

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
            _req("data_source", pa.string()),  # "trajpipe/<domain>": selects the reward function
            pa.field("prompt", pa.list_(PROMPT_MESSAGE)),  # system (policy + tools) + first customer message
            _req("ability", pa.string()),  # "tool_use/<domain>"
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
            _req("agent_name", pa.string()),  # "tool_agent"
            # flat copies for filtering / joins (not read by veRL)
            _req("task_id", pa.string()),
            _req("blueprint_id", pa.string()),
            _req("split", pa.string()),
            pa.field("tools", pa.string()),  # JSON list of OpenAI function-tool schemas (agent-visible)
            pa.field("skills", pa.list_(pa.string())),
            pa.field("expected_outcome", pa.string()),
        ]
    )


RL = rl_schema()

REJECTS = pa.schema(
    [
        _req("kind", pa.string()),  # "trajectory" | "task"
        _req("id", pa.string()),
        pa.field("task_id", pa.string()),
        pa.field("blueprint_id", pa.string()),
        _req("stage", pa.string()),
        _req("reason_code", pa.string()),
        pa.field("detail", pa.string()),
        pa.field("messages", pa.string()),  # JSON of the trajectory's messages; null for tasks
    ]
)

TASKS = pa.schema(
    [
        _req("task_id", pa.string()),
        _req("blueprint_id", pa.string()),
        pa.field("domain", pa.string()),
        pa.field("seed", pa.int64()),
        pa.field("instruction", pa.string()),
        pa.field("policy", pa.string()),
        pa.field("user_messages", pa.list_(pa.string())),
        pa.field("tools", pa.string()),  # JSON
        pa.field("hidden", pa.string()),  # JSON of the whole hidden part
        pa.field("task_verified", pa.bool_()),  # null: no task verdict given
        pa.field("task_reason_codes", pa.list_(pa.string())),
        pa.field("split", pa.string()),
        pa.field("task_kind", pa.string()),
        pa.field("variant", pa.string()),
        pa.field("expected_outcome", pa.string()),
        pa.field("skills", pa.list_(pa.string())),
    ]
)

BLUEPRINTS = pa.schema(
    [
        _req("blueprint_id", pa.string()),
        pa.field("domain", pa.string()),
        pa.field("intent", pa.string()),
        pa.field("action_signature", pa.list_(pa.string())),
        pa.field("required_tools", pa.list_(pa.string())),
        pa.field("read_tools", pa.list_(pa.string())),
        pa.field("initial_state_requirements", pa.string()),  # JSON
        pa.field("business_constraints", pa.list_(POLICY_RULE)),
        pa.field("success_condition", pa.string()),
        pa.field("failure_modes", pa.string()),  # JSON
        pa.field("source_log_ids", pa.list_(pa.string())),
        pa.field("n_logs", pa.int64()),
        pa.field("n_success", pa.int64()),
        pa.field("example_intents", pa.list_(pa.string())),
        pa.field("task_kind", pa.string()),  # the domain generator it maps to; null: none
        pa.field("skills", pa.list_(pa.string())),
        pa.field("rule_variants", pa.list_(pa.string())),  # rule ids agents broke -> synthesized variants
        pa.field("cluster", pa.string()),  # JSON: merged intents / action signatures and their sizes
        pa.field("split", pa.string()),
    ]
)

GROUPS = pa.schema(
    [
        _req("task_id", pa.string()),
        pa.field("blueprint_id", pa.string()),
        pa.field("split", pa.string()),
        pa.field("k", pa.int64()),  # rollouts
        pa.field("passes", pa.int64()),
        pa.field("pass_rate", pa.float64()),
        pa.field("kept", pa.int64()),  # selected by rejection sampling (<= cap)
        pa.field("exported", pa.int64()),  # rows of this task in sft.parquet (after dedupe)
        pa.field("pass_at_1", pa.float64()),  # unbiased estimate (Chen et al. 2021) = passes / k
        pa.field("pass_at_k", pa.float64()),  # unbiased pass@k with k = rollouts (1.0 iff any pass)
        pa.field("reward_mean", pa.float64()),  # over the group's verdicts (Verdict.reward)
        pa.field("reward_std", pa.float64()),  # population std (ddof=0)
        pa.field("zero_variance", pa.bool_()),  # all pass or all fail: no GRPO advantage signal
        pa.field("reward_components_mean", REWARD_COMPONENTS),
        pa.field("skills", pa.list_(pa.string())),
        # k .. reward_components_mean, kept and exported count the task's *unhelped* rollouts only
        # (hint_mode none: the RL-relevant numbers); its helped rollouts are counted here:
        pa.field("hint_mode", pa.string()),  # mode of the helped rollouts ("none": the task had none)
        pa.field("k_helped", pa.int64()),
        pa.field("passes_helped", pa.int64()),
        pa.field("pass_rate_helped", pa.float64()),  # null without helped rollouts
        pa.field("kept_helped", pa.int64()),
        pa.field("exported_helped", pa.int64()),  # rows of this task in sft.parquet from helped rollouts
    ]
)

DPO = pa.schema(
    [
        _req("pair_id", pa.string()),
        _req("task_id", pa.string()),
        _req("blueprint_id", pa.string()),
        _req("split", pa.string()),
        pa.field("prompt", pa.list_(MESSAGE)),  # shared prefix: system + first customer message
        pa.field("chosen", pa.list_(MESSAGE)),  # the verified trajectory's continuation
        pa.field("rejected", pa.list_(MESSAGE)),  # the failed trajectory's continuation
        pa.field("tools", pa.string()),  # JSON
        pa.field("chosen_trajectory_id", pa.string()),
        pa.field("rejected_trajectory_id", pa.string()),
        pa.field("rejected_reason_code", pa.string()),  # first reason code of the failed verdict
        pa.field("chosen_reward", pa.float64()),
        pa.field("rejected_reward", pa.float64()),
        pa.field("chosen_hint_mode", pa.string()),  # help each rollout's teacher had (generation only)
        pa.field("rejected_hint_mode", pa.string()),
    ]
)

STEPS = pa.schema(
    [
        _req("trajectory_id", pa.string()),
        _req("task_id", pa.string()),
        _req("blueprint_id", pa.string()),
        _req("split", pa.string()),
        _req("step_index", pa.int64()),  # 0-based index of the agent (assistant) turn
        pa.field("observation", pa.string()),  # canonical text: task id + what the agent saw since its last turn
        pa.field("anchor_state", pa.string()),  # sha256 prefix of observation: GiGPO anchor-state key
        pa.field("action", pa.string()),  # the assistant turn in Hermes text form (<tool_call> blocks)
        pa.field("tool_name", pa.string()),  # first tool called in this step; null for a text answer
        pa.field("step_reward", pa.float64()),
        pa.field("discounted_return", pa.float64()),  # sum_j>=t gamma^(j-t) r_j
        pa.field("gamma", pa.float64()),
        pa.field("is_last", pa.bool_()),
        pa.field("passed", pa.bool_()),  # the trajectory's verdict
        pa.field("reward_components", REWARD_COMPONENTS),  # the trajectory's, on its last step only
        pa.field("hint_mode", pa.string()),  # the trajectory's (help during generation only)
    ]
)

TRAJECTORIES_FAILED = pa.schema(
    [
        _req("trajectory_id", pa.string()),
        _req("task_id", pa.string()),
        _req("blueprint_id", pa.string()),
        _req("split", pa.string()),
        pa.field("messages", pa.list_(MESSAGE)),
        pa.field("tools", pa.string()),
        pa.field("reason_codes", pa.list_(pa.string())),
        pa.field("violations", pa.string()),  # JSON list of Verdict.violations
        pa.field("reward", pa.float64()),
        pa.field("reward_components", REWARD_COMPONENTS),
        pa.field("finish_reason", pa.string()),
        pa.field("recovery", pa.bool_()),
        pa.field("faults", pa.string()),  # JSON list of injected faults
        pa.field("model", pa.string()),
        pa.field("sample_index", pa.int64()),
        pa.field("hint_mode", pa.string()),  # help the teacher had during generation only
    ]
)

QUARANTINE = pa.schema(
    [
        _req("stage", pa.string()),
        pa.field("source", pa.string()),
        pa.field("position", pa.int64()),
        pa.field("record_id", pa.string()),
        _req("reason_code", pa.string()),
        pa.field("error", pa.string()),
        pa.field("raw", pa.string()),  # pseudonymized input text (nothing real reaches outputs)
        pa.field("raw_sha256", pa.string()),  # sha256 of the original raw text, to find it in the source
    ]
)

#: File stem -> schema, in the order files are written.
SCHEMAS: dict[str, pa.Schema] = {
    "sft": SFT,
    "rl": RL,
    "rejects": REJECTS,
    "tasks": TASKS,
    "blueprints": BLUEPRINTS,
    "groups": GROUPS,
    "quarantine": QUARANTINE,
    "dpo": DPO,
    "steps": STEPS,
    "trajectories_failed": TRAJECTORIES_FAILED,
}

#: Datasets a model trains on, with their model-visible columns (the hidden-information audit
#: scans exactly these; see :func:`pipeline.export.writer.check_no_hidden_leak`).
MODEL_VISIBLE: dict[str, tuple[str, ...]] = {
    "sft": ("messages", "tools"),
    "rl": ("prompt", "tools", "extra_info"),
    "dpo": ("prompt", "chosen", "rejected", "tools"),
    "steps": ("observation", "action"),
    "trajectories_failed": ("messages", "tools"),
}
