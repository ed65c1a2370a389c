"""The leak audit: nothing hidden and no help text reaches an exported file.

* :func:`check_no_hidden_leak`: a task's hidden part (reference solution, verifier, generation
  notes, expected state hash: :func:`hidden_secrets`) never appears in a model-visible column
  (:data:`pipeline.export.schemas.MODEL_VISIBLE`) of any dataset;
* :func:`help_echoes`: helped rollouts that repeat their help text (withheld from every file,
  ``EXPORT_HELP_ECHO``); :func:`check_no_hint_leak`: help text shown to a teacher
  (:func:`hint_lines`) never appears in any column of any file.

Each check raises ValueError naming the dataset, row and task (never the secret itself); the
exporter runs them on the rows before anything is written.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Iterable

from ..records import TaskPackage, Trajectory, canonical_json

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
