"""The blueprint catalog does not depend on the anonymization key (issue 16, determinism).

With ``TRAJPIPE_SECRET`` unset every run draws a random key, so the pseudonyms differ from run
to run; blueprints are clustered on delexicalized intents (entity-type placeholders,
:mod:`pipeline.blueprints.delex`), so two runs with different keys must give the same catalog:
the same blueprint ids, members and intent similarities. Real presidio, through the stage layer
(``pipeline.stages.anonymize_stage`` / ``blueprints_stage``).
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from faker import Faker

from pipeline.anonymize import Anonymizer
from pipeline.blueprints.delex import delexicalize
from pipeline.records import LogRecord
from pipeline.stages import SAMPLE_INPUT, anonymize_stage, blueprints_stage, ingest_stage
from shared_paths import TAU_DIR

TAU_AIRLINE = TAU_DIR / "logs" / \
    "airline-gpt4o-trajectories.json"
KEYS = ("first-run-key-0b1c", "second-run-key-9f3e")


def _first_user_text(rec: LogRecord) -> str:
    return next((m["content"] for m in rec.messages if m.get("role") == "user" and m.get("content")), "")


def _catalog_key(bps):
    """What must not depend on the key: ids, members, sizes, kinds, similarity, delexicalized
    representative intent."""
    return [{"blueprint_id": b.blueprint_id, "members": list(b.source_log_ids), "n_logs": b.n_logs,
             "n_success": b.n_success, "task_kind": b.task_kind, "outcome": b.cluster["outcome"],
             "action_signature": list(b.action_signature),
             "mean_intent_similarity": b.cluster["mean_intent_similarity"],
             "representative_delex": b.cluster["representative_intent_delexicalized"]} for b in bps]


def _two_runs(path: Path, limit: int | None = None):
    ing = ingest_stage(str(path), limit=limit)
    assert ing.records, f"nothing ingested from {path}"
    runs = []
    for key in KEYS:
        anon = anonymize_stage(ing.records, secret=key, progress=False)
        assert not anon.quarantine
        runs.append((anon.records, blueprints_stage(anon.records)))
    return runs


def _check_same_catalog(runs, min_changed: int):
    (recs_a, bps_a), (recs_b, bps_b) = runs
    # the keys really gave different pseudonyms in the intents (otherwise the test proves nothing) ...
    texts_a = [_first_user_text(r) for r in recs_a]
    texts_b = [_first_user_text(r) for r in recs_b]
    assert sum(a != b for a, b in zip(texts_a, texts_b)) >= min_changed
    # ... and the catalog is the same
    assert _catalog_key(bps_a) == _catalog_key(bps_b)
    # and the delexicalized intents the clusterer compared are the same record by record
    assert [delexicalize(t) for t in texts_a] == [delexicalize(t) for t in texts_b]


def test_sample_catalog_does_not_depend_on_the_key():
    runs = _two_runs(SAMPLE_INPUT)
    _check_same_catalog(runs, min_changed=len(runs[0][0]))  # every sample intent names someone
    assert [b.cluster["representative_intent"] for b in runs[0][1]] != \
        [b.cluster["representative_intent"] for b in runs[1][1]]
    bps = runs[0][1]
    # the sample has three request kinds; members of a cluster have similar delexicalized intents
    assert len(bps) >= 2 and all(b.cluster["mean_intent_similarity"] > 0.3 for b in bps)


def test_tau_bench_catalog_does_not_depend_on_the_key():
    if not TAU_AIRLINE.exists():
        pytest.skip(f"shared data not found: {TAU_AIRLINE} (../shared/data holds the tau-bench logs)")
    runs = _two_runs(TAU_AIRLINE, limit=40)
    _check_same_catalog(runs, min_changed=5)  # most tau-bench openers name nobody
    assert len(runs[0][1]) >= 5


def _faker_texts(n: int, seed: int = 7) -> list[str]:
    """Fictional customer messages with the values the anonymizer replaces (Faker, seeded)."""
    fake, rng = Faker("en_US"), random.Random(seed)
    Faker.seed(seed)
    templates = [
        "Hi, this is {name}. Please cancel reservation {rid}; my user id is {uid}.",
        "Hello, I'm {uid}. My e-mail is {email} and my phone is {phone}.",
        "My name is {name}, born {dob}. I want to change my flight on {date}.",
        "{first} here ({email}). Could you add a bag to booking {rid}?",
        "I live at {street}, {zip}. Please update the address for {name}.",
    ]
    out = []
    for _ in range(n):
        first, last = fake.first_name(), fake.last_name()
        out.append(rng.choice(templates).format(
            name=f"{first} {last}", first=first, uid=f"{first.lower()}_{last.lower()}_{rng.randint(1000, 9999)}",
            rid="".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(6)),
            email=f"{first.lower()}.{last.lower()}{rng.randint(1, 99)}@example.com",
            phone=f"({rng.randint(200, 989)}) 555-{rng.randint(1000, 9999)}",
            dob=fake.date_of_birth().strftime("%B %d, %Y"), date=fake.date_this_year().isoformat(),
            street=f"{rng.randint(10, 9999)} {fake.street_name()}", zip=fake.zipcode()))
    return out


def test_delexicalized_pseudonyms_do_not_depend_on_the_key():
    """Each pseudonym shape the anonymizer writes maps to the same placeholders under two keys."""
    texts = _faker_texts(40)
    recs = [LogRecord(id=f"r{i}", messages=[{"role": "user", "content": t}]) for i, t in enumerate(texts)]
    outs = []
    for key in KEYS:
        anon = Anonymizer(secret=key)
        outs.append([_first_user_text(r) for r in anon.anonymize(recs)])
    changed = [(a, b) for a, b in zip(*outs) if a != b]
    assert len(changed) >= 30  # the keys gave different pseudonyms
    diffs = [(a, b, delexicalize(a), delexicalize(b)) for a, b in zip(*outs) if delexicalize(a) != delexicalize(b)]
    assert not diffs, diffs[:3]
    # and the placeholders are there (names, ids, e-mails)
    joined = " ".join(delexicalize(t) for t in outs[0])
    for ph in ("<PERSON>", "<ID>", "<EMAIL_ADDRESS>", "<DATE_TIME>"):
        assert ph in joined


def test_delexicalize_examples():
    assert delexicalize("Hi, this is Mary Smith. Cancel QX7P2L please, mary.smith12@example.com") == \
        "Hi, this is <PERSON>. Cancel <ID> please, <EMAIL_ADDRESS>"
    assert delexicalize("I'm liam_park_4821, born April 5, 1990, flying 2024-06-01.") == \
        "I'm <ID>, born <DATE_TIME>, flying <DATE_TIME>."
    assert delexicalize("Sean May and Rose Grant, 5th of May 1990") == "<PERSON> and <PERSON>, <DATE_TIME>"
    assert delexicalize("Ship to 975 Mary Court, Lake Jessica or Johnview") == \
        "Ship to <ADDRESS>, <LOCATION> or <LOCATION>"
    assert delexicalize("call (415) 555-0199 now") == "call <ID> now"
    assert delexicalize("I want to cancel my flight") == "I want to cancel my flight"
    assert delexicalize(None) == "" and delexicalize("") == ""


def _pairwise_medoid_and_mean(cases):
    """The plain pairwise definitions (every pair through intent_similarity)."""
    from pipeline.blueprints.cluster import intent_similarity

    n = len(cases)
    best, best_s = cases[0], -1.0
    for c in cases:
        s = sum(intent_similarity(c.mh, o.mh) for o in cases if o is not c)
        if s > best_s:
            best, best_s = c, s
    tot = sum(intent_similarity(cases[i].mh, cases[j].mh) for i in range(n) for j in range(i + 1, n))
    return (cases[0] if n <= 2 else best), round(tot / (n * (n - 1) / 2), 3)


def test_medoid_and_mean_similarity_match_the_pairwise_definition_and_cap_large_clusters():
    from pipeline.blueprints.cluster import MAX_PAIRWISE, Case, _sample, mean_intent_similarity, medoid

    rng = random.Random(3)
    words = "cancel change flight bag refund seat upgrade trip booking please help Mary Smith QX7P2L".split()

    def case(i):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 9))) if rng.random() > 0.1 else ""
        return Case(("airline", "cancel_reservation", "action"), [], text, f"r{i:05d}")

    for n in (3, 4, 7, 12, 30):
        cl = [case(i) for i in range(n)]
        assert (medoid(cl), mean_intent_similarity(cl)) == _pairwise_medoid_and_mean(cl)
    big = [case(i) for i in range(MAX_PAIRWISE * 3 + 5)]
    sample = _sample(big)
    assert len(sample) == MAX_PAIRWISE and sample[0] is big[0] and len({id(c) for c in sample}) == MAX_PAIRWISE
    m, mean = _pairwise_medoid_and_mean(sample)
    assert medoid(big) is m and mean_intent_similarity(big) == mean
