"""The dataset card: ``README.md`` (Hugging Face dataset-card style) and PNG plots for an export.

The card is built only from what was written (the Parquet files and ``manifest.json``), so it can
be regenerated for any output folder: ``python -m pipeline.card OUT_DIR``. The YAML header follows
the Hugging Face dataset card metadata (https://huggingface.co/docs/hub/datasets-cards and
https://huggingface.co/docs/hub/datasets-manual-configuration): ``license``,
``task_categories``, ``tags`` and one ``configs`` entry per Parquet file with rows, its
``data_files`` one entry per split (``splits/<name>/<split>.parquet``, written by
:func:`pipeline.export.hf.write_split_files`; an export without them gets them here), plus the
``index`` config, so ``datasets.load_dataset(OUT_DIR, "sft")["validation"]`` reads the validation
rows and ``load_dataset(OUT_DIR)`` loads on every export (:func:`pipeline.export.hf.card_configs`).
Plots use matplotlib's Agg backend (no display needed).
"""
from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

import pyarrow.parquet as pq

from pipeline.export.schemas import REWARD_COMPONENT_NAMES, SCHEMAS
from pipeline.fileio import atomic_path, write_text_atomic

#: Short description of each dataset in the card (column docs: docs/datasets.md).
DESCRIPTIONS = {
    "sft": "one row per kept (verified, deduplicated) trajectory: OpenAI `messages`, `tools`, `loss_mask`",
    "rl": "one row per verified task in veRL's layout (`prompt`, `reward_model`, `extra_info`, `agent_name`)",
    "dpo": "preference pairs per task: TRL `prompt` / `chosen` (verified) / `rejected` (failed)",
    "steps": "one row per agent turn: anchor-state key (GiGPO), action, step reward, discounted return",
    "groups": "one row per task: k, passes, pass@1, pass@k, reward mean / std, zero-variance flag (unhelped "
              "rollouts; helped ones in `*_helped`)",
    "trajectories_failed": "rollouts whose verdict failed, with reason codes (analysis only; never in sft)",
    "rejects": "every trajectory or task not kept, with stage and reason code",
    "tasks": "task packages: visible part and the hidden part (NOT for training)",
    "blueprints": "task types extracted from the logs",
    "quarantine": "input records that could not enter a stage, with reason codes",
}


def hint_mode_line(label: str, counts: dict[str, int]) -> str:
    """``"sft rows: 12 (none 3, guided 9); 9 from helped rollouts"`` from rows per help mode
    (listed in :data:`pipeline.rollout.hints.HINT_MODES` order)."""
    from pipeline.export.writer import in_hint_mode_order

    counts = in_hint_mode_order(counts)
    total = sum(counts.values())
    helped = sum(n for m, n in counts.items() if m != "none")
    parts = ", ".join(f"{m} {n}" for m, n in counts.items())
    return f"{label}: {total}" + (f" ({parts})" if parts else "") + f"; {helped} from helped rollouts"


#: What "helped" means, for the card (pipeline.rollout.hints).
HINTED_MEANING = (
    "A helped (hinted) rollout is STaR's rationalization (Zelikman et al. 2022, arXiv:2203.14465) applied to "
    "agent episodes: when the teacher failed a task, it was given help derived from the task's hidden reference "
    "solution **during generation only**: `plan` (the reference's tool sequence and confirmation points, as text "
    "appended to the system prompt), `example` (a worked conversation of another instance of the same task kind, "
    "with other records, appended to the system prompt) or `guided` (the plan text, and the decoding grammar admitted only "
    "the reference's next tool at a tool-call turn; the model wrote every argument value and every word). The help "
    "is never in the data: the exported messages carry the ordinary system prompt, and the exporter refuses to "
    "write when a line of a regenerated help text appears in any column of any file. A helped rollout is kept "
    "only if it verifies like any other and every tool-call argument is grounded in what the conversation showed "
    "(`TRAJ_UNGROUNDED_ARGUMENT`), so it is a demonstration the agent could have produced without the help. "
    "`hint_mode` (dpo: `chosen_hint_mode`, `rejected_hint_mode`) says which help each row's rollout had.")


def _read(out_dir: str, name: str) -> list[dict[str, Any]]:
    path = os.path.join(out_dir, f"{name}.parquet")
    if not os.path.exists(path):
        return []
    return pq.read_table(path).to_pylist()


def _yaml_header(configs: list[dict[str, Any]], license_id: str) -> str:
    """The card's YAML header; ``configs`` from :func:`pipeline.export.hf.card_configs`."""
    lines = ["---", f"license: {license_id}", "task_categories:", "- text-generation",
             "tags:", "- tool-use", "- agents", "- trajectories", "- rlvr", "- synthetic", "configs:"]
    for c in configs:
        lines += [f"- config_name: {c['config_name']}"] + (["  default: true"] if c.get("default") else []) + \
                 ["  data_files:"]
        for df in c["data_files"]:
            lines += [f"  - split: {df['split']}", f"    path: {df['path']}"]
    lines.append("---")
    return "\n".join(lines)


def _table(header: list[str], rows: list[list[Any]]) -> str:
    def fmt(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.3f}"
        return "" if v is None else str(v).replace("|", "\\|")

    out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    out += ["| " + " | ".join(fmt(v) for v in r) + " |" for r in rows]
    return "\n".join(out)


def histogram(values: list[float], bins: int = 10) -> list[tuple[float, float, int]]:
    """Counts of ``values`` in ``bins`` equal bins over ``[0, 1]`` (the last bin closed):
    ``[(low, high, count), ...]``. Values outside ``[0, 1]`` are clipped into the end bins."""
    counts = [0] * bins
    for v in values:
        i = min(bins - 1, max(0, int(float(v) * bins)))
        counts[i] += 1
    return [(i / bins, (i + 1) / bins, c) for i, c in enumerate(counts)]


def _savefig(fig, path: str) -> None:
    """``fig`` as a PNG at ``path``, written under a temporary name and renamed when complete."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=100, format="png")


def _plots(out_dir: str, groups, per_bp, per_skill, comps) -> dict[str, str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = os.path.join(out_dir, "plots")
    os.makedirs(folder, exist_ok=True)
    paths = {}

    fig, ax = plt.subplots(figsize=(6, 3.5))
    rates = [g["pass_rate"] for g in groups if g.get("pass_rate") is not None]
    ax.hist(rates, bins=10, range=(0, 1), color="#4c72b0", edgecolor="white")
    ax.set_xlabel("pass rate per task (passes / k)")
    ax.set_ylabel("tasks")
    ax.set_title(f"Pass-rate histogram ({len(rates)} tasks)")
    fig.tight_layout()
    paths["plot_pass_rate"] = os.path.join(folder, "pass_rate_hist.png")
    _savefig(fig, paths["plot_pass_rate"])
    plt.close(fig)

    for key, data, title in (("plot_blueprints", per_bp, "per blueprint"), ("plot_skills", per_skill, "per skill")):
        fig, ax = plt.subplots(figsize=(7, max(2.5, 0.3 * len(data) + 1)))
        labels = [str(k)[:40] for k in data]
        ax.barh(labels, [v["tasks"] for v in data.values()], color="#dd8452", label="tasks")
        ax.barh(labels, [v["sft"] for v in data.values()], color="#55a868", label="sft rows", height=0.4)
        ax.set_xlabel("count")
        ax.set_title(f"Tasks and sft rows {title}")
        ax.legend(loc="lower right")
        fig.tight_layout()
        paths[key] = os.path.join(folder, f"{key[5:]}.png")
        _savefig(fig, paths[key])
        plt.close(fig)

    names = [n for n in REWARD_COMPONENT_NAMES if comps.get(n)]
    fig, axes = plt.subplots(1, max(1, len(names)), figsize=(3 * max(1, len(names)), 3), squeeze=False)
    for ax, n in zip(axes[0], names):
        ax.hist(comps[n], bins=10, color="#8172b3", edgecolor="white")
        ax.set_title(n)
    if not names:
        axes[0][0].text(0.5, 0.5, "no reward components", ha="center", va="center")
        axes[0][0].set_axis_off()
    fig.suptitle("Reward components (all verified rollouts)")
    fig.tight_layout()
    paths["plot_reward_components"] = os.path.join(folder, "reward_components.png")
    _savefig(fig, paths["plot_reward_components"])
    plt.close(fig)
    return paths


def reward_routes(tasks: list[dict[str, Any]], rl: list[dict[str, Any]], sft: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tasks, rl rows and sft rows per reward route: one ``{"domain", "route", "chain", "tasks",
    "rl", "sft"}`` per (domain, route id), sorted. The route of a task is the one its domain's
    routing table picks for its kind and expected outcome (:func:`pipeline.verify.router.route_for`);
    a task whose domain table cannot route it counts under ``"(no route)"``."""
    from pipeline.verify.router import load_table, route_for

    route_of: dict[str, tuple[str, str, tuple[str, ...]]] = {}
    for t in tasks:
        dom = t.get("domain") or "?"
        try:
            r = route_for(load_table(dom), t.get("task_kind"), t.get("expected_outcome") or "action")
            route_of[t["task_id"]] = (dom, r.route_id, tuple(r.chain))
        except ValueError:
            route_of[t["task_id"]] = (dom, "(no route)", ())
    out: dict[tuple[str, str, tuple[str, ...]], dict[str, Any]] = {}
    for key in route_of.values():
        out.setdefault(key, {"domain": key[0], "route": key[1], "chain": list(key[2]), "tasks": 0, "rl": 0, "sft": 0})
    for t in tasks:
        out[route_of[t["task_id"]]]["tasks"] += 1
    for name, rows in (("rl", rl), ("sft", sft)):
        for r in rows:
            key = route_of.get(r.get("task_id"))
            if key is not None:
                out[key][name] += 1
    return [out[k] for k in sorted(out)]


def write_card(out_dir: str, plots: bool = True, manifest: dict[str, Any] | None = None) -> dict[str, str]:
    """Write ``README.md`` (and ``plots/*.png`` when ``plots``) into an export folder.

    Sections: summary counts per dataset and split, provenance (input sha256, model, backend,
    seed, versions, config from ``manifest.json``), rows from helped rollouts by mode and what
    helped means (:data:`HINTED_MEANING`), pass-rate histogram (unhelped rollouts), per-blueprint and
    per-skill counts, tasks and rows per reward route (:func:`reward_routes`), reward-component
    distributions, and how to load each dataset. ``manifest`` is the export's manifest (default:
    read from ``manifest.json``; the exporter passes it, as it writes the manifest last). Every file
    is written under a temporary name and renamed when complete.
    Returns ``{"card": path, "plot_*": path, ...}``.

    Raises:
        FileNotFoundError: no ``manifest`` given and ``out_dir`` has no ``manifest.json``.
    """
    if manifest is None:
        mpath = os.path.join(out_dir, "manifest.json")
        if not os.path.exists(mpath):
            raise FileNotFoundError(f"no manifest.json in {out_dir}: not an export folder")
        with open(mpath, encoding="utf-8") as fh:
            manifest = json.load(fh)
    files = [n for n in SCHEMAS if os.path.exists(os.path.join(out_dir, f"{n}.parquet"))]
    from pipeline.export.hf import card_configs, read_layout, write_split_files

    layout = read_layout(out_dir)
    if any(n not in layout for n in files):  # an export written before per-split files: add them
        write_split_files(out_dir, files)
        layout = read_layout(out_dir)
    configs = card_configs(layout)
    default_config = next(c["config_name"] for c in configs if c.get("default"))
    empty_files = [n for n in files if not layout.get(n)]
    data = {n: _read(out_dir, n) for n in ("sft", "rl", "dpo", "steps", "groups", "tasks", "blueprints",
                                           "trajectories_failed")}
    groups, tasks = data["groups"], data["tasks"]

    per_bp: dict[str, dict[str, Any]] = {}
    for t in tasks:
        d = per_bp.setdefault(t["blueprint_id"], {"tasks": 0, "rollouts": 0, "passes": 0, "sft": 0, "split": t.get("split")})
        d["tasks"] += 1
    for g in groups:
        d = per_bp.setdefault(g["blueprint_id"], {"tasks": 0, "rollouts": 0, "passes": 0, "sft": 0, "split": g.get("split")})
        d["rollouts"] += g.get("k") or 0
        d["passes"] += g.get("passes") or 0
        d["helped_rollouts"] = d.get("helped_rollouts", 0) + (g.get("k_helped") or 0)
        d["helped_passes"] = d.get("helped_passes", 0) + (g.get("passes_helped") or 0)
    for r in data["sft"]:
        per_bp.setdefault(r["blueprint_id"], {"tasks": 0, "rollouts": 0, "passes": 0, "sft": 0, "split": r["split"]})["sft"] += 1
    skills_of = {t["task_id"]: t.get("skills") or [] for t in tasks}
    per_skill: dict[str, dict[str, int]] = {}
    for t in tasks:
        for s in skills_of[t["task_id"]] or ["(none)"]:
            per_skill.setdefault(s, {"tasks": 0, "sft": 0})["tasks"] += 1
    for r in data["sft"]:
        for s in skills_of.get(r["task_id"]) or ["(none)"]:
            per_skill.setdefault(s, {"tasks": 0, "sft": 0})["sft"] += 1
    comps: dict[str, list[float]] = {n: [] for n in REWARD_COMPONENT_NAMES}
    for r in data["sft"] + data["trajectories_failed"]:
        rc = r.get("reward_components") or {}
        for n in REWARD_COMPONENT_NAMES:
            if rc.get(n) is not None:
                comps[n].append(float(rc[n]))

    routes = reward_routes(tasks, data["rl"], data["sft"])

    paths: dict[str, str] = {}
    if plots:
        paths.update(_plots(out_dir, groups, per_bp, per_skill, comps))

    def by_mode(rows: list[dict[str, Any]], column: str = "hint_mode") -> dict[str, int]:
        from pipeline.export.writer import hint_mode_counts

        return hint_mode_counts(rows, column)

    helped_groups = [g for g in groups if (g.get("k_helped") or 0) > 0]
    hk_total = sum(g.get("k_helped") or 0 for g in helped_groups)
    hp_total = sum(g.get("passes_helped") or 0 for g in helped_groups)
    hinted = [
        "- " + hint_mode_line("sft rows", by_mode(data["sft"])),
        "- " + hint_mode_line("dpo pairs (chosen side)", by_mode(data["dpo"], "chosen_hint_mode")),
        "- " + hint_mode_line("dpo pairs (rejected side)", by_mode(data["dpo"], "rejected_hint_mode")),
        "- " + hint_mode_line("steps rows", by_mode(data["steps"])),
        "- " + hint_mode_line("trajectories_failed rows", by_mode(data["trajectories_failed"])),
        f"- groups: {len(helped_groups)} of {len(groups)} tasks had helped rollouts"
        + (" (" + ", ".join(f"{m} {n}" for m, n in sorted(Counter(g.get("hint_mode") for g in helped_groups).items()))
           + f"): {hk_total} helped rollouts, {hp_total} verified" if helped_groups else ""),
    ]
    config = manifest.get("config") or {}
    split_by = str((config.get("export") or {}).get("split_by") or config.get("split_by") or "customer,period")
    counts = manifest.get("files") or {}
    split_counts = Counter((n, r.get("split")) for n in ("sft", "rl", "dpo", "steps") for r in data[n])
    splits = sorted({s for _, s in split_counts if s})
    rates = [g["pass_rate"] for g in groups if g.get("pass_rate") is not None]
    k_total = sum(g.get("k") or 0 for g in groups)
    p_total = sum(g.get("passes") or 0 for g in groups)
    zero_var = sum(1 for g in groups if g.get("zero_variance"))

    md = [_yaml_header(configs, str(config.get("license") or "other")), "",
          "# trajpipe dataset", "",
          "Verified multi-turn tool-use trajectories produced by trajpipe from customer-service logs: "
          "task blueprints extracted from (pseudonymized) logs, fresh fictional task instances in a sandbox, "
          "teacher rollouts checked by verifiers. Column-by-column documentation: `docs/datasets.md` of trajpipe.",
          "", "## Datasets", "",
          _table(["config", "rows", "what"], [[n, (counts.get(n) or {}).get("rows"), DESCRIPTIONS.get(n, "")] for n in files]),
          "", "Rows per split (the `split` column; splits are assigned by connected group of blueprint"
          + "".join(f", source {k}" for k in split_by.split(",") if k.strip() in ("customer", "period"))
          + f" (`--split-by {split_by}`), never by row):", "",
          _table(["dataset"] + splits, [[n] + [split_counts.get((n, s), 0) for s in splits] for n in ("sft", "rl", "dpo", "steps")]),
          "", "## Provenance", "",
          _table(["field", "value"], [
              ["input sha256", manifest.get("input_sha256")],
              ["input", manifest.get("input_path") or config.get("input_path")],
              ["model", manifest.get("model")], ["backend", manifest.get("backend")],
              ["seed", manifest.get("seed")], ["trajpipe version", manifest.get("trajpipe_version")],
              ["created (unix)", manifest.get("created_unix")],
              ["split components", (manifest.get("export") or {}).get("split_components")],
              ["holdout blueprints", ", ".join((manifest.get("export") or {}).get("holdout_blueprints") or []) or "none"],
              ["gamma (steps)", (manifest.get("export") or {}).get("gamma")],
          ]), "",
          "Versions: " + ", ".join(f"{k} {v}" for k, v in sorted((manifest.get("versions") or {}).items())), "",
          "Config (`RunConfig`; run id " + str(manifest.get("run_id")) + "):", "", "```json",
          json.dumps(config, indent=1, sort_keys=True, default=str), "```", "",
          "## Helped rollouts", "", *hinted, "", HINTED_MEANING, "",
          "## Pass rates", "",
          f"{len(groups)} tasks, {k_total} rollouts, {p_total} verified "
          f"({(p_total / k_total if k_total else 0):.3f}); {zero_var} zero-variance groups (all pass or all fail). "
          "Pass rates, pass@k and the zero-variance flag count unhelped rollouts only (the RL-relevant numbers: "
          "the policy gets no help); helped rollouts are counted apart (`groups.k_helped`, `passes_helped`).", "",
          _table(["pass rate", "tasks"], [[f"[{lo:.1f}, {hi:.1f}{']' if hi >= 1 else ')'}", c] for lo, hi, c in histogram(rates)]),
          "", "![pass-rate histogram](plots/pass_rate_hist.png)" if plots else "", "",
          "## Per blueprint", "",
          _table(["blueprint", "split", "tasks", "rollouts", "passes", "helped rollouts", "helped passes", "sft rows"],
                 [[bp, d["split"], d["tasks"], d["rollouts"], d["passes"], d.get("helped_rollouts", 0),
                   d.get("helped_passes", 0), d["sft"]] for bp, d in sorted(per_bp.items())]),
          "", "![per blueprint](plots/blueprints.png)" if plots else "", "",
          "## Per skill", "",
          _table(["skill", "tasks", "sft rows"], [[s, d["tasks"], d["sft"]] for s, d in sorted(per_skill.items())]),
          "", "![per skill](plots/skills.png)" if plots else "", "",
          "## Reward routes", "",
          "Each task type (domain, kind, expected outcome) is scored by the chain of reward tools its domain's "
          "routing table names (`pipeline/verify/router.py`, docs/rewards.md); each tool was reverse-validated "
          "before it was admitted.", "",
          _table(["domain", "route", "chain", "tasks", "rl rows", "sft rows"],
                 [[r["domain"], r["route"], " > ".join(r["chain"]), r["tasks"], r["rl"], r["sft"]] for r in routes]),
          "",
          "## Reward components", "",
          _table(["component", "n", "mean", "min", "max"],
                 [[n, len(v), sum(v) / len(v), min(v), max(v)] if v else [n, 0, None, None, None]
                  for n, v in comps.items()]),
          "", "![reward components](plots/reward_components.png)" if plots else "", "",
          "## Loading", "",
          "Each file is a config and each value of its `split` column a split (`splits/<config>/<split>.parquet`; "
          "files without a `split` column have the split `full`). Splits and files without rows are not declared: "
          "`datasets` cannot load an empty split (huggingface/datasets#8401). `index` lists every file and split "
          f"with its row count; the default config is `{default_config}`."
          + (" No rows in: " + ", ".join(f"`{n}`" for n in empty_files)
             + " (`pipeline.export.hf.load_export(OUT, name)` gives them as empty datasets)." if empty_files else ""),
          "", "```python",
          "from datasets import load_dataset",
          'sft = load_dataset("OUT", "sft")          # DatasetDict: train / validation / test (/ holdout); TRL SFTTrainer',
          'rl = load_dataset("OUT", "rl")["train"]   # veRL: data.train_files=OUT/splits/rl/train.parquet',
          "from pipeline.rewards import compute_score  # veRL custom_reward_function",
          "```", "",
          "Tool-call `arguments` in `messages` (sft, dpo, trajectories_failed) are a JSON-typed column: `datasets` "
          "gives objects, as model chat templates expect; pyarrow and pandas give the JSON text "
          "(`pipeline.export.chat.template_messages` turns those into objects).", "",
          "LLaMA-Factory: `llamafactory/trajpipe_sft.json` + `llamafactory/dataset_info.json` (sharegpt with tools).",
          "", "## Hidden information", "",
          "`tasks.parquet` holds each task's hidden part (reference solution, verifier, expected state, generation "
          "notes) and `rl.reward_model.ground_truth` the verifier's inputs; neither is model-visible. The exporter "
          "refuses to write when a hidden value appears in a model-visible column of any dataset.", ""]
    card = os.path.join(out_dir, "README.md")
    write_text_atomic(card, "\n".join(md))
    paths["card"] = card
    return paths


if __name__ == "__main__":  # pragma: no cover
    import sys

    print(write_card(sys.argv[1]))
