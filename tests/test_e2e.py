"""End-to-end: the real Prefect flow on a slice of the real airline logs, then every output
file is queried through DuckDB and scanned for the input's personal data."""
from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from tests.conftest import AIRLINE_LOGS, ROOT

pytestmark = pytest.mark.slow

EXPECTED_FILES = {"sft", "rl", "rejects", "tasks", "blueprints", "groups", "quarantine"}


def personal_values(runs: list[dict], users: dict) -> set[str]:
    """Every name, email, address, zip, date of birth, payment id, user id and reservation id
    that the input side holds for the customers in ``runs`` (from users.json and from tool results)."""
    vals: set[str] = set()

    def from_user(uid: str, u: dict) -> None:
        vals.add(uid)
        vals.add(f"{u['name']['first_name']} {u['name']['last_name']}")
        vals.update([u["email"], u["dob"], u["address"]["address1"], u["address"]["zip"]])
        vals.update(u["payment_methods"].keys())
        vals.update(u.get("reservations", []))
        for p in u.get("saved_passengers", []):
            vals.add(f"{p['first_name']} {p['last_name']}")
            vals.add(p["dob"])

    for run in runs:
        uid = run["info"]["task"].get("user_id")
        if uid in users:
            from_user(uid, users[uid])
        for m in run["traj"]:
            if m.get("role") != "tool":
                continue
            try:
                obj = json.loads(m["content"])
            except (json.JSONDecodeError, TypeError):
                continue
            if isinstance(obj, dict) and "passengers" in obj:
                for p in obj["passengers"]:
                    vals.add(f"{p['first_name']} {p['last_name']}")
                    vals.add(p["dob"])
                for ph in obj.get("payment_history", []):
                    vals.add(ph["payment_id"])
                vals.add(obj.get("reservation_id", ""))
    return {v for v in vals if v and len(v) >= 5}


def output_texts(out: Path) -> dict[str, str]:
    texts = {}
    for f in sorted(out.rglob("*")):
        if f.suffix == ".parquet":
            texts[f.name] = json.dumps(pq.read_table(f).to_pylist(), default=str)
        elif f.is_file() and f.suffix in (".json", ".md", ".jsonl", ".txt", ".csv"):
            texts[f.name] = f.read_text(errors="replace")
    return texts


def test_flow_on_real_logs_slice(shared_data, prefect_harness, tmp_path):
    from flows.trajpipe_flow import run_config, trajpipe_run

    out = tmp_path / "out"
    limit = 16
    manifest = trajpipe_run(run_config(
        seed=0, work_dir=str(tmp_path / "work"), ingest={"input_path": str(AIRLINE_LOGS), "limit": limit},
        synthesize={"tasks_per_blueprint": 1}, rollout={"k": 2, "max_turns": 3, "max_new_tokens": 48, "batch_size": 8},
        select={"cap": 2}, export={"out_dir": str(out)}))
    c = manifest["counts"]
    print(json.dumps({k: v for k, v in c.items() if k != "blueprints"}, indent=1), manifest["wall_seconds"])
    # every record that entered a stage left it as output or as a reject
    assert c["ingest"]["in"] == limit == c["ingest"]["ok"] + c["ingest"]["quarantined"]
    assert c["anonymize"]["in"] == c["anonymize"]["ok"] + c["anonymize"]["quarantined"]
    assert c["blueprints"]["blueprints"] >= 2 and c["blueprints"]["with_generator"] >= 1
    assert c["verify_task"]["in"] == c["synthesize"]["tasks"] >= 1
    assert c["verify_task"]["passed"] >= 1
    assert c["rollout"]["trajectories"] == 2 * c["verify_task"]["passed"]
    assert c["rollout"]["tokens"]["completion"] > 0
    assert c["select"]["in"] == c["select"]["kept_after_dedupe"] + c["select"]["rejected"]
    assert manifest["model"] and manifest["versions"]["transformers"]

    # DuckDB queries every output file
    files = {p.stem for p in out.glob("*.parquet")}
    assert EXPECTED_FILES <= files
    con = duckdb.connect()
    for name in files:
        n = con.execute(f"select count(*) from read_parquet('{out / (name + '.parquet')}')").fetchone()[0]
        assert n >= 0
    n_rl = con.execute(f"select count(*) from read_parquet('{out}/rl.parquet')").fetchone()[0]
    assert n_rl == c["verify_task"]["passed"]
    n_rej = con.execute(f"select count(*) from read_parquet('{out}/rejects.parquet') where kind = 'trajectory'").fetchone()[0]
    assert n_rej == c["select"]["rejected"]

    # no personal value of the input reaches any output file
    runs = json.loads(AIRLINE_LOGS.read_text())[:limit]
    users = json.loads((shared_data / "airline" / "users.json").read_text())
    pii = personal_values(runs, users)
    assert len(pii) > 50
    texts = output_texts(out)
    assert "sft.parquet" in texts and "manifest.json" in texts
    leaks = [(f, v) for f, t in texts.items() for v in pii if v in t]
    assert not leaks, f"personal data in outputs: {leaks[:5]}"


def test_cli_run_on_bundled_sample(prefect_harness, tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app

    out = tmp_path / "sample"
    r = CliRunner().invoke(app, ["run", "--out", str(out), "--work", str(tmp_path / "work"), "--k", "2",
                                 "--tasks-per-blueprint", "1", "--max-turns", "3", "--max-new-tokens", "48"])
    assert r.exit_code == 0, r.output
    m = json.loads((out / "manifest.json").read_text())
    assert m["counts"]["ingest"]["quarantined"] == 1  # the sample's one malformed record
    assert m["input_path"].endswith("sample_airline_logs.jsonl")
    assert m["config"]["rollout"]["k"] == 2 and m["config"]["export"]["out_dir"] == str(out)
    sample_text = (ROOT / "data" / "sample_airline_logs.jsonl").read_text()
    for v in ("Tamsin Okafor", "tamsin.okafor77@example.org", "credit_card_7301945", "QX7P2L", "18 Quarry Lane"):
        assert v in sample_text
        assert not any(v in t for t in output_texts(out).values()), v
    r = CliRunner().invoke(app, ["browse", str(out), "--sql", "select count(*) as n from tasks"])
    assert r.exit_code == 0, r.output


def test_flow_on_real_retail_transcripts(shared_data, prefect_harness, tmp_path):
    """The retail system end to end: transcripts (tool names hidden) -> retail blueprints ->
    retail tasks -> rollouts in the retail sandbox -> every dataset written; no customer email
    of the input reaches an output."""
    from flows.trajpipe_flow import run_config, trajpipe_run

    logs = shared_data / "logs" / "retail-transcripts.jsonl"
    out = tmp_path / "retail"
    manifest = trajpipe_run(run_config(
        seed=0, work_dir=str(tmp_path / "work"), ingest={"input_path": str(logs), "limit": 8},
        synthesize={"tasks_per_blueprint": 1}, rollout={"k": 1, "max_turns": 1, "max_new_tokens": 24, "batch_size": 8},
        export={"out_dir": str(out)}))
    c = manifest["counts"]
    assert c["ingest"]["ok"] == 8 and c["verify_task"]["passed"] >= 1
    con = duckdb.connect()
    domains = {r[0] for r in con.execute(f"select distinct domain from read_parquet('{out}/tasks.parquet')").fetchall()}
    assert domains == {"retail"}
    n_rl = con.execute(f"select count(*) from read_parquet('{out}/rl.parquet')").fetchone()[0]
    assert n_rl == c["verify_task"]["passed"]
    emails = {u["email"] for u in json.loads((shared_data / "retail" / "users.json").read_text()).values()}
    raw = "\n".join(logs.read_text().splitlines()[:8])
    seen = {e for e in emails if e in raw}
    assert seen, "the slice should mention customer emails"
    texts = output_texts(out)
    assert not [(f, e) for f, t in texts.items() for e in seen if e in t]
