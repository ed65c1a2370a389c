"""Export: the run's datasets as Parquet (zstd) with explicit schemas, splits and a manifest.

Row shapes (see :mod:`pipeline.export.schemas` and docs/datasets.md):

=================== ========================================================================
file                one row per
=================== ========================================================================
sft                 kept trajectory: ``messages`` (OpenAI format), ``tools`` (JSON), ``loss_mask``,
                    split, reward + reward components, recovery, skills, ``hint_mode``
rl                  verified task in veRL's layout: ``data_source``, ``prompt``, ``ability``,
                    ``reward_model`` {style, ground_truth}, ``extra_info``, ``agent_name``
dpo                 preference pair of one task: TRL ``prompt`` / ``chosen`` / ``rejected``
steps               agent turn: anchor-state key (GiGPO), action, step reward, discounted return
groups              task instance: k, passes, pass@1 / pass@k, reward mean / std, zero variance
                    (unhelped rollouts; helped ones in ``hint_mode`` / ``*_helped``)
trajectories_failed rollout whose verdict failed (analysis only, never in sft)
rejects             trajectory not kept / task that failed verification, with reason code
tasks               task package (visible fields + the hidden part as JSON)
blueprints          task blueprint
quarantine          record that could not enter a stage
=================== ========================================================================

Plus ``llamafactory/`` (sharegpt form of sft), ``README.md`` + ``plots/`` (dataset card) and
``manifest.json``. Splits are by connected group (:mod:`pipeline.export.splits`); the exporter
refuses to write when hidden task information reaches a model-visible column, or help text shown
to a teacher (``hint_mode`` plan / example) reaches any column of any file.
"""
from .schemas import SCHEMAS
from .splits import SPLITS, assign_split
from ..fileio import sha256_file
from .writer import export_all, write_parquet

__all__ = ["SCHEMAS", "SPLITS", "assign_split", "export_all", "sha256_file", "write_parquet"]
