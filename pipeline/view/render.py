"""Write the static HTML report (``OUT/view/``) from a :class:`~pipeline.view.load.RunData`.

Layout of the report folder::

    index.html                 run summary, blueprints with pass rates, reason codes, links
    trajectories-0001.html...  trajectory list, PAGE_SIZE rows a page, filters (assets/view.js)
    tasks-0001.html...         task list with pass rates, filters
    rejects-0001.html...       what was not kept (stage, reason code) + quarantine
    anonymization.html         counts per entity type and recognizer, residual findings by record id
    t/<trajectory>.html        one trajectory: chat, verdict, state diff, reward, faults, task panel
    task/<task>.html           one task: visible part beside the hidden part, its rollouts
    assets/view.css, view.js, data.js

Only ``t/`` and ``task/`` pages show hidden task parts, and only inside elements of class
``hidden-part`` that say so on screen; every other page is a *dataset page* and never shows any.
"""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from .chat import chat_items, pretty, state_diff_rows
from .load import RunData

HERE = Path(__file__).resolve().parent
PAGE_SIZE = 250  # rows per list page
REJECT_PAGE_SIZE = 500
MAX_SIBLINGS = 12  # other rollouts of the task listed on a trajectory page (all on the task page)
#: Anonymization report keys shown as per-key count tables (never values: the report has none).
ANON_COUNT_TABLES = (("by_entity", "replacements per entity type"),
                     ("entities", "distinct real values per entity type"),
                     ("detections", "detections per entity type"),
                     ("sources", "detections per recognizer / rule"))
ANON_SCALARS = ("records", "distinct_real_values", "texts_analyzed", "ner_cache_hits", "person_spans_dropped",
                "phone_spans_dropped")


@dataclass
class ViewResult:
    """What :func:`render_view` wrote: the report folder, its index page, page counts by kind,
    total bytes written, and seconds spent rendering and writing."""

    folder: Path
    index: Path
    pages: dict[str, int] = field(default_factory=dict)
    bytes: int = 0
    seconds: float = 0.0


_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def safe_name(ident: str) -> str:
    """A file name for an id: unchanged when it is already safe and short, else a cleaned prefix
    plus 8 hex digits of its SHA-256 (distinct ids never share a name)."""
    s = _SAFE.sub("_", ident)
    if s == ident and 0 < len(s) <= 120 and not s.startswith("."):
        return s
    return s[:100].lstrip(".") + "-" + hashlib.sha256(ident.encode("utf-8")).hexdigest()[:8]


def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / "templates")),
                             autoescape=jinja2.select_autoescape(["html"]), trim_blocks=True, lstrip_blocks=True)
    env.filters["pct"] = lambda x: "–" if x is None else f"{100 * x:.0f}%"
    env.filters["num"] = lambda x: "–" if x is None else (f"{x:.3g}" if isinstance(x, float) else str(x))
    env.filters["safe_name"] = safe_name
    env.filters["pretty"] = pretty
    return env


def _rate(p: int, n: int) -> float | None:
    return p / n if n else None


def _page_name(kind: str, i: int) -> str:
    return f"{kind}-{i + 1:04d}.html"


def _pages(rows: list, size: int) -> list[list]:
    return [rows[i:i + size] for i in range(0, len(rows), size)] or [[]]


def _strip_state_diff(detail: Any) -> str:
    """A reject's detail without the verifier's state diff (its expected side comes from the
    hidden reference): the codes and counts stay."""
    if not isinstance(detail, str) or not detail.startswith("{"):
        return str(detail or "")
    try:
        d = json.loads(detail)
    except json.JSONDecodeError:
        return detail
    if isinstance(d, dict):
        inner = d.get("details")
        if isinstance(inner, dict):
            inner = {k: v for k, v in inner.items() if k != "state_diff"}
            d["details"] = inner
        d.pop("state_diff", None)
        parts = []
        if d.get("other_reason_codes"):
            parts.append("also " + ", ".join(d["other_reason_codes"]))
        for k, v in (d.get("details") or {}).items():
            parts.append(f"{k}={v}")
        for k, v in d.items():
            if k not in ("details", "other_reason_codes"):
                parts.append(f"{k}={v}")
        return "; ".join(parts)
    return detail


def _anon_view(report: dict[str, Any] | None) -> dict[str, Any] | None:
    """Only counts and ids from the anonymizer's report: whitelisted keys, residual items reduced
    to ``record_id`` / ``entity`` / ``recognizer`` (a value can never reach the page)."""
    if not report:
        return None
    tables = []
    for key, title in ANON_COUNT_TABLES:
        d = report.get(key)
        if isinstance(d, dict) and d:
            rows = sorted(((str(k), v) for k, v in d.items() if isinstance(v, (int, float))), key=lambda kv: (-kv[1], kv[0]))
            tables.append({"key": key, "title": title, "rows": rows, "total": sum(v for _, v in rows)})
    res = report.get("residual") or {}
    items = [{"record_id": str(x.get("record_id")), "entity": str(x.get("entity")), "recognizer": str(x.get("recognizer"))}
             for x in (res.get("items") or []) if isinstance(x, dict)]
    by_record: dict[str, list[dict]] = defaultdict(list)
    for x in items:
        by_record[x["record_id"]].append(x)
    return {"scalars": [(k, report[k]) for k in ANON_SCALARS if isinstance(report.get(k), (int, float))],
            "tables": tables,
            "residual": {"enabled": res.get("enabled"), "records_scanned": res.get("records_scanned"),
                         "count": res.get("count"), "real_values": res.get("real_values"),
                         "by_entity": sorted((str(k), v) for k, v in (res.get("by_entity") or {}).items()),
                         "by_record": sorted(by_record.items())}}


def _task_summary(task: dict[str, Any] | None) -> dict[str, Any]:
    if not task:
        return {}
    vis = task.get("visible") or {}
    return {"task_id": task.get("task_id"), "instruction": vis.get("instruction", ""),
            "user_messages": vis.get("user_messages") or [], "task_kind": task.get("task_kind"),
            "variant": task.get("variant"), "expected_outcome": task.get("expected_outcome"),
            "skills": task.get("skills") or [], "verified": task.get("verified"),
            "tools": [((t.get("function") or t).get("name")) for t in vis.get("tools") or []]}


def _hidden_view(task: dict[str, Any] | None, full: bool) -> dict[str, Any] | None:
    """The hidden part for a ``hidden-part`` panel: reference solution calls (pretty arguments),
    verifier, expected state hash; ``full`` adds generation notes and the initial state."""
    h = (task or {}).get("hidden")
    if not h:
        return None
    ref = [{"name": c.get("name"), "arguments": pretty(c.get("arguments") or {})} for c in h.get("reference_solution") or []]
    out = {"reference": ref, "verifier": pretty(h.get("verifier") or {}),
           "expected_state_hash": h.get("expected_state_hash")}
    if full:
        out["generation_notes"] = pretty(h.get("generation_notes") or {})
        out["initial_state"] = json.dumps(h.get("initial_state") or {}, ensure_ascii=False, sort_keys=True)
    return out


def render_view(data: RunData, dest: str | Path | None = None, page_size: int = PAGE_SIZE) -> ViewResult:
    """Write the report for ``data`` into ``dest`` (default ``data.out / "view"``), replacing an
    earlier report there. Returns a :class:`ViewResult` (pages per kind, bytes, seconds).

    Raises OSError when ``dest`` cannot be written."""
    t0 = time.perf_counter()
    folder = Path(dest) if dest is not None else data.out / "view"
    if folder.exists():
        shutil.rmtree(folder)
    for sub in ("t", "task", "assets"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    env = _env()
    res = ViewResult(folder=folder, index=folder / "index.html")
    written = {"bytes": 0}

    def write(rel: str, text: str, kind: str) -> None:
        p = folder / rel
        b = text.encode("utf-8")
        p.write_bytes(b)
        written["bytes"] += len(b)
        res.pages[kind] = res.pages.get(kind, 0) + 1

    for name in ("view.css", "view.js"):
        write(f"assets/{name}", (HERE / "static" / name).read_text(encoding="utf-8"), "assets")

    tasks, verdicts = data.tasks, data.verdicts
    trajs = sorted(data.trajectories, key=lambda t: (t.get("blueprint_id") or "", t.get("task_id") or "",
                                                       t["trajectory_id"]))
    run = {"model": (data.manifest or {}).get("model") or next((t.get("model") for t in trajs if t.get("model")), None),
           "backend": (data.manifest or {}).get("backend") or next((t.get("backend") for t in trajs if t.get("backend")), None),
           "out": str(data.out), "work": str(data.work) if data.work else None}

    # ------------------------------------------------------------------ per-trajectory rows
    rows = []
    per_task: dict[str, list[dict]] = defaultdict(list)
    for t in trajs:
        v = verdicts.get(t["trajectory_id"])
        task = tasks.get(t.get("task_id")) or {}
        row = {"id": t["trajectory_id"], "href": "t/" + safe_name(t["trajectory_id"]) + ".html",
               "task_id": t.get("task_id"), "blueprint_id": t.get("blueprint_id") or task.get("blueprint_id"),
               "split": t.get("split") or task.get("split"), "passed": None if v is None else bool(v.get("passed")),
               "reward": None if v is None else v.get("reward"),
               "codes": list((v or {}).get("reason_codes") or []), "hint_mode": t.get("hint_mode") or "none",
               "recovery": bool(t.get("recovery")), "faults": len(t.get("faults") or []),
               "skills": list(task.get("skills") or []), "finish": t.get("finish_reason"),
               "turns": t.get("n_turns")}
        rows.append(row)
        per_task[row["task_id"]].append(row)

    def stats(rs: list[dict]) -> dict[str, Any]:
        judged = [r for r in rs if r["passed"] is not None]
        unh = [r for r in judged if r["hint_mode"] == "none"]
        p = sum(r["passed"] for r in judged)
        return {"rollouts": len(rs), "judged": len(judged), "passes": p, "rate": _rate(p, len(judged)),
                "helped": sum(r["hint_mode"] != "none" for r in rs),
                "unhelped_rate": _rate(sum(r["passed"] for r in unh), len(unh))}

    # ------------------------------------------------------------------ task rows
    task_rows = []
    for tid in sorted(set(tasks) | set(per_task), key=str):
        task = tasks.get(tid) or {}
        st = stats(per_task.get(tid, []))
        bp = task.get("blueprint_id") or (per_task[tid][0]["blueprint_id"] if per_task.get(tid) else None)
        task_rows.append({"id": tid, "href": "task/" + safe_name(str(tid)) + ".html", "blueprint_id": bp,
                          "split": task.get("split"), "kind": task.get("task_kind"), "variant": task.get("variant"),
                          "outcome": task.get("expected_outcome"), "skills": list(task.get("skills") or []),
                          "verified": task.get("verified"), "task_codes": list(task.get("task_reason_codes") or []),
                          **st})

    # ------------------------------------------------------------------ blueprint rows
    bp_ids = sorted(set(data.blueprints) | {r["blueprint_id"] for r in task_rows if r["blueprint_id"]})
    tasks_of_bp: dict[str, list[dict]] = defaultdict(list)
    for r in task_rows:
        tasks_of_bp[r["blueprint_id"]].append(r)
    rows_of_bp: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        rows_of_bp[r["blueprint_id"]].append(r)
    bp_rows = []
    for b in bp_ids:
        bp = data.blueprints.get(b) or {}
        bp_rows.append({"id": b, "intent": bp.get("intent") or "", "kind": bp.get("task_kind"),
                        "skills": list(bp.get("skills") or []), "n_logs": bp.get("n_logs"),
                        "tasks": len(tasks_of_bp.get(b, [])),
                        "verified": sum(1 for r in tasks_of_bp.get(b, []) if r["verified"]),
                        **stats(rows_of_bp.get(b, []))})

    # ------------------------------------------------------------------ facets for the filters
    def facet(key: str, many: bool = False, of: list[dict] = rows) -> list[str]:
        c: Counter = Counter()
        for r in of:
            for x in (r[key] if many else [r[key]]):
                if x is not None:
                    c[x] += 1
        return sorted(c)

    facets = {"split": facet("split", of=rows + task_rows), "blueprint": bp_ids,
              "skill": facet("skills", True, rows + task_rows), "reason": facet("codes", True),
              "hint_mode": facet("hint_mode")}
    code_counts = Counter(c for r in rows for c in r["codes"])
    summary = {"trajectories": len(rows), "judged": sum(r["passed"] is not None for r in rows),
               "passed": sum(bool(r["passed"]) for r in rows), "tasks": len(task_rows),
               "verified_tasks": sum(1 for r in task_rows if r["verified"]), "blueprints": len(bp_rows),
               "rejects": len(data.rejects), "quarantine": len(data.quarantine),
               "hinted": sum(r["hint_mode"] != "none" for r in rows), "recovery": sum(r["recovery"] for r in rows),
               "faulted": sum(r["faults"] > 0 for r in rows),
               "by_hint_mode": sorted(Counter(r["hint_mode"] for r in rows).items()),
               "sft_rows": sum(1 for t in trajs if t.get("source") == "sft.parquet") or
               (((data.manifest or {}).get("files") or {}).get("sft") or {}).get("rows")}
    summary["rate"] = _rate(summary["passed"], summary["judged"])

    # ------------------------------------------------------------------ data.js (filters)
    traj_cols = ["id", "href", "task_id", "blueprint_id", "split", "passed", "reward", "codes", "hint_mode",
                 "recovery", "faults", "skills", "finish", "turns"]
    task_cols = ["id", "href", "blueprint_id", "split", "kind", "variant", "outcome", "skills", "verified",
                 "task_codes", "rollouts", "passes", "rate", "helped"]
    blob = {"trajectories": {"cols": traj_cols, "rows": [[r[c] for c in traj_cols] for r in rows]},
            "tasks": {"cols": task_cols, "rows": [[r[c] for c in task_cols] for r in task_rows]}}
    write("assets/data.js", "window.TRAJPIPE_DATA = " + json.dumps(blob, separators=(",", ":"), ensure_ascii=False)
          .replace("</", "<\\/") + ";\n", "assets")

    common = {"run": run, "summary": summary, "facets": facets, "missing": data.missing}
    rejects = sorted(data.rejects, key=lambda r: (r.get("stage") or "", r.get("reason_code") or "", str(r.get("id"))))
    traj_pages, task_pages, rej_pages = _pages(rows, page_size), _pages(task_rows, page_size), _pages(rejects, REJECT_PAGE_SIZE)
    nav = {"trajectories": _page_name("trajectories", 0), "tasks": _page_name("tasks", 0),
           "rejects": _page_name("rejects", 0), "anonymization": "anonymization.html", "index": "index.html"}
    common["nav"] = nav

    tpl = env.get_template("index.html")
    write("index.html", tpl.render(base="", title="trajpipe run", bps=bp_rows,
                                   code_counts=sorted(code_counts.items(), key=lambda kv: (-kv[1], kv[0])),
                                   stage_counts=((data.manifest or {}).get("counts") or {}), **common), "index")

    tpl = env.get_template("list.html")
    for kind, pages, total in (("trajectories", traj_pages, len(rows)), ("tasks", task_pages, len(task_rows))):
        for i, page in enumerate(pages):
            write(_page_name(kind, i), tpl.render(
                base="", title=f"{kind} {i + 1}/{len(pages)}", kind=kind, rows=page, page=i, n_pages=len(pages),
                total=total, first=i * page_size, page_names=[_page_name(kind, j) for j in range(len(pages))],
                page_size=page_size, **common), kind + "_list")

    tpl = env.get_template("rejects.html")
    rej_counts = Counter((r.get("kind"), r.get("stage"), r.get("reason_code")) for r in rejects)
    q_counts = Counter((q.get("stage"), q.get("reason_code")) for q in data.quarantine)
    traj_ids = {r["id"] for r in rows}
    task_ids = {r["id"] for r in task_rows}
    for i, page in enumerate(rej_pages):
        shown = [{**r, "detail": _strip_state_diff(r.get("detail")),
                  "href": ("t/" + safe_name(str(r["id"])) + ".html") if r.get("kind") == "trajectory" and r.get("id") in traj_ids
                  else ("task/" + safe_name(str(r["id"])) + ".html") if r.get("id") in task_ids else None}
                 for r in page]
        write(_page_name("rejects", i), tpl.render(
            base="", title=f"rejects {i + 1}/{len(rej_pages)}", rows=shown, page=i, n_pages=len(rej_pages),
            page_names=[_page_name("rejects", j) for j in range(len(rej_pages))],
            counts=sorted(rej_counts.items(), key=lambda kv: (-kv[1], [str(x) for x in kv[0]])),
            quarantine=data.quarantine if i == 0 else [], q_counts=sorted(q_counts.items(), key=lambda kv: -kv[1]),
            **common), "rejects")

    write("anonymization.html", env.get_template("anonymization.html").render(
        base="", title="anonymization", anon=_anon_view(data.anonymization), **common), "anonymization")

    # ------------------------------------------------------------------ one page per trajectory
    tpl = env.get_template("trajectory.html")
    row_of = {r["id"]: r for r in rows}
    for t in trajs:
        v = verdicts.get(t["trajectory_id"])
        task = tasks.get(t.get("task_id"))
        chat = chat_items(t, v)
        sibs = [s for s in per_task.get(t.get("task_id"), []) if s["id"] != t["trajectory_id"]]
        write("t/" + safe_name(t["trajectory_id"]) + ".html", tpl.render(
            base="../", title=t["trajectory_id"], t=t, row=row_of[t["trajectory_id"]], v=v, chat=chat,
            diff=state_diff_rows(((v or {}).get("details") or {}).get("state_diff")),
            task=_task_summary(task), hidden=_hidden_view(task, full=False),
            task_href="../task/" + safe_name(str(t.get("task_id"))) + ".html", siblings=sibs[:MAX_SIBLINGS],
            n_siblings=len(sibs),
            details={k: x for k, x in ((v or {}).get("details") or {}).items() if k != "state_diff"}, **common),
            "trajectory")

    # ------------------------------------------------------------------ one page per task
    tpl = env.get_template("task.html")
    for r in task_rows:
        task = tasks.get(r["id"])
        vis = (task or {}).get("visible") or {}
        write("task/" + safe_name(str(r["id"])) + ".html", tpl.render(
            base="../", title=str(r["id"]), r=r, task=_task_summary(task), hidden=_hidden_view(task, full=True),
            policy=vis.get("policy") or "", tools=[pretty(x) for x in vis.get("tools") or []],
            rollouts=per_task.get(r["id"], []), has_task=task is not None, **common), "task")

    res.bytes = written["bytes"]
    res.seconds = time.perf_counter() - t0
    return res
