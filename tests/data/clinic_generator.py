# What a person adds to the generator.py (and __init__.py hooks) that `trajpipe domain init clinic`
# wrote, so that the clinic domain generates verifiable tasks for one kind, cancel_appointment
# (tests/test_domain_init.py appends it and runs the task verifier on synthesized packages).
import copy as _copy

from pipeline.sandbox import Sandbox as _Sandbox
from pipeline.scaffold.runtime import arguments_key as _key

TASK_KINDS = ("cancel_appointment",)
SKILLS_FOR_KIND = {"cancel_appointment": ["identity_lookup", "cancellation", "confirmation"]}
DECIDING_RULES = {"cancel_appointment": []}
_OPEN = ("Hi, my phone number is {phone}. I need to cancel my appointment on {date} at {time}.",
         "Hello, this is {name} ({phone}). Please cancel my {time} appointment on {date}.")


def _patient_with_appointments(fac):
    pid = fac.record("patients")
    patient = fac.state["patients"][pid]
    patient["appointments"] = []
    for _ in range(fac.rng.randint(1, 3)):
        aid = fac.record("appointments")
        fac.state["appointments"][aid].update(patient_id=pid, status="scheduled")
        patient["appointments"].append(aid)
    fac.state["lookups"]["find_patient_by_phone"][_key({"phone": patient["phone"]})] = pid
    return pid, patient


def generate_task(kind, seed, denylist=None, variant=None):
    _check_kind(kind)
    if variant is not None:
        raise ValueError(f"{kind!r} has no variant {variant!r}")
    fac = Factory(task_seed(kind, seed), denylist)
    for _ in range(fac.rng.randint(0, 2)):  # other patients
        _patient_with_appointments(fac)
    pid, patient = _patient_with_appointments(fac)
    aid = fac.rng.choice(patient["appointments"])
    appt = fac.state["appointments"][aid]
    instruction = fac.rng.choice(_OPEN).format(phone=patient["phone"], name=patient["name"], date=appt["date"],
                                               time=appt["time"])
    reference = [{"name": "find_patient_by_phone", "arguments": {"phone": patient["phone"]}},
                 {"name": "get_patient", "arguments": {"patient_id": pid}}]
    reference += [{"name": "get_appointment", "arguments": {"appointment_id": a}} for a in patient["appointments"]]
    reference.append({"name": "cancel_appointment", "arguments": {"appointment_id": aid}})
    box = _Sandbox(__import__(__package__).DOMAIN, fac.state)
    if not all(r.ok for r in box.run(reference)) or box.state == fac.state:
        raise RuntimeError("generator bug: the reference does not cancel the appointment")
    return GeneratedTask(initial_state=_copy.deepcopy(fac.state), instruction=instruction,
                         user_messages=["Yes, please cancel it."], reference_solution=reference,
                         notes={"kind": kind, "seed": seed, "must_discover": [pid, aid], "rule_ids": []},
                         expected_outcome="action", skills=list(SKILLS_FOR_KIND[kind]))
