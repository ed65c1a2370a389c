"""``quarantine.parquet``: every input record that could not enter a stage (pseudonymized)."""
from __future__ import annotations

from typing import Any

import pyarrow as pa

from ..records import QuarantineRecord
from .columns import req

SCHEMA = pa.schema(
    [
        req("stage", pa.string()),
        pa.field("source", pa.string()),
        pa.field("position", pa.int64()),
        pa.field("record_id", pa.string()),
        req("reason_code", pa.string()),
        pa.field("error", pa.string()),
        pa.field("raw", pa.string()),  # pseudonymized input text (nothing real reaches outputs)
        pa.field("raw_sha256", pa.string()),  # sha256 of the original raw text, to find it in the source
    ]
)


def quarantine_row(q: QuarantineRecord) -> dict[str, Any]:
    """A ``quarantine.parquet`` row."""
    return q.model_dump()
