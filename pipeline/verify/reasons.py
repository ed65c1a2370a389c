"""Reason codes: every record that leaves a stage as a reject carries one of these.

The table is rendered into docs/reason-codes.md (``python -m pipeline.verify.reasons --write``)."""
from __future__ import annotations

REASONS: dict[str, tuple[str, str]] = {
    # ingest
    "INGEST_DECODE": ("ingest", "bytes are not valid UTF-8"),
    "INGEST_JSON": ("ingest", "record is not parseable JSON"),
    "INGEST_SCHEMA": ("ingest", "record fails the canonical JSON Schema (schemas/conversation.schema.json)"),
    "INGEST_TOO_LARGE": ("ingest", "record larger than the size limit"),
    "INGEST_DUPLICATE_ID": ("ingest", "record id already seen in the same input"),
    "INGEST_EMPTY": ("ingest", "blank line or empty record"),
    "INGEST_NO_DOMAIN": ("ingest", "no registered domain owns the record (pipeline/ingest/routing.py): it calls "
                         "tools no domain has (the detail names them; add a domain: docs/domains.md), tools "
                         "the domain it names lacks, or no domain tool at all without a named domain outside "
                         "a one-domain file"),
    "INGEST_DOMAIN_AMBIGUOUS": ("ingest", "several domains have every tool the record calls (e.g. only "
                                "get_user_details) and its file does not settle it: name its domain "
                                "(metadata.domain or trajpipe ingest --domain)"),
    "INGEST_TOOL_RESULT_MISSING": ("ingest", "a tool call has no result after it (a trace, call log or ShareGPT "
                                   "item that ends or moves on before the result): quarantined, never guessed "
                                   "(pipeline/ingest/readers.py)"),
    "INGEST_TOOL_CALL_MISSING": ("ingest", "a tool result answers no tool call before it"),
    "INGEST_ORPHAN_SPAN": ("ingest", "an OpenTelemetry span (or GenAI event) whose parent span is not in the export: "
                           "part of the trace is missing (pipeline/ingest/otel.py)"),
    "INGEST_STITCH_CONFLICT": ("ingest", "logged calls of one conversation disagree on its history (a request that "
                               "does not continue the earlier calls), or a span without a conversation id in a "
                               "trace holding several conversations"),
    # anonymize
    "ANON_FAILED": ("anonymize", "the anonymizer raised on this record; it is quarantined, never passed on raw"),
    # blueprints / synthesis
    "SYNTH_NO_GENERATOR": ("synthesize", "the blueprint's action signature has no task generator in the domain"),
    "SYNTH_FAILED": ("synthesize", "the task generator raised for this seed"),
    "SYNTH_ANSWER_NOT_COMPUTABLE": ("synthesize", "an answer-only blueprint (the logged agent answered without "
                                    "writing) whose request no answer kind of the domain can compute from its state "
                                    "(domain answer_kind_for_intent gives none)"),
    # task verification
    "TASK_REFERENCE_FAILED": ("verify_task", "a reference-solution call returned an error in a clean sandbox"),
    "TASK_REFERENCE_MISMATCH": ("verify_task", "the reference's final state differs from the expected final state"),
    "TASK_NOT_FAIL_TO_PASS": ("verify_task", "action task: the verifier already passes on the untouched initial "
                              "state; refusal/transfer task: a forbidden action does not change the state (or none "
                              "is known), so the verifier cannot fail it"),
    "TASK_ANSWER_LEAK": ("verify_task", "the instruction or a scripted customer turn contains a value the agent "
                         "must obtain through tools (generation_notes.must_discover)"),
    "TASK_OUTCOME_INCONSISTENT": ("verify_task", "a refusal/transfer task whose reference changes the state, or a "
                                  "transfer task whose reference makes no transfer"),
    "TASK_TOOL_NOT_REQUIRED": ("verify_task", "with a declared-required tool removed from the sandbox "
                               "(TOOL_DISABLED) the reference still passes the trajectory verifier"),
    "TASK_VERIFIER_WEAK": ("verify_task", "reverse-validation: a known-good variant of the reference failed or a "
                           "known-bad mutant passed the trajectory verifier (pipeline/verify/mutations.py)"),
    "TASK_ANSWER_INVALID": ("verify_task", "answer task: no valid required facts in the hidden verifier, the "
                            "reference answer fails the answer matcher, or a reply without the facts passes it"),
    "TASK_TOO_EASY": ("verify_task", "pass rate over the k teacher rollouts above the difficulty band"),
    "TASK_TOO_HARD": ("verify_task", "pass rate over the k teacher rollouts below the difficulty band"),
    # trajectory verification
    "TRAJ_WRONG_FINAL_STATE": ("verify_trajectory", "final sandbox state differs from the expected final state"),
    "TRAJ_TURN_LIMIT": ("verify_trajectory", "episode hit the turn limit"),
    "TRAJ_ERROR": ("verify_trajectory", "episode crashed (backend or harness error)"),
    "TRAJ_UNPARSEABLE_CALL": ("verify_trajectory", "a <tool_call> block was not valid JSON / had no name"),
    "TRAJ_UNKNOWN_TOOL": ("verify_trajectory", "a tool call named a tool that does not exist"),
    "TRAJ_INVALID_ARGS": ("verify_trajectory", "tool-call arguments failed the tool's JSON schema"),
    "TRAJ_NO_TOOL_CALL": ("verify_trajectory", "the agent never called a tool (action tasks)"),
    "TRAJ_ABNORMAL_END": ("verify_trajectory", "episode ended with a finish reason other than agent_stop / "
                          "user_stop / transfer"),
    "TRAJ_NO_REFUSAL": ("verify_trajectory", "refusal task: the last agent message does not refuse (or the agent "
                        "transferred instead)"),
    "TRAJ_NO_TRANSFER": ("verify_trajectory", "transfer task: no successful transfer to a human agent"),
    "ANSWER_MISSING_FACT": ("verify_trajectory", "answer task: a required fact (number, amount, date, id, status) "
                            "is not stated in a declarative sentence of the agent's replies (pipeline/verify/answers.py)"),
    "ANSWER_QUESTION_ONLY": ("verify_trajectory", "answer task: the agent's replies are only questions back to the "
                             "customer; no fact is stated"),
    "ANSWER_SPRAYING": ("verify_trajectory", "answer task: a required value is listed among other candidate values "
                        "(\"it is 300, 327 or 1000\")"),
    "ANSWER_CONTRADICTION": ("verify_trajectory", "answer task: the agent also states another value of the same kind "
                             "(another amount, count, date, id or status) that the task does not allow"),
    "ROUTE_TOOL_REJECTED": ("verify_trajectory", "a reward tool in the task's route failed its reverse-validation "
                            "(known-good variants must pass, known-bad mutants must fail) and is not admitted"),
    "TRAJ_WRITE_BEFORE_IDENTITY": ("verify_trajectory", "path: a state-changing call before the customer's "
                                   "identity was established (domain identity_tools)"),
    "TRAJ_WRITE_WITHOUT_CONFIRMATION": ("verify_trajectory", "path: a write with no customer 'yes' after the "
                                        "agent's last proposal (policy: explicit confirmation)"),
    "TRAJ_FORBIDDEN_ACTION": ("verify_trajectory", "path: a call the policy forbids (domain rule_violations; "
                              "rule id in the violation)"),
    "TRAJ_REPEATED_CALL": ("verify_trajectory", "path: a call identical to an earlier one with no write in "
                           "between (or a repeated identical write)"),
    "TRAJ_UNGROUNDED_ARGUMENT": ("verify_trajectory", "path: a tool-call argument value (id, amount, name, date) "
                                 "the agent had not been shown before the call (system prompt, customer turns, "
                                 "earlier tool results) and no domain rule derives (pipeline/verify/grounding.py; "
                                 "argument path in the violation)"),
    "TRAJ_FALSE_SUCCESS_CLAIM": ("verify_trajectory", "the last agent message claims success that the outcome "
                                 "contradicts"),
    "VERIFY_FAILED_UNSPECIFIED": ("verify_trajectory", "verdict failed without a reason code (should not happen)"),
    # selection / dedupe
    "SELECT_OVER_CAP": ("select", "verified, but the task instance already has `cap` kept trajectories"),
    "DEDUPE_EXACT": ("dedupe", "exact duplicate of a kept trajectory's agent-visible text"),
    "DEDUPE_NEAR": ("dedupe", "near-duplicate (MinHash LSH, Jaccard >= threshold) of a kept trajectory"),
    # export
    "EXPORT_HELP_ECHO": ("export", "a helped rollout whose messages repeat a line of the help text its teacher was "
                         "shown (pipeline.rollout.hints): withheld from every dataset (its messages are not "
                         "written anywhere in the export; trajectories.jsonl in the work folder keeps it)"),
}


def markdown_table() -> str:
    """The reason-code table as Markdown (code | stage | meaning)."""
    rows = ["| code | stage | meaning |", "| --- | --- | --- |"]
    rows += [f"| `{c}` | {s} | {d} |" for c, (s, d) in REASONS.items()]
    return "\n".join(rows) + "\n"


DOC_HEADER = (
    "# Reason codes\n\n"
    "Every record that leaves a stage as a reject or quarantine carries one of these codes "
    "(`pipeline/verify/reasons.py`; regenerate this file with `python -m pipeline.verify.reasons --write`). "
    "They appear in `rejects.parquet`, `quarantine.parquet` and the manifest's `by_reason` counts. "
    "Trajectory path-check codes also appear, with a step index, in `Verdict.violations`.\n\n"
)


def write_doc(path: str) -> None:
    """Write docs/reason-codes.md: :data:`DOC_HEADER` then :func:`markdown_table`."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(DOC_HEADER + markdown_table())


if __name__ == "__main__":  # pragma: no cover
    import os
    import sys

    if "--write" in sys.argv:
        doc = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "docs", "reason-codes.md")
        write_doc(doc)
        print(doc)
    else:
        print(markdown_table())
