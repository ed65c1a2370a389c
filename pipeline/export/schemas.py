"""Every exported Parquet file's schema, by file name (the registry).

Each dataset's schema lives beside its row function in its own module (:mod:`.sft`, :mod:`.rl`,
:mod:`.rejects`, :mod:`.tasks`, :mod:`.blueprints`, :mod:`.groups`, :mod:`.quarantine`,
:mod:`.preferences` (dpo), :mod:`.steps`, :mod:`.failed` (trajectories_failed)); the column types
they share are in :mod:`.columns`. This module names them: :data:`SCHEMAS` (file stem -> schema,
in the order files are written) and :data:`MODEL_VISIBLE` (what the hidden-information audit
scans).
"""
from __future__ import annotations

import pyarrow as pa

from . import blueprints, failed, groups, preferences, quarantine, rejects, rl, sft, steps, tasks
from .columns import (  # noqa: F401  (the shared column types, re-exported)
    ARGUMENTS_TYPE,
    MESSAGE,
    POLICY_RULE,
    PROMPT_MESSAGE,
    REWARD_COMPONENT_NAMES,
    REWARD_COMPONENTS,
    TOOL_CALL,
    storage_schema,
    storage_type,
)
from .rl import INTERACTION_KWARGS, rl_schema  # noqa: F401

SFT = sft.SCHEMA
RL = rl.SCHEMA
REJECTS = rejects.SCHEMA
TASKS = tasks.SCHEMA
BLUEPRINTS = blueprints.SCHEMA
GROUPS = groups.SCHEMA
QUARANTINE = quarantine.SCHEMA
DPO = preferences.SCHEMA
STEPS = steps.SCHEMA
TRAJECTORIES_FAILED = failed.SCHEMA

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
#: scans exactly these; see :func:`pipeline.export.audit.check_no_hidden_leak`).
MODEL_VISIBLE: dict[str, tuple[str, ...]] = {
    "sft": sft.MODEL_VISIBLE,
    "rl": rl.MODEL_VISIBLE,
    "dpo": preferences.MODEL_VISIBLE,
    "steps": steps.MODEL_VISIBLE,
    "trajectories_failed": failed.MODEL_VISIBLE,
}
