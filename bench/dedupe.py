"""Benchmark: trajpipe's dedupe (bulk MinHash signatures, explicit LSH bands/rows, exact Jaccard
on candidates) against a plain per-document datasketch loop, same run, same trajectories; recall
on planted near duplicates and false positives on distinct trajectories.

    python bench/dedupe.py                       # 4000 distinct + 400 planted per level
    python bench/dedupe.py --n 1000 --planted 100

Corpus (fictional, made with Faker, seed 0): ``--n`` distinct airline-style trajectories (a
customer request, a lookup call with its JSON result, an explanation of a few sentences, a
follow-up and a close, from a handful of templates, so distinct trajectories share template
text as real ones do), then, for each level L in (0.8, 0.9), ``--planted`` near copies of
random distinct ones whose true Jaccard similarity of 5-word shingle sets (what dedupe
estimates) is in ``[L, L + 0.01)``: words of the copy's explanation replaced, then new words
appended one by one until the similarity falls into the band. Copies come after all originals.

Engines, each over the same trajectories, same ``threshold`` and ``(b, r)``:

* ``plain loop``: per trajectory, ``MinHash(num_perm=128, seed=1)``, ``m.update(shingle)`` for
  each shingle (datasketch's documented usage), ``lsh.query`` then ``lsh.insert``, the same
  exact-copy logic and the same decision on candidates (exact Jaccard of the shingle sets; the
  loop keeps every kept trajectory's shingle set in a dict);
* ``per-doc batch``: the same with one ``update_batch`` per trajectory (trajpipe before bulk);
* ``trajpipe dedupe``: :func:`pipeline.dedupe.dedupe` (``MinHash.generator`` in chunks,
  ``LeanMinHash`` kept).

All three must give the same kept / rejected lists (checked; the bench exits 1 otherwise).
Throughput is trajectories per second of wall time (``time.perf_counter``); the ratio is what
to read, since absolute numbers depend on the machine. Recall at level L: planted copies at L
rejected as near duplicates of their original (or as exact copies); false-positive rate:
distinct trajectories rejected (their true Jaccard with the kept one is printed). Results for
several thresholds (``--thresholds``), with ``lsh_threshold`` as the pipeline passes it
(``--lsh-threshold``, default 0.75 as in pipeline.stages) and without it (``(b, r)`` from the
threshold alone), and, for comparison, the same candidates decided on the MinHash *estimate*
(how trajpipe decided before): the column "estimate-decided".
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from datasketch import MinHash, MinHashLSH  # noqa: E402
from faker import Faker  # noqa: E402

from pipeline.dedupe import (DEDUPE_EXACT, DEDUPE_NEAR, DedupeResult, agent_visible_text,  # noqa: E402
                             dedupe, jaccard, lsh_params, s_curve, shingles)
from pipeline.records import Trajectory  # noqa: E402

LEVELS = (0.8, 0.9)
OPENERS = [
    "Hi, I am {name} and I want to cancel my reservation {rid} because my trip to {city} on {date} is off.",
    "Hello, this is {name}. Could you change reservation {rid} to a later flight to {city} after {date}?",
    "Good morning, {name} here. How much baggage can I take on reservation {rid} to {city} on {date}?",
    "I need help with booking {rid}: {name} flying to {city} on {date}, I want to upgrade the cabin.",
    "My name is {name}; please tell me the status of my flight in reservation {rid} ({city}, {date}).",
    "Hey, {name}. I'd like a refund for reservation {rid}; the {date} flight to {city} was delayed.",
]
TOOLS = ["get_reservation_details", "get_user_details", "search_direct_flight", "get_flight_status"]


def make_trajectory(fake: Faker, rng: random.Random, tid: str) -> Trajectory:
    """One fictional distinct trajectory (Faker values; see the module doc)."""
    rid = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))
    name, city, date = fake.name(), fake.city(), fake.date_between("+1d", "+200d").isoformat()
    tool = rng.choice(TOOLS)
    result = {"reservation_id": rid, "user_id": fake.user_name() + str(rng.randint(100, 9999)),
              "origin": fake.city(), "destination": city, "cabin": rng.choice(["economy", "business", "basic"]),
              "passengers": [{"first_name": fake.first_name(), "last_name": fake.last_name(),
                              "dob": fake.date_of_birth().isoformat()} for _ in range(rng.randint(1, 3))],
              "flights": [{"flight_number": f"HAT{rng.randint(1, 300):03d}", "date": date,
                           "price": rng.randint(60, 2000)} for _ in range(rng.randint(1, 3))]}
    explain = " ".join(fake.sentence(nb_words=rng.randint(8, 16)) for _ in range(rng.randint(4, 8)))
    msgs = [
        {"role": "system", "content": "You are an airline agent. Follow the policy."},
        {"role": "user", "content": rng.choice(OPENERS).format(name=name, rid=rid, city=city, date=date)},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "call_0", "type": "function", "function": {
            "name": tool, "arguments": json.dumps({"reservation_id": rid})}}]},
        {"role": "tool", "tool_call_id": "call_0", "name": tool, "content": json.dumps(result)},
        {"role": "assistant", "content": f"Thank you, {name.split()[0]}. {explain}"},
        {"role": "user", "content": fake.sentence(nb_words=rng.randint(6, 14))},
        {"role": "assistant", "content": fake.sentence(nb_words=rng.randint(8, 20)) + " Anything else?"},
        {"role": "user", "content": "No, that is all. Thanks!"},
    ]
    return Trajectory(trajectory_id=tid, task_id=f"task-{tid}", blueprint_id="bp", sample_index=0, model="m",
                      backend="bench", messages=msgs, tools=[], tool_calls=[], final_state_hash="h",
                      finish_reason="agent_stop", n_turns=3, prompt_tokens=0, completion_tokens=0, seed=0)


def true_jaccard(a: Trajectory, b: Trajectory, n: int = 5) -> float:
    """Exact Jaccard similarity of the two trajectories' shingle sets (what dedupe estimates)."""
    sa, sb = shingles(agent_visible_text(a), n), shingles(agent_visible_text(b), n)
    return len(sa & sb) / len(sa | sb)


def plant(base: Trajectory, level: float, rng: random.Random, tid: str) -> tuple[Trajectory, float] | None:
    """A near copy of ``base`` with true shingle Jaccard in ``[level, level + 0.01)``, or None
    when the explanation is too short to get there."""
    msgs = json.loads(json.dumps(base.messages))
    words = msgs[4]["content"].split()
    copy = base.model_copy(update={"trajectory_id": tid, "messages": msgs})
    positions = list(range(len(words)))
    rng.shuffle(positions)
    k = 0
    while true_jaccard(base, copy) >= level + 0.04 and positions:
        i = positions.pop()
        words[i] = f"planted{k}x{rng.randint(0, 10**6)}"
        k += 1
        msgs[4]["content"] = " ".join(words)
    for _ in range(400):
        j = true_jaccard(base, copy)
        if j < level + 0.01:
            return (copy, j) if j >= level else None
        msgs[-1]["content"] += f" extra{k}x{rng.randint(0, 10**6)}"
        k += 1
    return None


def corpus(n: int, planted: int, seed: int = 0):
    """``(trajectories, planted: {copy id: (original id, level, true J)}, distinct ids)``."""
    fake, rng = Faker(), random.Random(seed)
    Faker.seed(seed)
    distinct = [make_trajectory(fake, rng, f"d{i:06d}") for i in range(n)]
    plants: dict[str, tuple[str, float, float]] = {}
    copies = []
    for level in LEVELS:
        made = 0
        while made < planted:
            base = rng.choice(distinct)
            got = plant(base, level, rng, f"p{int(level * 100)}-{made:05d}")
            if got is None:
                continue
            copies.append(got[0])
            plants[got[0].trajectory_id] = (base.trajectory_id, level, got[1])
            made += 1
    return distinct + copies, plants, {t.trajectory_id for t in distinct}


def _loop(trajectories, threshold, lsh_threshold, num_perm=128, n=5, batch=False,
          decide="exact") -> DedupeResult:
    """The per-document baseline: the same decisions as :func:`pipeline.dedupe.dedupe`
    (``decide="exact"``), or candidates decided on the MinHash estimate (``"estimate"``)."""
    b, r = lsh_params(min(lsh_threshold or threshold, threshold), num_perm)
    lsh = MinHashLSH(num_perm=num_perm, params=(b, r))
    res = DedupeResult(params=(b, r))
    exact, sketches, sets, order = {}, {}, {}, {}
    for t in trajectories:
        text = agent_visible_text(t)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if digest in exact:
            res.rejected.append((t, DEDUPE_EXACT, f"duplicate of {exact[digest]}"))
            continue
        sh = shingles(text, n)
        m = MinHash(num_perm=num_perm, seed=1)
        if batch:
            m.update_batch([s.encode("utf-8") for s in sorted(sh)])
        else:
            for s in sorted(sh):
                m.update(s.encode("utf-8"))
        best_id, best_j = None, -1.0
        for cand in sorted(lsh.query(m), key=order.__getitem__):
            res.candidates += 1
            j = jaccard(sh, sets[cand]) if decide == "exact" else m.jaccard(sketches[cand])
            if j >= threshold and j > best_j:
                best_id, best_j = cand, j
        if best_id is not None:
            res.rejected.append((t, DEDUPE_NEAR, f"near duplicate of {best_id} (jaccard={best_j:.3f})"))
            continue
        exact[digest] = t.trajectory_id
        if decide == "exact":
            sets[t.trajectory_id] = sh
        else:
            sketches[t.trajectory_id] = m
        order[t.trajectory_id] = len(order)
        lsh.insert(t.trajectory_id, m)
        res.kept.append(t)
    return res


def _key(res: DedupeResult):
    return ([t.trajectory_id for t in res.kept], [(t.trajectory_id, c, d) for t, c, d in res.rejected])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=4000, help="distinct trajectories")
    ap.add_argument("--planted", type=int, default=400, help="planted near copies per level (0.8, 0.9)")
    ap.add_argument("--thresholds", default="0.8,0.85,0.9", help="dedupe thresholds to report")
    ap.add_argument("--lsh-threshold", type=float, default=0.75, help="similarity at which LSH proposes a pair with P >= 0.99 (pipeline.stages passes threshold - 0.15 = 0.75)")
    ap.add_argument("--repeat", type=int, default=3, help="timing repeats (best of)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    trajs, plants, distinct = corpus(args.n, args.planted)
    jl = {lv: [j for _, l, j in plants.values() if l == lv] for lv in LEVELS}
    print(f"corpus: {args.n} distinct + {len(plants)} planted in {time.perf_counter() - t0:.1f}s; true Jaccard "
          + ", ".join(f"level {lv}: {min(v):.3f}-{max(v):.3f}" for lv, v in jl.items()))

    thr = [float(x) for x in args.thresholds.split(",")]
    # throughput at the pipeline's setting (first threshold of 0.9 if listed)
    t_main = 0.9 if 0.9 in thr else thr[0]
    engines = {"plain loop": lambda: _loop(trajs, t_main, args.lsh_threshold),
               "per-doc batch": lambda: _loop(trajs, t_main, args.lsh_threshold, batch=True),
               "trajpipe dedupe": lambda: dedupe(trajs, threshold=t_main, lsh_threshold=args.lsh_threshold)}
    best, outs = {}, {}
    for _ in range(args.repeat):
        for name, fn in engines.items():
            t = time.perf_counter()
            outs[name] = fn()
            best[name] = min(best.get(name, 1e9), time.perf_counter() - t)
    same = len({json.dumps(_key(o)) for o in outs.values()}) == 1
    n = len(trajs)
    print(f"\nthroughput, threshold {t_main}, lsh_threshold {args.lsh_threshold}, params {outs['trajpipe dedupe'].params}"
          f", {n} trajectories, {outs['trajpipe dedupe'].candidates} candidate pairs checked exactly, best of {args.repeat}:")
    print("| engine | seconds | trajectories/s | ratio vs plain loop |\n|---|---|---|---|")
    for name in engines:
        print(f"| {name} | {best[name]:.2f} | {n / best[name]:,.0f} | {best['plain loop'] / best[name]:.2f}x |")
    print(f"same kept/rejected from all engines: {same}")

    by_id = {t.trajectory_id: t for t in trajs}

    def score(res: DedupeResult):
        rej = {t.trajectory_id: d for t, _, d in res.rejected}
        rec = {}
        for lv in LEVELS:
            ids = [c for c, (_, l, _) in plants.items() if l == lv]
            rec[lv] = sum(1 for c in ids if c in rej and plants[c][0] in rej[c].split(" (")[0].split()) / len(ids)
        fp_j = [true_jaccard(by_id[i], by_id[rej[i].split(" of ", 1)[1].split(" ")[0]])
                for i in rej if i in distinct]
        return rec, fp_j

    print("\n| threshold | lsh_threshold | (b, r) | P(cand) at threshold | candidates | recall J 0.80-0.81 "
          "| recall J 0.90-0.91 | false positives on distinct | estimate-decided: recall J 0.8 / J 0.9, FP |")
    print("|---|---|---|---|---|---|---|---|---|")
    for th in thr:
        for lt in (min(args.lsh_threshold, th), None):
            res = dedupe(trajs, threshold=th, lsh_threshold=lt)
            rec, fp_j = score(res)
            est_rec, est_fp = score(_loop(trajs, th, lt, batch=True, decide="estimate"))
            fp_note = f" (true J {min(fp_j):.2f}-{max(fp_j):.2f})" if fp_j else ""
            b, r = res.params
            print(f"| {th} | {lt if lt is not None else '-'} | ({b}, {r}) | {s_curve(th, b, r):.4f} | {res.candidates} | "
                  f"{rec[0.8]:.3f} | {rec[0.9]:.3f} | {len(fp_j)}/{len(distinct)} = {len(fp_j) / len(distinct):.4f}{fp_note} | "
                  f"{est_rec[0.8]:.3f} / {est_rec[0.9]:.3f}, {len(est_fp)} |")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
