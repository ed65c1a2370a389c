"""Write tests/data/logs/clinic_openai_log.jsonl: a small, fictional log set of a business none of
trajpipe's domains covers (a family clinic's appointment assistant), as OpenAI Chat Completions
call logs (one request/response a line, stitched by ``metadata.conversation_id``).

The clinic's "real system" lives only here (``Clinic``): trajpipe never imports it, so
``trajpipe domain init clinic --from-logs ...`` has to infer it from the logs alone. Every
conversation runs on a fresh copy of the same database (as tau-bench's runs do). All names,
phones and ids are invented. Run: ``python tests/data/make_clinic_logs.py``.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

OUT = Path(__file__).with_name("logs") / "clinic_openai_log.jsonl"

POLICY = """# Riverside Family Clinic - appointment assistant

You help patients of the Riverside Family Clinic with their appointments. Today is 2025-03-10.

## Identity
- Identify the patient by their phone number before looking at or changing any appointment.
- Never reveal another patient's appointments.

## Booking
- Book only free slots returned by list_free_slots for the doctor and date the patient asked for.
- Ask for the reason of the visit and record it in a few words.

## Changes
- You must get an explicit yes from the patient before you book, cancel or reschedule.
- Cancelled appointments cannot be rescheduled; book a new one instead.
- Transfer the patient to a human when they report an emergency or ask about test results.
"""

DB = {
    "patients": {
        "P-1001": {"patient_id": "P-1001", "name": "Lena Marsh", "phone": "555-0142", "dob": "1984-06-02",
                   "insurance": "private", "appointments": ["A-7001"]},
        "P-1002": {"patient_id": "P-1002", "name": "Omar Haddad", "phone": "555-0177", "dob": "1972-11-19",
                   "insurance": "public", "appointments": ["A-7002", "A-7003"]},
        "P-1003": {"patient_id": "P-1003", "name": "Greta Lindqvist", "phone": "555-0199", "dob": "1990-01-27",
                   "insurance": "none", "appointments": []},
        "P-1004": {"patient_id": "P-1004", "name": "Tomas Reyes", "phone": "555-0110", "dob": "2001-09-08",
                   "insurance": "public", "appointments": ["A-7004"]},
    },
    "slots": {
        "S-5001": {"slot_id": "S-5001", "doctor_id": "D-01", "date": "2025-03-12", "time": "09:00", "status": "booked"},
        "S-5002": {"slot_id": "S-5002", "doctor_id": "D-01", "date": "2025-03-12", "time": "09:30", "status": "free"},
        "S-5003": {"slot_id": "S-5003", "doctor_id": "D-01", "date": "2025-03-12", "time": "10:00", "status": "free"},
        "S-5004": {"slot_id": "S-5004", "doctor_id": "D-02", "date": "2025-03-13", "time": "14:00", "status": "booked"},
        "S-5005": {"slot_id": "S-5005", "doctor_id": "D-02", "date": "2025-03-13", "time": "14:30", "status": "free"},
        "S-5006": {"slot_id": "S-5006", "doctor_id": "D-02", "date": "2025-03-14", "time": "11:00", "status": "free"},
        "S-5007": {"slot_id": "S-5007", "doctor_id": "D-01", "date": "2025-03-14", "time": "08:30", "status": "booked"},
        "S-5008": {"slot_id": "S-5008", "doctor_id": "D-03", "date": "2025-03-12", "time": "16:00", "status": "booked"},
        "S-5009": {"slot_id": "S-5009", "doctor_id": "D-03", "date": "2025-03-12", "time": "16:30", "status": "free"},
    },
    "appointments": {
        "A-7001": {"appointment_id": "A-7001", "patient_id": "P-1001", "doctor_id": "D-01", "slot_id": "S-5001",
                   "date": "2025-03-12", "time": "09:00", "reason": "annual check-up", "status": "scheduled"},
        "A-7002": {"appointment_id": "A-7002", "patient_id": "P-1002", "doctor_id": "D-02", "slot_id": "S-5004",
                   "date": "2025-03-13", "time": "14:00", "reason": "knee pain", "status": "scheduled"},
        "A-7003": {"appointment_id": "A-7003", "patient_id": "P-1002", "doctor_id": "D-01", "slot_id": "S-5007",
                   "date": "2025-03-14", "time": "08:30", "reason": "blood pressure follow-up", "status": "scheduled"},
        "A-7004": {"appointment_id": "A-7004", "patient_id": "P-1004", "doctor_id": "D-03", "slot_id": "S-5008",
                   "date": "2025-03-12", "time": "16:00", "reason": "skin rash", "status": "scheduled"},
    },
}

TOOLS = [
    {"type": "function", "function": {"name": "find_patient_by_phone",
     "description": "Find a patient's id by the phone number on file.",
     "parameters": {"type": "object", "properties": {"phone": {"type": "string", "description": "Phone number, e.g. 555-0100."}},
                    "required": ["phone"]}}},
    {"type": "function", "function": {"name": "get_patient", "description": "Get a patient's record and appointment ids.",
     "parameters": {"type": "object", "properties": {"patient_id": {"type": "string", "description": "The patient id, e.g. P-1000."}},
                    "required": ["patient_id"]}}},
    {"type": "function", "function": {"name": "get_appointment", "description": "Get one appointment.",
     "parameters": {"type": "object", "properties": {"appointment_id": {"type": "string"}}, "required": ["appointment_id"]}}},
    {"type": "function", "function": {"name": "list_free_slots", "description": "List a doctor's free slots on a date.",
     "parameters": {"type": "object", "properties": {"doctor_id": {"type": "string"}, "date": {"type": "string", "description": "YYYY-MM-DD"}},
                    "required": ["doctor_id", "date"]}}},
    {"type": "function", "function": {"name": "book_appointment", "description": "Book a free slot for a patient.",
     "parameters": {"type": "object", "properties": {"patient_id": {"type": "string"}, "slot_id": {"type": "string"},
                                                    "reason": {"type": "string"}}, "required": ["patient_id", "slot_id", "reason"]}}},
    {"type": "function", "function": {"name": "cancel_appointment", "description": "Cancel a scheduled appointment.",
     "parameters": {"type": "object", "properties": {"appointment_id": {"type": "string"}}, "required": ["appointment_id"]}}},
    {"type": "function", "function": {"name": "reschedule_appointment", "description": "Move an appointment to another free slot.",
     "parameters": {"type": "object", "properties": {"appointment_id": {"type": "string"}, "new_slot_id": {"type": "string"}},
                    "required": ["appointment_id", "new_slot_id"]}}},
    {"type": "function", "function": {"name": "transfer_to_human_agents", "description": "Hand the patient over to a human.",
     "parameters": {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}}},
]


class ClinicError(Exception):
    pass


class Clinic:
    """The fictional clinic backend the logs were 'recorded' on."""

    def __init__(self) -> None:
        self.db = copy.deepcopy(DB)

    def find_patient_by_phone(self, phone):
        for p in self.db["patients"].values():
            if p["phone"] == phone:
                return p["patient_id"]
        raise ClinicError("no patient with this phone number")

    def get_patient(self, patient_id):
        if patient_id not in self.db["patients"]:
            raise ClinicError("patient not found")
        return self.db["patients"][patient_id]

    def get_appointment(self, appointment_id):
        if appointment_id not in self.db["appointments"]:
            raise ClinicError("appointment not found")
        return self.db["appointments"][appointment_id]

    def list_free_slots(self, doctor_id, date):
        return [{"slot_id": s["slot_id"], "time": s["time"]} for s in self.db["slots"].values()
                if s["doctor_id"] == doctor_id and s["date"] == date and s["status"] == "free"]

    def book_appointment(self, patient_id, slot_id, reason):
        slot = self.db["slots"].get(slot_id)
        if slot is None or slot["status"] != "free":
            raise ClinicError("slot is not free")
        aid = f"A-{7001 + len(self.db['appointments'])}"
        appt = {"appointment_id": aid, "patient_id": patient_id, "doctor_id": slot["doctor_id"], "slot_id": slot_id,
                "date": slot["date"], "time": slot["time"], "reason": reason, "status": "scheduled"}
        self.db["appointments"][aid] = appt
        slot["status"] = "booked"
        self.db["patients"][patient_id]["appointments"].append(aid)
        return appt

    def cancel_appointment(self, appointment_id):
        appt = self.get_appointment(appointment_id)
        if appt["status"] != "scheduled":
            raise ClinicError("appointment is not scheduled")
        appt["status"] = "cancelled"
        self.db["slots"][appt["slot_id"]]["status"] = "free"
        return appt

    def reschedule_appointment(self, appointment_id, new_slot_id):
        appt = self.get_appointment(appointment_id)
        slot = self.db["slots"].get(new_slot_id)
        if appt["status"] != "scheduled":
            raise ClinicError("appointment is not scheduled")
        if slot is None or slot["status"] != "free":
            raise ClinicError("slot is not free")
        self.db["slots"][appt["slot_id"]]["status"] = "free"
        slot["status"] = "booked"
        appt.update(slot_id=new_slot_id, doctor_id=slot["doctor_id"], date=slot["date"], time=slot["time"])
        return appt

    def transfer_to_human_agents(self, summary):
        return "Transfer successful"


# Each script: ("user", text) | ("call", tool, arguments) | ("say", text)
SCRIPTS = [
    [("user", "Hi, I need to cancel my appointment on Wednesday. My phone is 555-0142."),
     ("call", "find_patient_by_phone", {"phone": "555-0142"}), ("call", "get_patient", {"patient_id": "P-1001"}),
     ("call", "get_appointment", {"appointment_id": "A-7001"}),
     ("say", "You have an annual check-up with D-01 on 2025-03-12 at 09:00. Shall I cancel it?"),
     ("user", "Yes, please cancel it."), ("call", "cancel_appointment", {"appointment_id": "A-7001"}),
     ("say", "Done: appointment A-7001 is cancelled.")],
    [("user", "Hello, this is Omar, 555-0177. Can I move my knee appointment to a later time the same day?"),
     ("call", "find_patient_by_phone", {"phone": "555-0177"}), ("call", "get_patient", {"patient_id": "P-1002"}),
     ("call", "get_appointment", {"appointment_id": "A-7002"}),
     ("call", "list_free_slots", {"doctor_id": "D-02", "date": "2025-03-13"}),
     ("say", "There is a free slot at 14:30 on 2025-03-13. Move your appointment there?"),
     ("user", "Yes."), ("call", "reschedule_appointment", {"appointment_id": "A-7002", "new_slot_id": "S-5005"}),
     ("call", "get_appointment", {"appointment_id": "A-7002"}),
     ("say", "Your appointment is now at 14:30.")],
    [("user", "I'd like to book a visit with D-01 on March 12th, my phone is 555-0199."),
     ("call", "find_patient_by_phone", {"phone": "555-0199"}), ("call", "get_patient", {"patient_id": "P-1003"}),
     ("call", "list_free_slots", {"doctor_id": "D-01", "date": "2025-03-12"}),
     ("say", "D-01 has 09:30 and 10:00 free. Which one, and what is the reason of the visit?"),
     ("user", "10:00 please, it's for a persistent cough. Yes, book it."),
     ("call", "book_appointment", {"patient_id": "P-1003", "slot_id": "S-5003", "reason": "persistent cough"}),
     ("call", "get_patient", {"patient_id": "P-1003"}),
     ("say", "Booked: A-7005, 2025-03-12 at 10:00.")],
    [("user", "What time is my appointment? 555-0110."),
     ("call", "find_patient_by_phone", {"phone": "555-0110"}), ("call", "get_patient", {"patient_id": "P-1004"}),
     ("call", "get_appointment", {"appointment_id": "A-7004"}),
     ("say", "Your appointment for the skin rash is on 2025-03-12 at 16:00.")],
    [("user", "Hi, my number is 555-0123, I want to see a doctor."),
     ("call", "find_patient_by_phone", {"phone": "555-0123"}),
     ("say", "I can't find that number. Could you check it?"), ("user", "Sorry, it's 555-0199."),
     ("call", "find_patient_by_phone", {"phone": "555-0199"}), ("call", "get_patient", {"patient_id": "P-1003"}),
     ("call", "list_free_slots", {"doctor_id": "D-03", "date": "2025-03-12"}),
     ("say", "D-03 has 16:30 free on 2025-03-12. Book it?"), ("user", "Yes, for a sprained ankle."),
     ("call", "book_appointment", {"patient_id": "P-1003", "slot_id": "S-5009", "reason": "sprained ankle"}),
     ("say", "Booked for 16:30.")],
    [("user", "This is 555-0177. Please cancel my blood pressure follow-up."),
     ("call", "find_patient_by_phone", {"phone": "555-0177"}), ("call", "get_patient", {"patient_id": "P-1002"}),
     ("call", "get_appointment", {"appointment_id": "A-7002"}), ("call", "get_appointment", {"appointment_id": "A-7003"}),
     ("say", "That is A-7003 on 2025-03-14 at 08:30 with D-01. Cancel it?"), ("user", "Yes."),
     ("call", "cancel_appointment", {"appointment_id": "A-7003"}),
     ("call", "list_free_slots", {"doctor_id": "D-01", "date": "2025-03-14"}),
     ("say", "Cancelled. The 08:30 slot is free again.")],
    [("user", "I have chest pain right now, what should I do? 555-0142"),
     ("call", "transfer_to_human_agents", {"summary": "patient reports chest pain"}),
     ("say", "Please call emergency services now; I am transferring you to a nurse.")],
    [("user", "Can you move my appointment A-7004 to the 16:30 slot? Phone 555-0110."),
     ("call", "find_patient_by_phone", {"phone": "555-0110"}), ("call", "get_appointment", {"appointment_id": "A-7004"}),
     ("call", "list_free_slots", {"doctor_id": "D-03", "date": "2025-03-12"}),
     ("say", "16:30 is free. Move it?"), ("user", "Yes please."),
     ("call", "reschedule_appointment", {"appointment_id": "A-7004", "new_slot_id": "S-5009"}),
     ("say", "Moved to 16:30.")],
    [("user", "Hi, 555-0142. I want to reschedule my check-up to Friday with D-02."),
     ("call", "find_patient_by_phone", {"phone": "555-0142"}), ("call", "get_patient", {"patient_id": "P-1001"}),
     ("call", "get_appointment", {"appointment_id": "A-7001"}),
     ("call", "list_free_slots", {"doctor_id": "D-02", "date": "2025-03-14"}),
     ("say", "D-02 has 11:00 free on Friday 2025-03-14. Move it there?"), ("user", "Yes."),
     ("call", "reschedule_appointment", {"appointment_id": "A-7001", "new_slot_id": "S-5006"}),
     ("say", "Done, Friday 11:00 with D-02.")],
    [("user", "Book me with D-02 on the 13th please, phone 555-0110, it's for back pain."),
     ("call", "find_patient_by_phone", {"phone": "555-0110"}), ("call", "get_patient", {"patient_id": "P-1004"}),
     ("call", "list_free_slots", {"doctor_id": "D-02", "date": "2025-03-13"}),
     ("say", "14:30 is free on 2025-03-13. Shall I book it?"), ("user", "Yes."),
     ("call", "book_appointment", {"patient_id": "P-1004", "slot_id": "S-5005", "reason": "back pain"}),
     ("call", "list_free_slots", {"doctor_id": "D-02", "date": "2025-03-13"}),
     ("say", "Booked, appointment A-7005 at 14:30.")],
    [("user", "Is my appointment with D-01 still on? 555-0177"),
     ("call", "find_patient_by_phone", {"phone": "555-0177"}), ("call", "get_patient", {"patient_id": "P-1002"}),
     ("call", "get_appointment", {"appointment_id": "A-7003"}),
     ("say", "Yes, 2025-03-14 at 08:30 with D-01 for your blood pressure follow-up.")],
    [("user", "Cancel A-7004 please, phone 555-0110."),
     ("call", "find_patient_by_phone", {"phone": "555-0110"}), ("call", "get_appointment", {"appointment_id": "A-7004"}),
     ("say", "A-7004 is your skin rash visit on 2025-03-12 at 16:00. Cancel it?"), ("user", "Yes, cancel."),
     ("call", "cancel_appointment", {"appointment_id": "A-7004"}),
     ("call", "cancel_appointment", {"appointment_id": "A-7004"}),
     ("say", "It is cancelled.")],
]


def conversation(i: int, script: list[tuple]) -> list[dict]:
    """Run one script on a fresh clinic; return the OpenAI message list."""
    clinic = Clinic()
    msgs: list[dict] = [{"role": "system", "content": POLICY}]
    for n, step in enumerate(script):
        if step[0] == "user":
            msgs.append({"role": "user", "content": step[1]})
        elif step[0] == "say":
            msgs.append({"role": "assistant", "content": step[1]})
        else:
            _, tool, args = step
            cid = f"call_{i:02d}_{n:02d}"
            msgs.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}]})
            try:
                out = getattr(clinic, tool)(**args)
                content = out if isinstance(out, str) else json.dumps(out)
            except ClinicError as exc:
                content = f"Error: {exc}"
            msgs.append({"role": "tool", "tool_call_id": cid, "content": content})
    return msgs


def log_lines(i: int, msgs: list[dict]) -> list[dict]:
    """One Chat Completions call per assistant message: the request holds everything before it."""
    lines = []
    for k, m in enumerate(msgs):
        if m["role"] != "assistant":
            continue
        lines.append({"request": {"model": "gpt-4o-mini", "messages": msgs[:k], "tools": TOOLS,
                                  "metadata": {"conversation_id": f"clinic-{i:03d}"}},
                      "response": {"id": f"chatcmpl-clinic-{i:03d}-{k:02d}", "object": "chat.completion",
                                   "choices": [{"index": 0, "message": m,
                                                "finish_reason": "tool_calls" if m.get("tool_calls") else "stop"}]}})
    return lines


def main() -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as fh:
        for i, script in enumerate(SCRIPTS):
            for line in log_lines(i, conversation(i, script)):
                fh.write(json.dumps(line) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
