"""Reason codes: every record that leaves a stage as a reject carries one of these.

The table is rendered into docs/reason-codes.md (``python -m pipeline.verify.reasons``)."""
from __future__ import annotations

REASONS: dict[str, tuple[str, str]] = {
    # ingest
    "INGEST_DECODE": ("ingest", "bytes are not valid UTF-8"),
    "INGEST_JSON": ("ingest", "record is not parseable JSON"),
    "INGEST_SCHEMA": ("ingest", "record fails the canonical JSON Schema (schemas/conversation.schema.json)"),
    "INGEST_TOO_LARGE": ("ingest", "record larger than the size limit"),
    "INGEST_DUPLICATE_ID": ("ingest", "record id already seen in the same input"),
    "INGEST_EMPTY": ("ingest", "blank line or empty record"),
    # anonymize
    "ANON_FAILED": ("anonymize", "the anonymizer raised on this record; it is quarantined, never passed on raw"),
    # blueprints / synthesis
    "SYNTH_NO_GENERATOR": ("synthesize", "the blueprint's action signature has no task generator in the domain"),
    "SYNTH_FAILED": ("synthesize", "the task generator raised for this seed"),
    # task verification
    "TASK_REFERENCE_FAILED": ("verify_task", "a reference-solution call returned an error in a clean sandbox"),
    "TASK_REFERENCE_MISMATCH": ("verify_task", "the reference's final state differs from the expected final state"),
    "TASK_NOT_FAIL_TO_PASS": ("verify_task", "the verifier already passes on the untouched initial state"),
    "TASK_ANSWER_LEAK": ("verify_task", "the instruction contains a value the agent must obtain through tools"),
    # trajectory verification
    "TRAJ_WRONG_FINAL_STATE": ("verify_trajectory", "final sandbox state differs from the expected final state"),
    "TRAJ_TURN_LIMIT": ("verify_trajectory", "episode hit the turn limit"),
    "TRAJ_ERROR": ("verify_trajectory", "episode crashed (backend or harness error)"),
    "TRAJ_UNPARSEABLE_CALL": ("verify_trajectory", "a <tool_call> block was not valid JSON / had no name"),
    "TRAJ_UNKNOWN_TOOL": ("verify_trajectory", "a tool call named a tool that does not exist"),
    "TRAJ_INVALID_ARGS": ("verify_trajectory", "tool-call arguments failed the tool's JSON schema"),
    "TRAJ_NO_TOOL_CALL": ("verify_trajectory", "the agent never called a tool"),
    "VERIFY_FAILED_UNSPECIFIED": ("verify_trajectory", "verdict failed without a reason code (should not happen)"),
    # selection / dedupe
    "SELECT_OVER_CAP": ("select", "verified, but the task instance already has `cap` kept trajectories"),
    "DEDUPE_EXACT": ("dedupe", "exact duplicate of a kept trajectory's agent-visible text"),
    "DEDUPE_NEAR": ("dedupe", "near-duplicate (MinHash LSH, Jaccard >= threshold) of a kept trajectory"),
}


def describe(code: str) -> str:
    """Description of a reason code; KeyError for an unknown code."""
    return REASONS[code][1]


def markdown_table() -> str:
    """The reason-code table as Markdown (code | stage | meaning)."""
    rows = ["| code | stage | meaning |", "| --- | --- | --- |"]
    rows += [f"| `{c}` | {s} | {d} |" for c, (s, d) in REASONS.items()]
    return "\n".join(rows) + "\n"


if __name__ == "__main__":  # pragma: no cover
    print(markdown_table())
