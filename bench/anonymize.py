"""Benchmark: trajpipe's anonymizer against a plain per-record presidio loop, same run, same logs.

    python bench/anonymize.py                      # airline + airline-transcripts + retail
    python bench/anonymize.py --limit 40 --workers 2 --sets airline,retail

Engines, each over the same records (the tau-bench logs of the labelled evaluation):

* ``trajpipe (1 process)``  - :class:`pipeline.anonymize.Anonymizer` as the pipeline runs it
  (NER batched through ``nlp.pipe`` with only the NER component, per-text cache, phone
  regions narrowed to the US, key rules, record-wide replacement, residual scan on the output);
* ``trajpipe (N processes)`` - the same with ``workers=N`` detector processes (pool started
  and warmed outside the timing; its start-up time is printed separately);
* ``plain presidio loop``   - the baseline of issue 3: for every record, for every string of
  it (message text, tool-call arguments, tool results as raw JSON text, metadata strings; the
  policy system message left out, which favours the baseline), ``AnalyzerEngine.analyze`` +
  ``AnonymizerEngine.anonymize`` with presidio's defaults (full spaCy pipeline of the same
  offline model package, default recognizers and phone regions, ``<ENTITY>`` placeholders);
* ``plain loop, trajpipe analyzer`` - the same loop over ``build_analyzer()`` (our recognizers
  and slim spaCy pipeline): how much of the gain is the engine and how much the batching.

Throughput is records per second of wall time (engines built and warmed before timing).
Recall is measured with :mod:`pipeline.anonymize.eval` (ground truth from the tau-bench DBs),
overall and for structured identifiers / names and addresses. Not a test: numbers depend on
the machine; the ratio is what to read.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.anonymize import Anonymizer, build_analyzer  # noqa: E402
from pipeline.anonymize.engine import SPACY_MODEL, DetectorPool  # noqa: E402
from pipeline.anonymize.eval import (RECALL_TARGETS, default_tau_dir, load_set,  # noqa: E402
                                     score)
from pipeline.records import LogRecord  # noqa: E402

STRUCTURED = {c for c, t in RECALL_TARGETS.items() if t >= 1.0}


def stock_presidio():
    """presidio's default AnalyzerEngine on the offline spaCy package (full pipeline)."""
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    # presidio's e-mail recognizer asks the network for the public-suffix list once; offline it
    # falls back to tldextract's bundled snapshot (same result) - keep that quiet
    logging.getLogger("tldextract").setLevel(logging.CRITICAL)
    provider = NlpEngineProvider(nlp_configuration={
        "nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": SPACY_MODEL}]})
    engine = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])
    engine.analyze("warm-up: mia.li@example.com, (415) 555-0199, Mia Li", language="en")
    return engine


def plain_loop(analyzer, records: list[LogRecord]) -> list[LogRecord]:
    """The baseline: one analyze + anonymize call per string, record after record."""
    from presidio_anonymizer import AnonymizerEngine

    engine = AnonymizerEngine()

    def clean(s):
        if not isinstance(s, str) or not s.strip():
            return s
        return engine.anonymize(text=s, analyzer_results=analyzer.analyze(text=s, language="en")).text

    def walk(obj):
        if isinstance(obj, str):
            return clean(obj)
        if isinstance(obj, dict):
            return {k: walk(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [walk(v) for v in obj]
        return obj

    out = []
    for rec in records:
        msgs = []
        for m in rec.messages:
            m = dict(m)
            if m.get("role") != "system":
                m["content"] = walk(m.get("content"))
                if m.get("tool_calls"):
                    m["tool_calls"] = [{**tc, "function": {**tc["function"], "arguments": walk(
                        tc["function"].get("arguments"))}} for tc in m["tool_calls"]]
            msgs.append(m)
        out.append(LogRecord(id=rec.id, messages=msgs, tools=rec.tools, metadata=walk(rec.metadata)))
    return out


def recall_summary(sets, outputs) -> dict:
    occ, left = {"all": 0, "structured": 0, "names_addresses": 0}, {"all": 0, "structured": 0,
                                                                    "names_addresses": 0}
    pos = 0
    for es in sets:
        res = score(es, outputs[pos:pos + len(es.records)])
        pos += len(es.records)
        for cat, row in res["rows"].items():
            for group, ok in (("all", True), ("structured", cat in STRUCTURED),
                              ("names_addresses", cat in ("NAME", "ADDRESS"))):
                if ok:
                    occ[group] += row["occurrences"]
                    left[group] += row["left"]
    return {g: (1 - left[g] / occ[g]) if occ[g] else None for g in occ}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tau", type=Path, default=None)
    ap.add_argument("--sets", default="airline,airline-transcripts,retail")
    ap.add_argument("--limit", type=int, default=None, help="first N records of each set")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--skip-plain-ours", action="store_true", help="skip the plain loop over our analyzer")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)

    tau = args.tau or default_tau_dir()
    sets = [load_set(s.strip(), tau, args.limit) for s in args.sets.split(",") if s.strip()]
    records = [r for es in sets for r in es.records]
    print(f"{len(records)} records ({', '.join(f'{es.name} {len(es.records)}' for es in sets)}), "
          f"{os.cpu_count()} CPUs", flush=True)

    ours = build_analyzer()
    Anonymizer(secret="warm", analyzer=ours).anonymize_record(records[0])  # load + warm spaCy
    rows = []

    def timed(name, fn, note=""):
        t0 = time.perf_counter()
        out = fn()
        sec = time.perf_counter() - t0
        rec = recall_summary(sets, out)
        rows.append({"engine": name, "seconds": round(sec, 2), "records_per_s": len(records) / sec,
                     "recall": rec, "note": note})
        print(f"  {name}: {sec:.1f} s", flush=True)
        return out

    one = timed("trajpipe (1 process)",
                lambda: list(Anonymizer(secret="bench", analyzer=ours).anonymize(records)))
    if args.workers > 1:
        t0 = time.perf_counter()
        pool = DetectorPool(args.workers, SPACY_MODEL)
        pool.detect(["warm-up: Mia Li"] * args.workers * 2)
        startup = time.perf_counter() - t0

        def pooled():
            anon = Anonymizer(secret="bench", analyzer=ours, workers=args.workers, pool_min_texts=1)
            anon._pool = pool
            try:
                return list(anon.anonymize(records))
            finally:
                anon._pool = None

        many = timed(f"trajpipe ({args.workers} processes)", pooled,
                     f"pool start-up {startup:.1f} s, not timed")
        pool.close()
        same = [r.model_dump() for r in one] == [r.model_dump() for r in many]
        print(f"  {args.workers}-process output identical to 1-process output: {same}")
        if not same:
            return 1
    stock = stock_presidio()
    timed("plain presidio loop", lambda: plain_loop(stock, records), "the baseline")
    if not args.skip_plain_ours:
        timed("plain loop, trajpipe analyzer", lambda: plain_loop(ours, records))

    base = next(r for r in rows if r["engine"] == "plain presidio loop")
    print()
    print(f"{'engine':<32}{'seconds':>9}{'rec/s':>8}{'x plain':>9}{'recall':>9}{'struct.':>9}"
          f"{'names+addr':>11}  note")
    for r in rows:
        rc = r["recall"]
        r["ratio_vs_plain_presidio"] = r["records_per_s"] / base["records_per_s"]
        print(f"{r['engine']:<32}{r['seconds']:>9.1f}{r['records_per_s']:>8.2f}"
              f"{r['ratio_vs_plain_presidio']:>8.2f}x{100 * rc['all']:>8.2f}%"
              f"{100 * rc['structured']:>8.2f}%{100 * rc['names_addresses']:>10.2f}%  {r['note']}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
