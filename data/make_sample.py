"""Writes data/sample_airline_logs.jsonl: a small, entirely fictional set of airline support
conversations in trajpipe's canonical format (schemas/conversation.schema.json).

Every person, id and address here was invented for this sample. Run: python data/make_sample.py
"""
import json
from pathlib import Path

POLICY = ("# Airline support policy (sample)\nConfirm the customer's user id before any change. "
          "Ask for explicit confirmation (yes) before any booking change.")


def call(cid, name, args):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def user_json(uid, first, last, email, dob, addr, city, state, zip_, pays, membership, res):
    return json.dumps({"name": {"first_name": first, "last_name": last},
                       "address": {"address1": addr, "address2": "", "city": city, "country": "USA",
                                   "state": state, "zip": zip_},
                       "email": email, "dob": dob, "payment_methods": pays, "saved_passengers": [],
                       "membership": membership, "reservations": res})


def reservation_json(rid, uid, cabin, pax, pay_id, amount, created, insurance="no", bags=(1, 0)):
    return json.dumps({"reservation_id": rid, "user_id": uid, "origin": "SFO", "destination": "DEN",
                       "flight_type": "one_way", "cabin": cabin,
                       "flights": [{"flight_number": "HAT412", "date": "2024-05-20", "price": amount // len(pax),
                                    "origin": "SFO", "destination": "DEN"}],
                       "passengers": pax, "payment_history": [{"payment_id": pay_id, "amount": amount}],
                       "created_at": created, "total_baggages": bags[0], "nonfree_baggages": bags[1],
                       "insurance": insurance})


def convo(i, uid, first, last, email, dob, addr, city, state, zip_, card, last4, rid, cabin, kind, reward):
    pays = {card: {"source": "credit_card", "brand": "visa", "last_four": last4, "id": card}}
    pax = [{"first_name": first, "last_name": last, "dob": dob}]
    msgs = [{"role": "system", "content": POLICY}]
    if kind == "cancel":
        msgs.append({"role": "user", "content": f"Hi, this is {first} {last}. I need to cancel reservation {rid}, my plans changed. My user id is {uid}."})
        msgs.append({"role": "assistant", "content": None, "tool_calls": [call(f"c{i}a", "get_user_details", {"user_id": uid})]})
        msgs.append({"role": "tool", "tool_call_id": f"c{i}a", "name": "get_user_details",
                     "content": user_json(uid, first, last, email, dob, addr, city, state, zip_, pays, "regular", [rid])})
        msgs.append({"role": "assistant", "content": None, "tool_calls": [call(f"c{i}b", "get_reservation_details", {"reservation_id": rid})]})
        msgs.append({"role": "tool", "tool_call_id": f"c{i}b", "name": "get_reservation_details",
                     "content": reservation_json(rid, uid, cabin, pax, card, 420, "2024-05-15T09:10:00")})
        msgs.append({"role": "assistant", "content": f"Reservation {rid} was booked today, so it can be cancelled with a full refund to the card ending in {last4}. Shall I proceed (yes/no)?"})
        msgs.append({"role": "user", "content": "Yes, please."})
        if reward:
            msgs.append({"role": "assistant", "content": None, "tool_calls": [call(f"c{i}c", "cancel_reservation", {"reservation_id": rid})]})
            msgs.append({"role": "tool", "tool_call_id": f"c{i}c", "name": "cancel_reservation",
                         "content": reservation_json(rid, uid, cabin, pax, card, 420, "2024-05-15T09:10:00")})
            msgs.append({"role": "assistant", "content": "Your reservation is cancelled. The refund reaches your card in 5 to 7 business days."})
        else:
            msgs.append({"role": "assistant", "content": "Done! Your reservation is cancelled."})
    else:  # baggage
        msgs.append({"role": "user", "content": f"Hello, I'm {uid}. Please add two checked bags to booking {rid}, charge my card ending {last4}."})
        msgs.append({"role": "assistant", "content": None, "tool_calls": [call(f"c{i}a", "get_user_details", {"user_id": uid})]})
        msgs.append({"role": "tool", "tool_call_id": f"c{i}a", "name": "get_user_details",
                     "content": user_json(uid, first, last, email, dob, addr, city, state, zip_, pays, "silver", [rid])})
        msgs.append({"role": "assistant", "content": None, "tool_calls": [call(f"c{i}b", "get_reservation_details", {"reservation_id": rid})]})
        msgs.append({"role": "tool", "tool_call_id": f"c{i}b", "name": "get_reservation_details",
                     "content": reservation_json(rid, uid, cabin, pax, card, 300, "2024-05-01T12:00:00")})
        msgs.append({"role": "assistant", "content": "As a silver member in economy you have 2 free bags, so two more bags make 3 total with 1 paid bag at $50. Confirm (yes)?"})
        msgs.append({"role": "user", "content": "yes"})
        nonfree = 1 if reward else 2
        msgs.append({"role": "assistant", "content": None, "tool_calls": [call(f"c{i}c", "update_reservation_baggages", {"reservation_id": rid, "total_baggages": 3, "nonfree_baggages": nonfree, "payment_id": card})]})
        msgs.append({"role": "tool", "tool_call_id": f"c{i}c", "name": "update_reservation_baggages",
                     "content": reservation_json(rid, uid, cabin, pax, card, 300, "2024-05-01T12:00:00", bags=(3, nonfree))})
        msgs.append({"role": "assistant", "content": "Your bags are added."})
    return {"id": f"sample-{i:03d}", "messages": msgs, "metadata": {"reward": float(reward), "domain": "airline"}}


PEOPLE = [
    ("tamsin_okafor_4821", "Tamsin", "Okafor", "tamsin.okafor77@example.org", "1986-02-14", "18 Quarry Lane", "Boise", "ID", "83702", "credit_card_7301945", "6620", "QX7P2L", "economy", "cancel", 1),
    ("bertil_navarro_1934", "Bertil", "Navarro", "b.navarro@example.net", "1971-11-03", "402 Heron Court", "Tulsa", "OK", "74103", "credit_card_5582017", "3391", "M4TZ8R", "business", "cancel", 1),
    ("ines_castellano_7710", "Ines", "Castellano", "ines.c@example.com", "1994-07-22", "77 Birchwood Ave", "Omaha", "NE", "68102", "credit_card_9024476", "1188", "KD2V9W", "economy", "cancel", 0),
    ("oskar_lindqvist_3305", "Oskar", "Lindqvist", "oskar.l@example.org", "1962-05-30", "5 Millrace Road", "Fresno", "CA", "93721", "credit_card_6640213", "5047", "ZP5N3J", "economy", "bags", 1),
    ("priya_ventura_2287", "Priya", "Ventura", "priya.ventura@example.net", "1999-12-09", "230 Alder Street", "Reno", "NV", "89501", "credit_card_3118850", "7725", "HB8C4T", "economy", "bags", 0),
    ("femi_achterberg_5561", "Femi", "Achterberg", "femi.a@example.com", "1980-09-17", "91 Lantern Way", "Duluth", "MN", "55802", "credit_card_4479361", "2094", "RW6Y1E", "business", "bags", 1),
]

if __name__ == "__main__":
    out = Path(__file__).with_name("sample_airline_logs.jsonl")
    with open(out, "w") as fh:
        for i, p in enumerate(PEOPLE):
            fh.write(json.dumps(convo(i, *p)) + "\n")
        # one malformed record, to show quarantine at work: a message without a role
        fh.write(json.dumps({"id": "sample-bad", "messages": [{"content": "hello?"}]}) + "\n")
    print(out)
