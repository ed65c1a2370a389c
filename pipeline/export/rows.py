"""Every dataset's row function, by name (each lives beside its schema in its dataset's module:
:mod:`.sft`, :mod:`.rl`, :mod:`.rejects`, :mod:`.tasks`, :mod:`.blueprints`, :mod:`.groups`,
:mod:`.quarantine`, :mod:`.failed`, :mod:`.preferences` (dpo), :mod:`.steps`; shared helpers in
:mod:`.columns`)."""
from __future__ import annotations

from .blueprints import blueprint_row
from .columns import message_row, reward_components_row, tool_call_row
from .failed import failed_row
from .groups import group_row, pass_at_k
from .preferences import dpo_rows
from .quarantine import quarantine_row
from .rejects import help_echo_row, stage_of, task_reject_row, trajectory_reject_row
from .rl import default_system_prompt, ground_truth, rl_row
from .sft import loss_mask, sft_row
from .steps import step_rows
from .tasks import task_row

__all__ = ["blueprint_row", "default_system_prompt", "dpo_rows", "failed_row", "ground_truth", "group_row",
           "help_echo_row", "loss_mask", "message_row", "pass_at_k", "quarantine_row", "reward_components_row",
           "rl_row", "sft_row", "stage_of", "step_rows", "task_reject_row", "task_row", "tool_call_row",
           "trajectory_reject_row"]
