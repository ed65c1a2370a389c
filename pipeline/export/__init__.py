"""Export: the run's datasets as Parquet (zstd) with explicit schemas, splits and a manifest.

Row shapes (see :mod:`pipeline.export.schemas`):

========== ============================================================================
file       one row per
========== ============================================================================
sft        kept trajectory: ``messages`` (list<struct>, OpenAI format), ``tools`` (JSON),
           ``loss_mask`` (assistant turns ``True``), split, model, reward
rl         task that passed task verification: ``prompt`` (system + first user message),
           ``tools``, reward-only ``ground_truth`` and hidden ``env_state`` (JSON)
rejects    trajectory not kept / task that failed verification, with stage and reason code
tasks      task package (visible fields + the hidden part as JSON), task verdict
blueprints task blueprint
groups     task instance: rollouts ``k``, passes, pass rate, kept, exported
quarantine record that could not enter a stage
========== ============================================================================
"""
from .schemas import SCHEMAS
from .splits import SPLITS, assign_split
from .writer import export_all, sha256_file, write_parquet

__all__ = ["SCHEMAS", "SPLITS", "assign_split", "export_all", "sha256_file", "write_parquet"]
