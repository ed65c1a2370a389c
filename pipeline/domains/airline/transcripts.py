"""Transcript tool inference for the airline domain (:meth:`AirlineDomain.transcript_call`).

A flattened transcript (``shared/data/tau-bench/logs/airline-transcripts.jsonl``) shows a hidden
call only by its result: a reservation (``reservation_id``) -> ``get_reservation_details``; a user
profile (``payment_methods`` and ``email``) -> ``get_user_details`` (with the transcript's
``last_user_id`` when a lookup returned one). Everything else is not an airline shape (None).
"""
from __future__ import annotations

from typing import Any

from pipeline.domains.base import TranscriptContext


def transcript_call(text: str, value: Any, ctx: TranscriptContext) -> tuple[str, dict[str, Any] | None] | None:
    """The airline tool a hidden call with result ``text`` (JSON ``value``) was, or None."""
    if not isinstance(value, dict):
        return None
    if "reservation_id" in value:
        return "get_reservation_details", {"reservation_id": value["reservation_id"]}
    if "payment_methods" in value and "email" in value:
        uid = ctx.last_user_id
        return "get_user_details", ({"user_id": uid} if uid else None)
    return None
