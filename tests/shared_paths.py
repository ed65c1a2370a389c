"""Where the tests find ../shared (real public logs and the failing cases).

``$TRAJPIPE_SHARED_DIR`` names the folder when the project is cloned somewhere else than beside
it (a clone in /tmp: ``TRAJPIPE_SHARED_DIR=/work/shared``); otherwise it is ``../shared`` from
the project root. ``$TRAJPIPE_TAU_DIR`` names the tau-bench folder alone (as for
``python -m pipeline.anonymize.eval``). Tests that need a file from it skip with a message that names the full path.
"""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the shared folder: $TRAJPIPE_SHARED_DIR, else ../shared beside the project
SHARED_DIR = Path(os.environ["TRAJPIPE_SHARED_DIR"]) if os.environ.get("TRAJPIPE_SHARED_DIR") else ROOT.parent / "shared"
#: the tau-bench logs and databases: $TRAJPIPE_TAU_DIR, else data/tau-bench of the shared folder
TAU_DIR = Path(os.environ["TRAJPIPE_TAU_DIR"]) if os.environ.get("TRAJPIPE_TAU_DIR") else SHARED_DIR / "data" / "tau-bench"
#: the failing inputs (../shared/cases)
CASES_DIR = SHARED_DIR / "cases"


def missing(path: Path) -> str:
    """A skip message for a shared file that is absent: the full path and how to point at it."""
    return (f"shared file not found at {path} (../shared beside the project, or set "
            f"TRAJPIPE_SHARED_DIR to the shared folder)")
