"""Write every dataset of a run as zstd-compressed Parquet plus ``manifest.json``."""
from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Callable, Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from ..records import (
    Blueprint,
    QuarantineRecord,
    TaskPackage,
    TaskVerdict,
    Trajectory,
    Verdict,
    canonical_json,
)
from . import rows as R
from .schemas import SCHEMAS, rl_schema, storage_schema
from .splits import assign_split

COMPRESSION = "zstd"


def _coerce(model, items: Iterable[Any]) -> list:
    return [x if isinstance(x, model) else model.model_validate(x) for x in items]


def sha256_file(path: str) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_parquet(path: str, rows: list[dict[str, Any]], schema: pa.Schema) -> int:
    """Write ``rows`` with the explicit ``schema`` (zstd) atomically; returns the row count.

    Extension types in ``schema`` (the JSON tool-call ``arguments``) are built from their storage
    values (JSON text) and cast (:func:`pipeline.export.schemas.storage_schema`).

    Raises:
        pyarrow.ArrowInvalid / pyarrow.ArrowTypeError: a row does not fit the schema (e.g. a
            null in a required column).
    """
    table = pa.Table.from_pylist(rows, schema=storage_schema(schema)).cast(schema)
    tmp = path + ".tmp"
    pq.write_table(table, tmp, compression=COMPRESSION)
    os.replace(tmp, path)
    return table.num_rows


MIN_SECRET_LEN = 12


def _string_leaves(obj: Any) -> list[str]:
    out: list[str] = []
    if isinstance(obj, str):
        out.append(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out += _string_leaves(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            out += _string_leaves(v)
    return out


def _visible_text(task: TaskPackage) -> str:
    """What a hidden value may coincide with without being a leak: the agent-visible part, the
    sandbox's initial state (tools reveal it) and the task's public labels (ids, kind, variant,
    outcome, skills: exported as metadata columns by design, e.g. a blueprint id names its kind)."""
    labels = [task.task_id, task.blueprint_id, task.domain, task.task_kind, task.variant,
              task.expected_outcome, task.skills]
    return (canonical_json(task.visible.model_dump(mode="json")) + canonical_json(task.hidden.initial_state)
            + canonical_json(labels))


def hidden_secrets(task: TaskPackage, *, in_trajectories: bool = False) -> list[str]:
    """Strings of ``task``'s hidden part that must never reach a model-visible column.

    The expected final-state hash (>= 8 characters), the canonical JSON of the whole reference
    solution, verifier and generation notes, and every string value in them of at least
    :data:`MIN_SECRET_LEN` characters that does not also occur in the agent-visible part of the
    task (instruction, policy, tools, scripted customer turns) or in the sandbox's initial state
    (which tools legitimately reveal).

    ``in_trajectories=True`` returns only the values that may not appear *anywhere* in a
    trajectory: argument values of the reference solution are then left out, because an agent
    that solves the task makes the same calls (e.g. the same transfer summary); see
    :func:`check_no_hidden_leak` for where those may appear.
    """
    h = task.hidden
    visible = _visible_text(task)
    secrets = set()
    if h.expected_state_hash and len(h.expected_state_hash) >= 8:
        secrets.add(h.expected_state_hash)
    ref = [c.model_dump() for c in h.reference_solution]
    ref_args = set(_string_leaves([c.arguments for c in h.reference_solution]))
    for part in (ref, h.verifier, h.generation_notes):
        if part:
            secrets.add(canonical_json(part))
        for leaf in _string_leaves(part):
            if len(leaf) >= MIN_SECRET_LEN and leaf not in visible and not (in_trajectories and leaf in ref_args):
                secrets.add(leaf)
    return sorted(secrets)


def reference_argument_secrets(task: TaskPackage) -> list[str]:
    """Argument values of the reference solution (>= :data:`MIN_SECRET_LEN` characters, not in
    the visible task or initial state): allowed in a trajectory only as arguments of its own tool
    calls or inside its tool results, never in text the agent was shown or wrote."""
    visible = _visible_text(task)
    leaves = _string_leaves([c.arguments for c in task.hidden.reference_solution])
    return sorted({x for x in leaves if len(x) >= MIN_SECRET_LEN and x not in visible})


def _tool_results_text(messages: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "tool")


def check_no_hidden_leak(tasks: dict[str, TaskPackage], tables: dict[str, list[dict[str, Any]]],
                         tool_results: dict[str, str] | None = None) -> None:
    """Refuse to export when a hidden value of a task shows up in a model-visible column.

    Scans the columns of :data:`pipeline.export.schemas.MODEL_VISIBLE` of every row of every
    dataset in ``tables`` against the row task's hidden values:

    * rl (what the policy is prompted with): every :func:`hidden_secrets` value, no exception.
    * trajectory datasets (sft, dpo, steps, trajectories_failed): the :func:`hidden_secrets`
      (``in_trajectories=True``) values, unless the value also appears in one of the
      trajectory's own tool results (``tool_results``: trajectory id -> text of its tool
      messages; the agent learnt it from a tool); and the reference solution's argument values
      (:func:`reference_argument_secrets`) outside the trajectory's own tool-call arguments
      (assistant text, customer turns, system prompt, tools) unless a tool result returned them:
      a demonstration that makes the reference's calls passes, one that *shows* or *says* the
      reference's values does not. ``tool_results`` is derived from ``messages`` when absent.

    Raises:
        ValueError: naming the dataset, row and task (never the secret itself).
    """
    from .schemas import MODEL_VISIBLE

    tool_results = dict(tool_results or {})
    cache: dict[tuple[str, bool], list[str]] = {}

    def found(secret: str, text: str) -> bool:
        return secret in text or json.dumps(secret, ensure_ascii=False)[1:-1] in text

    for name, cols in MODEL_VISIBLE.items():
        for row in tables.get(name, []):
            task = tasks.get(row.get("task_id"))
            if task is None:
                continue
            traj_ds = name != "rl"
            key = (task.task_id, traj_ds)
            if key not in cache:
                cache[key] = hidden_secrets(task, in_trajectories=traj_ds)
                cache[(task.task_id, "ref")] = reference_argument_secrets(task) if traj_ds else []
            text = canonical_json([row.get(c) for c in cols])
            if not traj_ds:
                checks = [(s, text, "") for s in cache[key]]
            else:
                if name == "dpo":
                    ids = [row.get("chosen_trajectory_id"), row.get("rejected_trajectory_id")]
                    msgs = (row.get("chosen") or []) + (row.get("rejected") or [])
                else:
                    ids = [row.get("trajectory_id")]
                    msgs = row.get("messages") or []
                results = "\n".join(tool_results[i] for i in ids if i in tool_results) or _tool_results_text(msgs)
                checks = [(s, text, results) for s in cache[key]]
                if cache[(task.task_id, "ref")]:
                    # reference argument values may appear as the trajectory's own tool-call arguments;
                    # anywhere else (text shown to or written by the agent) only if a tool returned them
                    shown = canonical_json([_without_call_arguments(row.get(c)) for c in cols])
                    checks += [(s, shown, results) for s in cache[(task.task_id, "ref")]]
            for secret, where, allowed in checks:
                if found(secret, where) and secret not in allowed:
                    rid = row.get("trajectory_id") or row.get("pair_id") or row.get("task_id")
                    raise ValueError(f"hidden information of task {task.task_id} leaks into a model-visible "
                                     f"column of {name} (row {rid}); refusing to export")


def _without_call_arguments(value: Any) -> Any:
    """``value`` with the ``arguments`` of every tool call and every tool-message content removed
    (what remains is text the agent was shown or wrote; Hermes ``<tool_call>``/``<tool_response>``
    blocks in step actions / observations are removed too)."""
    import re

    if isinstance(value, str):
        return re.sub(r"<tool_(call|response)>.*?</tool_\1>", "", value, flags=re.S)
    if isinstance(value, list):
        return [_without_call_arguments(v) for v in value]
    if isinstance(value, dict):
        if value.get("role") == "tool":
            return {k: v for k, v in value.items() if k != "content"}
        out = {}
        for k, v in value.items():
            if k == "tool_calls" and v:
                out[k] = [{"function": {"name": (c.get("function") or {}).get("name")}} for c in v]
            else:
                out[k] = _without_call_arguments(v)
        return out
    return value


#: Help lines shorter than this are trivial (list numbers, ``</tool_call>``, ``Tool: <tool_response>``,
#: a ``[]`` tool result): too generic to tell help text from ordinary text.
HINT_LINE_MIN = 20
#: Help modes that put text into the teacher's prompt (``guided``: the plan text plus the grammar).
HINT_TEXT_MODES = ("plan", "example", "guided")


def _ordinary_text(task: TaskPackage) -> str:
    """What the agent sees without help: the ordinary system prompt in every prompt style (compact,
    full, the native-tools one) and the customer's turns."""
    from ..rollout.prompting import PROMPT_STYLES, system_prompt, system_prompt_native

    vis = task.visible
    parts = [system_prompt(vis.policy, vis.tools, s) for s in PROMPT_STYLES]
    parts += [system_prompt_native(vis.policy), vis.instruction, *vis.user_messages]
    return "\n".join(parts)


def hint_lines(task: TaskPackage, mode: str, domain: Any = None) -> list[str]:
    """The lines of ``task``'s help text for ``mode`` that must never reach an exported column.

    The help text is regenerated exactly as the rollout harness made it
    (:func:`pipeline.rollout.hints.hint_text`, ``domain`` default: the task's registered domain);
    a line counts when, stripped, it has at least :data:`HINT_LINE_MIN` characters and does not
    occur in the ordinary visible prompt (:func:`_ordinary_text`): shared lines are not help.
    Lines keep their labels (``Customer:`` / ``Agent:`` / ``Tool:`` in an ``example``), so the
    audit looks for the help *as shown*, not for ordinary replies that resemble it. Empty for
    ``none`` (no text) and for an ``example`` the domain cannot generate.
    """
    from ..rollout.hints import hint_text

    if mode not in HINT_TEXT_MODES:
        return []
    if domain is None:
        from ..domains import get_domain

        domain = get_domain(task.domain)
    text = hint_text(task, domain, mode)
    if not text:
        return []
    ordinary = _ordinary_text(task)
    return sorted({ln.strip() for ln in text.splitlines()
                   if len(ln.strip()) >= HINT_LINE_MIN and ln.strip() not in ordinary})


def _own_tool_text(trajectories: Iterable[Trajectory]) -> str:
    """The tool results the trajectories received and their own tool calls in Hermes JSON form
    (``{"name", "arguments"}``, as :func:`pipeline.rollout.prompting.render_for_model` writes them):
    a help line that equals part of these came from the conversation itself (an ``example``'s
    no-argument lookup returns the same table in every episode)."""
    out: list[str] = []
    for t in trajectories:
        for m in t.messages:
            if m.get("role") == "tool":
                out.append(str(m.get("content") or ""))
            for tc in m.get("tool_calls") or []:
                fn = tc.get("function") or {}
                args = fn.get("arguments")
                if isinstance(args, str):
                    try:
                        args = json.loads(args)
                    except json.JSONDecodeError:
                        pass
                out.append(json.dumps({"name": fn.get("name"), "arguments": args}, ensure_ascii=False))
    return "\n\x00".join(out)


def _tool_body_line(mode: str, line: str) -> bool:
    """A line of an ``example`` that is the body of a tool call or tool response (not the header,
    not a ``Customer:`` / ``Agent:`` / ``Tool:`` labelled line): the only help lines a
    conversation can legitimately contain by itself (the same call or the same tool result)."""
    return mode == "example" and not line.startswith(("#", "Customer:", "Agent:", "Tool:"))


def help_echoes(tasks: dict[str, TaskPackage], trajectories: Iterable[Trajectory],
                domain_of: Callable[[str], Any] | None = None) -> dict[str, str]:
    """Helped rollouts whose own messages repeat a help line: ``{trajectory_id: hint_mode}``.

    A small teacher sometimes copies its help (a plan step, an example's reply) into what it says
    or into a call argument. Such a rollout cannot be exported at all without exporting the help,
    so the exporter withholds it (reason ``EXPORT_HELP_ECHO``) instead of refusing the whole
    export; :func:`check_no_hint_leak` still guards every file afterwards. The lines are
    :func:`hint_lines` of the rollout's task and mode, less an ``example``'s tool body lines the
    rollout made or received itself (as :func:`check_no_hint_leak`). A rollout whose task is not
    in ``tasks`` is left to :func:`check_no_hint_leak` (which refuses)."""
    out: dict[str, str] = {}
    domains: dict[str, Any] = {}
    for t in trajectories:
        task = tasks.get(t.task_id)
        if t.hint_mode not in HINT_TEXT_MODES or task is None:
            continue
        if task.domain not in domains:
            if domain_of is None:
                from ..domains import get_domain as domain_of
            domains[task.domain] = domain_of(task.domain)
        own = _own_tool_text([t])
        text = "\x00".join(_string_leaves(t.messages))
        for ln in hint_lines(task, t.hint_mode, domains[task.domain]):
            if _tool_body_line(t.hint_mode, ln) and ln in own:
                continue
            if ln in text or json.dumps(ln, ensure_ascii=False)[1:-1] in text:
                out[t.trajectory_id] = t.hint_mode
                break
    return out


def check_no_hint_leak(tasks: dict[str, TaskPackage], trajectories: Iterable[Trajectory],
                       tables: dict[str, list[dict[str, Any]]], domain_of: Callable[[str], Any] | None = None) -> None:
    """Refuse to export when help text shown to a teacher reaches an exported column.

    For every task with a ``plan`` / ``example`` trajectory among ``trajectories`` (every
    rollout the export writes: kept and rejected), the help text is regenerated with
    :func:`pipeline.rollout.hints.hint_text` and each of its :func:`hint_lines` is looked for
    (as is and JSON-escaped) in every string of every column of every row of ``tables`` (every
    Parquet file) whose ``task_id`` is that task, and of every row without a ``task_id``
    (blueprints, quarantine). The one exception: an ``example``'s tool-call or tool-response
    body line (:func:`_tool_body_line`) that also occurs in the task's own tool calls or tool
    results (:func:`_own_tool_text`) is skipped, since the conversation made or received it
    itself (a lookup without arguments returns the same table in every instance); plan lines,
    the header and labelled example lines are never skipped. Independently of the recorded
    ``hint_mode``, the help header (:data:`pipeline.rollout.hints.HINT_HEADER`) is looked for in
    every row of every table, so a whole help block stored under a wrong label is caught too.
    ``domain_of(name)`` (default :func:`pipeline.domains.get_domain`) gives the domain that made
    the help.

    Raises:
        ValueError: naming the task, mode, dataset, column and row (never the help line), like
            :func:`check_no_hidden_leak`; or a helped trajectory whose task is not in ``tasks``
            (its help cannot be regenerated, so the export cannot be audited).
    """
    from ..rollout.hints import HINT_HEADER

    trajs = list(trajectories)
    by_task: dict[str, list[Trajectory]] = {}
    modes: dict[str, set[str]] = {}
    for t in trajs:
        by_task.setdefault(t.task_id, []).append(t)
        if t.hint_mode in HINT_TEXT_MODES:
            modes.setdefault(t.task_id, set()).add(t.hint_mode)
    domains: dict[str, Any] = {}
    needles: dict[str, list[tuple[str, str, str]]] = {}  # task id -> (mode, line, JSON-escaped line)
    for tid in sorted(modes):
        task = tasks.get(tid)
        if task is None:
            raise ValueError(f"trajectories of task {tid} had {'/'.join(sorted(modes[tid]))} help, but the task is "
                             "not given: its help text cannot be regenerated to audit the export; refusing to export")
        if task.domain not in domains:
            if domain_of is None:
                from ..domains import get_domain as domain_of
            domains[task.domain] = domain_of(task.domain)
        own = _own_tool_text(by_task[tid])
        needles[tid] = [(m, ln, json.dumps(ln, ensure_ascii=False)[1:-1]) for m in sorted(modes[tid])
                        for ln in hint_lines(task, m, domains[task.domain])
                        if not (_tool_body_line(m, ln) and ln in own)]
    every = [(tid, *n) for tid, ns in needles.items() for n in ns]
    header = HINT_HEADER.strip()
    for name, rows in tables.items():
        for row in rows:
            tid = row.get("task_id")
            cand = [(tid, *n) for n in needles.get(tid, [])] if tid is not None else every
            for col, value in row.items():
                text = "\x00".join(_string_leaves(value))
                if not text:
                    continue
                rid = row.get("trajectory_id") or row.get("pair_id") or row.get("id") or tid or row.get("blueprint_id")
                if header in text:
                    raise ValueError(f"help text (a '{header}' block) leaks into column {col} of {name} (row {rid}); "
                                     "refusing to export")
                for t_id, mode, line, escaped in cand:
                    if line in text or escaped in text:
                        raise ValueError(f"help text of task {t_id} (hint_mode {mode}) leaks into column {col} of "
                                         f"{name} (row {rid}); refusing to export")


def _check_no_hidden_leak(tasks: dict[str, TaskPackage], sft: list[dict], rl: list[dict]) -> None:
    """Back-compatible wrapper: :func:`check_no_hidden_leak` over sft and rl only."""
    check_no_hidden_leak(tasks, {"sft": sft, "rl": rl})


#: Datasets with one rollout per row and the column holding its help mode.
HINT_MODE_COLUMNS = {"sft": "hint_mode", "dpo": "chosen_hint_mode", "steps": "hint_mode",
                     "trajectories_failed": "hint_mode"}


def hint_mode_counts(rows: Iterable[dict[str, Any]], column: str = "hint_mode") -> dict[str, int]:
    """Rows per help mode (``none`` first, then :data:`pipeline.rollout.hints.HINT_MODES` order,
    then any other value); a missing value counts as ``none``."""
    counts: dict[str, int] = {}
    for r in rows:
        m = r.get(column) or "none"
        counts[m] = counts.get(m, 0) + 1
    return in_hint_mode_order(counts)


def in_hint_mode_order(counts: dict[str, int]) -> dict[str, int]:
    """``counts`` with its keys in :data:`pipeline.rollout.hints.HINT_MODES` order (``none``
    first), other keys after them alphabetically."""
    from ..rollout.hints import HINT_MODES

    order = {m: i for i, m in enumerate(HINT_MODES)}
    return {m: counts[m] for m in sorted(counts, key=lambda m: (order.get(m, len(order)), m))}


def export_all(
    out_dir: str,
    *,
    kept: Iterable[Trajectory],
    rejects: Iterable[tuple],
    tasks: Iterable[TaskPackage],
    task_verdicts: Iterable[TaskVerdict],
    blueprints: Iterable[Blueprint],
    groups: Iterable[dict[str, Any]],
    quarantine: Iterable[QuarantineRecord],
    manifest: dict[str, Any],
    verdicts: Iterable[Verdict] = (),
    split_seed: int = 0,
    fractions: tuple[float, float, float] = (0.8, 0.1, 0.1),
    system_prompt: Callable[[TaskPackage], str] | None = None,
    source_keys: dict[str, dict[str, list[str]]] | None = None,
    holdout_blueprints: Iterable[str] = (),
    gamma: float = 1.0,
    dpo_max_pairs: int = 4,
    llamafactory: bool = True,
    card: bool = True,
) -> dict[str, str]:
    """Write the run's datasets into ``out_dir`` (created if needed); returns ``{name: path}``.

    Files (schemas in :mod:`pipeline.export.schemas`, all zstd Parquet, empty inputs give valid
    empty files; column-by-column documentation in docs/datasets.md):

    * ``sft``: one row per ``kept`` trajectory; ``messages`` as ``list<struct>``, ``tools`` as
      JSON, ``loss_mask`` aligned with messages (assistant ``True``), ``reward`` and
      ``reward_components`` from the matching entry of ``verdicts`` (null if none given).
    * ``rl``: one row per task whose :class:`TaskVerdict` passed, in veRL's layout
      (``data_source``, ``prompt``, ``ability``, ``reward_model``, ``extra_info``, ``agent_name``);
      ``prompt`` = system (``system_prompt(task)``, default the policy) + the customer's first
      message; ``reward_model.ground_truth`` is for :func:`pipeline.rewards.compute_score` only.
    * ``dpo``: preference pairs per task (verified vs failed trajectory), TRL's conversational
      ``prompt``/``chosen``/``rejected``, at most ``dpo_max_pairs`` per task.
    * ``steps``: one row per agent turn of every rollout (kept and rejected), anchor-state key
      and discounted return with ``gamma``.
    * ``trajectories_failed``: every rolled-out trajectory whose verdict failed (never in sft).
    * ``rejects``: every ``rejects`` tuple ``(trajectory, reason_code, detail[, stage])`` (stage
      inferred from the code prefix when absent) plus every task whose verdict failed
      (``stage="verify_task"``).
    * ``tasks``, ``blueprints``, ``groups`` (the select stage's groups, plus ``split``,
      ``exported``, pass@1 / pass@k, reward mean / std, zero-variance flag; all over the task's
      unhelped rollouts, the helped ones in ``hint_mode`` / ``*_helped``: :func:`R.group_row`),
      ``quarantine``.
    * ``llamafactory/``: the train split of sft in LLaMA-Factory's sharegpt form
      (``llamafactory=True``), ``README.md`` + ``plots/*.png``: the dataset card (``card=True``).
    * ``splits/<name>/<split>.parquet``: the rows of each split of each file, for Hugging Face
      ``datasets`` (the card declares them as the configs' splits; splits and files without rows
      get none), and ``splits/index/full.parquet`` (rows per file and split):
      :func:`pipeline.export.hf.write_split_files`.
    * ``manifest``: ``manifest.json`` = the caller's ``manifest`` plus ``files`` (per file: file
      name, rows, bytes, sha256, ``splits``: per split its file, rows and sha256; ``index``) and
      ``export`` (split settings, components, gamma, compression).

    Help: every rollout row carries the help its teacher had during generation
    (``Trajectory.hint_mode``; dpo ``chosen_hint_mode`` / ``rejected_hint_mode``), and
    ``manifest.json`` ``files.<name>.rows_by_hint_mode`` counts rows per mode (dpo: chosen side;
    ``files.dpo.rejected_by_hint_mode``: rejected side).

    Splits: :func:`pipeline.export.splits.split_components` over the blueprints joined by shared
    ``source_keys`` (``{blueprint_id: {"customer": [...], "period": [...]}}``), with
    ``split_seed``/``fractions``; ``holdout_blueprints`` (and everything connected to them) go to
    the ``holdout`` split. Inputs may be the pydantic records or plain dicts of them.

    Raises:
        ValueError: hidden information of a task appears in a model-visible column of any dataset
            (:func:`check_no_hidden_leak`), help text shown to a teacher appears in any column of
            any file (:func:`check_no_hint_leak`), a malformed reject tuple, bad ``fractions`` or
            ``gamma``, or an unknown holdout blueprint id.
    """
    from .preferences import dpo_rows
    from .sharegpt import write_llamafactory
    from .splits import split_components
    from .steps import step_rows

    os.makedirs(out_dir, exist_ok=True)
    kept_l = _coerce(Trajectory, kept)
    tasks_l = _coerce(TaskPackage, tasks)
    tverd_l = _coerce(TaskVerdict, task_verdicts)
    bps_l = _coerce(Blueprint, blueprints)
    quar_l = _coerce(QuarantineRecord, quarantine)
    verd_l = _coerce(Verdict, verdicts)
    rejects_l = list(rejects)
    groups_l = list(groups)
    verdict_by_id = {v.trajectory_id: v for v in verd_l}
    reward = {v.trajectory_id: v.reward for v in verd_l}
    tasks_by_id = {t.task_id: t for t in tasks_l}
    tverd_by_id = {v.task_id: v for v in tverd_l}
    prompt_fn = system_prompt or R.default_system_prompt

    # ---- splits: connected components of blueprint / source customer / source period
    keys: dict[str, dict[str, list[str]]] = {b.blueprint_id: {} for b in bps_l}
    for bp_id in [t.blueprint_id for t in tasks_l] + [t.blueprint_id for t in kept_l] + \
            [g.get("blueprint_id") for g in groups_l]:
        if bp_id is not None:
            keys.setdefault(bp_id, {})
    for bp_id, k in (source_keys or {}).items():
        if bp_id in keys:
            keys[bp_id] = k
    holdout = list(holdout_blueprints)
    comps = split_components(keys, split_seed, fractions, holdout)

    def split(bp: str | None) -> str | None:
        if bp is None:
            return None
        c = comps.get(bp)
        return c["split"] if c else assign_split(bp, split_seed, fractions)

    # ---- helped rollouts that echo their help: withheld from every file (EXPORT_HELP_ECHO)
    def _tid(r: Any) -> str | None:
        t = r[0] if isinstance(r, (tuple, list)) and r else None
        return t.trajectory_id if isinstance(t, Trajectory) else (t or {}).get("trajectory_id") if isinstance(t, dict) else None

    echo_pool = {t.trajectory_id: t for t in kept_l}
    for r in rejects_l:
        t = r[0] if isinstance(r, (tuple, list)) and r else None
        if t is not None:
            t = t if isinstance(t, Trajectory) else Trajectory.model_validate(t)
            echo_pool.setdefault(t.trajectory_id, t)
    echoed = help_echoes(tasks_by_id, echo_pool.values())
    echo_rows = [{"kind": "trajectory", "id": tid, "task_id": echo_pool[tid].task_id,
                  "blueprint_id": echo_pool[tid].blueprint_id, "stage": "export", "reason_code": "EXPORT_HELP_ECHO",
                  "detail": f"{mode} help line repeated in the rollout's messages; withheld", "messages": "[]"}
                 for tid, mode in sorted(echoed.items())]
    if echoed:
        kept_l = [t for t in kept_l if t.trajectory_id not in echoed]
        rejects_l = [r for r in rejects_l if _tid(r) not in echoed]
        verd_l = [v for v in verd_l if v.trajectory_id not in echoed]
        verdict_by_id = {v.trajectory_id: v for v in verd_l}

    # ---- trajectories: kept, failed, all rollouts (once each)
    rejected_trajs: list[Trajectory] = []
    for r in rejects_l:
        t = r[0] if isinstance(r, (tuple, list)) and r else None
        if t is not None:
            rejected_trajs.append(t if isinstance(t, Trajectory) else Trajectory.model_validate(t))
    all_trajs: dict[str, Trajectory] = {}
    for t in kept_l + rejected_trajs:
        all_trajs.setdefault(t.trajectory_id, t)
    failed = [(t, verdict_by_id.get(t.trajectory_id)) for t in all_trajs.values()
              if t.trajectory_id in verdict_by_id and not verdict_by_id[t.trajectory_id].passed]
    tool_results = {tid: "\n".join(str(m.get("content") or "") for m in t.messages if m.get("role") == "tool")
                    for tid, t in all_trajs.items()}

    def task_attr(task_id: str):
        return tasks_by_id.get(task_id)

    sft_rows = [R.sft_row(t, split(t.blueprint_id), reward.get(t.trajectory_id),
                          verdict_by_id.get(t.trajectory_id), task_attr(t.task_id)) for t in kept_l]
    rl_tasks = [t for t in tasks_l if tverd_by_id.get(t.task_id) is not None and tverd_by_id[t.task_id].passed]
    tool_names = sorted({tl.get("function", tl).get("name") for t in rl_tasks for tl in t.visible.tools})
    rl_rows = [R.rl_row(t, split(t.blueprint_id), prompt_fn, i, tool_names) for i, t in enumerate(rl_tasks)]
    dpo, dpo_skipped = dpo_rows(kept_l, failed, split, reward, dpo_max_pairs)
    steps = [row for t in all_trajs.values()
             for row in step_rows(t, verdict_by_id.get(t.trajectory_id), split(t.blueprint_id), gamma)]
    failed_rows = [R.failed_row(t, v, split(t.blueprint_id)) for t, v in failed]
    check_no_hidden_leak(tasks_by_id, {"sft": sft_rows, "rl": rl_rows, "dpo": dpo, "steps": steps,
                                       "trajectories_failed": failed_rows}, tool_results)

    reject_rows = [R.trajectory_reject_row(r) for r in rejects_l] + echo_rows
    reject_rows += [R.task_reject_row(v, tasks_by_id.get(v.task_id)) for v in tverd_l if not v.passed]
    # groups: the select stage counts every rollout of a task; helped ones (hint_mode != none) are
    # counted apart so pass rates / pass@k stay those of the unhelped policy (R.group_row)
    exported: dict[str, int] = {}
    for t in kept_l:
        if t.hint_mode == "none":
            exported[t.task_id] = exported.get(t.task_id, 0) + 1
    verdicts_by_task: dict[str, list[Verdict]] = {}
    helped: dict[str, dict[str, Any]] = {}
    selected = {t.trajectory_id for t in kept_l} | {  # kept by select: in sft, or dropped by dedupe after
        r[0].trajectory_id if isinstance(r[0], Trajectory) else r[0].get("trajectory_id")
        for r in rejects_l if isinstance(r, (tuple, list)) and len(r) in (3, 4) and r[0] is not None
        and (r[3] if len(r) == 4 else R.stage_of(r[1])) == "dedupe"}
    kept_ids = {t.trajectory_id for t in kept_l}
    for tid, t in all_trajs.items():
        if t.hint_mode == "none":
            if tid in verdict_by_id:
                verdicts_by_task.setdefault(t.task_id, []).append(verdict_by_id[tid])
            continue
        h = helped.setdefault(t.task_id, {"modes": set(), "k": 0, "passes": 0, "kept": 0, "exported": 0})
        h["modes"].add(t.hint_mode)
        if tid in verdict_by_id:
            h["k"] += 1
            h["passes"] += int(verdict_by_id[tid].passed)
        h["kept"] += int(tid in selected)
        h["exported"] += int(tid in kept_ids)
    for h in helped.values():
        h["mode"] = ",".join(sorted(h.pop("modes")))
    table_rows = {
        "sft": sft_rows,
        "rl": rl_rows,
        "rejects": reject_rows,
        "tasks": [R.task_row(t, tverd_by_id.get(t.task_id), split(t.blueprint_id)) for t in tasks_l],
        "blueprints": [R.blueprint_row(b, split(b.blueprint_id)) for b in bps_l],
        "groups": [R.group_row(g, exported.get(g["task_id"], 0), split(g.get("blueprint_id")),
                               verdicts_by_task.get(g["task_id"]),
                               tasks_by_id[g["task_id"]].skills if g["task_id"] in tasks_by_id else None,
                               helped.get(g["task_id"]))
                   for g in groups_l],
        "quarantine": [R.quarantine_row(q) for q in quar_l],
        "dpo": dpo,
        "steps": steps,
        "trajectories_failed": failed_rows,
    }
    check_no_hint_leak(tasks_by_id, all_trajs.values(), table_rows)
    schemas = dict(SCHEMAS)
    schemas["rl"] = rl_schema(tool_names)

    paths: dict[str, str] = {}
    files: dict[str, dict[str, Any]] = {}
    for name, schema in schemas.items():
        path = os.path.join(out_dir, f"{name}.parquet")
        n = write_parquet(path, table_rows[name], schema)
        paths[name] = path
        files[name] = {
            "file": os.path.basename(path),
            "rows": n,
            "bytes": os.path.getsize(path),
            "sha256": sha256_file(path),
        }
        if name in HINT_MODE_COLUMNS:  # rows per help mode of their rollout (dpo: of the chosen side)
            files[name]["rows_by_hint_mode"] = hint_mode_counts(table_rows[name], HINT_MODE_COLUMNS[name])
        if name == "dpo":
            files[name]["rejected_by_hint_mode"] = hint_mode_counts(table_rows[name], "rejected_hint_mode")
    # per-split copies for Hugging Face `datasets` (the card's configs point at them): pipeline.export.hf
    from .hf import ALL, INDEX, write_split_files

    layout = write_split_files(out_dir, list(schemas))
    for name, splits in layout.items():
        if name in files:
            files[name]["splits"] = splits
    files[INDEX] = dict(layout[INDEX][ALL])
    sharegpt_skipped = None
    if llamafactory:
        lf, sharegpt_skipped = write_llamafactory(out_dir, sft_rows)
        paths["llamafactory"] = lf["data"]
        paths["llamafactory_dataset_info"] = lf["dataset_info"]

    n_components = len({c["component"] for c in comps.values()})
    doc = dict(manifest)
    doc["files"] = files
    doc["export"] = {
        "split_seed": split_seed,
        "split_fractions": list(fractions),
        "split_group_key": "connected components of blueprint_id, source customer, source period",
        "split_components": n_components,
        "split_of_blueprint": {bp: c["split"] for bp, c in sorted(comps.items())},
        "holdout_blueprints": sorted(holdout),
        "gamma": gamma,
        "dpo_max_pairs_per_task": dpo_max_pairs,
        "dpo_pairs_skipped": dpo_skipped,
        "sharegpt_skipped": sharegpt_skipped,
        "compression": COMPRESSION,
    }
    mpath = os.path.join(out_dir, "manifest.json")
    tmp = mpath + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2, sort_keys=True, ensure_ascii=False, default=str)
        fh.write("\n")
    os.replace(tmp, mpath)
    paths["manifest"] = mpath
    if card:
        from ..card import write_card

        paths.update(write_card(out_dir))
    return paths
