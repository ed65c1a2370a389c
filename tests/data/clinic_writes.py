# What a person adds to the tools.py that `trajpipe domain init clinic` wrote, to implement its three
# write stubs (tests/test_domain_init.py appends this file and measures replay fidelity). The slots
# are not a table in the scaffold (the logs show them only inside list_free_slots results), so the
# writes find and update a slot through those logged lists.
import json as _json


def _slot(db, slot_id):
    for key, text in db["lookups"]["list_free_slots"].items():
        for s in _json.loads(text) if not text.startswith("Error") else []:
            if s["slot_id"] == slot_id:
                return _json.loads(key), s
    for a in db["appointments"].values():
        if a["slot_id"] == slot_id:
            return {"doctor_id": a["doctor_id"], "date": a["date"]}, {"slot_id": slot_id, "time": a["time"]}
    raise ToolError("slot is not free")


def _set_free(db, where, slot, free):
    key = _json.dumps(where, sort_keys=True, separators=(",", ":"))
    slots = [s for s in _json.loads(db["lookups"]["list_free_slots"].get(key, "[]")) if s["slot_id"] != slot["slot_id"]]
    db["lookups"]["list_free_slots"][key] = _json.dumps(sorted(slots + [slot] * free, key=lambda s: s["slot_id"]))


def _free_slots(db, where):
    key = _json.dumps(where, sort_keys=True, separators=(",", ":"))
    return {s["slot_id"] for s in _json.loads(db["lookups"]["list_free_slots"].get(key, "[]"))}


@_register(TOOLS["book_appointment"].schema["function"], writes=True)
def book_appointment(state, patient_id, slot_id, reason):
    where, slot = _slot(state, slot_id)
    if slot_id not in _free_slots(state, where):
        raise ToolError("slot is not free")
    aid = f"A-{7001 + len(state['appointments'])}"
    appt = {"appointment_id": aid, "patient_id": patient_id, "doctor_id": where["doctor_id"], "slot_id": slot_id,
            "date": where["date"], "time": slot["time"], "reason": reason, "status": "scheduled"}
    state["appointments"][aid] = appt
    state["patients"][patient_id]["appointments"].append(aid)
    _set_free(state, where, slot, False)
    return _json.dumps(appt)


@_register(TOOLS["cancel_appointment"].schema["function"], writes=True)
def cancel_appointment(state, appointment_id):
    appt = state["appointments"].get(appointment_id)
    if appt is None:
        raise ToolError("appointment not found")
    if appt["status"] != "scheduled":
        raise ToolError("appointment is not scheduled")
    appt["status"] = "cancelled"
    _set_free(state, {"doctor_id": appt["doctor_id"], "date": appt["date"]},
              {"slot_id": appt["slot_id"], "time": appt["time"]}, True)
    return _json.dumps(appt)


@_register(TOOLS["reschedule_appointment"].schema["function"], writes=True)
def reschedule_appointment(state, appointment_id, new_slot_id):
    appt = state["appointments"].get(appointment_id)
    if appt is None:
        raise ToolError("appointment not found")
    where, slot = _slot(state, new_slot_id)
    if appt["status"] != "scheduled" or new_slot_id not in _free_slots(state, where):
        raise ToolError("appointment is not scheduled" if appt["status"] != "scheduled" else "slot is not free")
    _set_free(state, {"doctor_id": appt["doctor_id"], "date": appt["date"]},
              {"slot_id": appt["slot_id"], "time": appt["time"]}, True)
    _set_free(state, where, slot, False)
    appt.update(slot_id=new_slot_id, doctor_id=where["doctor_id"], date=where["date"], time=slot["time"])
    return _json.dumps(appt)


WRITE_TOOLS = frozenset(n for n, t in TOOLS.items() if t.writes)
