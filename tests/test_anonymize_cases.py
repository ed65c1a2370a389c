"""Issue 11: the failing inputs of ../shared/cases/anonymize/ (each one example of a KIND of fault)
and variations of each kind written here.

The case files are read by relative path (../shared/cases/anonymize beside the project) and the
tests that need them skip with a message when they are absent; the variations need no shared
data. Real presidio + the spaCy package model throughout.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from stdnum import iban as std_iban

from pipeline.anonymize import Anonymizer, build_analyzer
from pipeline.records import LogRecord
from shared_paths import CASES_DIR

ROOT = Path(__file__).resolve().parents[1]
CASES = CASES_DIR / "anonymize"


@pytest.fixture(scope="module")
def analyzer():
    return build_analyzer()


def _case(name: str) -> list[LogRecord]:
    path = CASES / name
    if not path.is_file():
        pytest.skip(f"shared case file not found at {path} (expected ../shared/cases/anonymize beside the project)")
    return [LogRecord.model_validate(json.loads(s)) for s in path.read_text(encoding="utf-8").splitlines()
            if s.strip()]


def _run(analyzer, recs, secret="cases"):
    anon = Anonymizer(secret=secret, analyzer=analyzer)
    out = {r.id: r for r in anon.anonymize(recs)}
    return out, anon


def _text(rec: LogRecord) -> str:
    return json.dumps(rec.model_dump(), ensure_ascii=False)


def _contents(rec: LogRecord) -> list[str]:
    return [m.get("content") or "" for m in rec.messages]


def _present(text: str, value: str, ignore_case: bool = True) -> bool:
    flags = re.I if ignore_case else 0
    return re.search(r"(?<![A-Za-z0-9])" + re.escape(value) + r"(?![A-Za-z0-9])", text, flags) is not None


def _assert_gone(rec: LogRecord, values, ignore_case=True):
    t = _text(rec)
    left = [v for v in values if _present(t, v, ignore_case)]
    assert not left, f"{rec.id}: survived {left}"


def _assert_unchanged(out: dict, recs: list[LogRecord], *ids: str):
    """The records ``ids`` came out exactly as they went in (nothing in them is personal)."""
    by_id = {r.id: r for r in recs}
    for rid in ids:
        assert out[rid].messages[0]["content"] == by_id[rid].messages[0]["content"], out[rid].messages[0]["content"]


def _msg(role, content, **kw):
    return {"role": role, "content": content, **kw}


def _rec(rid, *msgs):
    return LogRecord.model_validate({"id": rid, "messages": list(msgs)})


# ------------------------------------------------------------------- dialogue-free-text.jsonl
def test_case_free_1_answers_labels_handles(analyzer):
    out, anon = _run(analyzer, _case("dialogue-free-text.jsonl"))
    rec = out["free-1"]
    _assert_gone(rec, ["Tamsin", "Okafor", "tokafor482", "5810273946", "(415) 730-2291",
                       "tokafor482@mailbox.test", "730-2291"])
    c = _contents(rec)
    name = c[2]  # the bare answer to "your full name?"
    assert re.fullmatch(r"[A-Z][a-z]+ [A-Z][a-z'-]+", name) and name in c[3]  # same fake, both turns
    assert name.split()[0].lower() in c[8]  # "thanks tamsin" -> the same first name, lower case
    user = re.search(r"Username: (\S+)", c[5]).group(1)
    assert re.search(re.escape(user) + r"@", c[7])  # the user name is the e-mail's local part
    assert re.fullmatch(r"Order ID: \d{10}", c[6])
    assert anon.report()["audit"]["leaks"]["count"] == 0


def test_case_handles_1_person_keys_and_name_parts(analyzer):
    out, _ = _run(analyzer, _case("dialogue-free-text.jsonl"))
    rec = out["handles-1"]
    _assert_gone(rec, ["bwhitlock", "inesq77", "rafe_dl", "mkowalczyk", "Bartholomew", "Whitlock",
                       "Ines", "Quintero", "Rafe"])
    tool = json.loads(rec.messages[2]["content"])
    first, last = tool["attendees"][1]["display"].split()
    assert first != "Ines" and last != "Quintero"  # first and last name replaced together
    assert first in rec.messages[0]["content"] and first in rec.messages[4]["content"]
    call = json.loads(rec.messages[1]["tool_calls"][0]["function"]["arguments"])
    assert call["attendees"][0] == tool["attendees"][0]["handle"]  # one pseudonym per handle
    assert call["title"] == "Planning"


def test_case_free_2_lower_case_labels_spelled_email(analyzer):
    out, _ = _run(analyzer, _case("dialogue-free-text.jsonl"))
    rec = out["free-2"]
    _assert_gone(rec, ["dagny", "erikstad", "7302918845", "41 quarry lane", "41 Quarry Lane", "03049",
                       "postbox"])
    c = _contents(rec)
    assert "hollis nh" in c[0] and "Hollis NH" in c[1]  # the city stays
    assert re.search(r"\b[a-z]+ dot [a-z]+ at [a-z]+ dot [a-z]+$", c[2])  # still spelled out
    acct = re.search(r"account (\d{10})", c[0]).group(1)
    assert f"account {acct}" in c[1]


# ------------------------------------------------------------------- addresses-free-text.jsonl
def test_case_addresses_street_zip_replaced_city_kept(analyzer):
    out, _ = _run(analyzer, _case("addresses-free-text.jsonl"))
    _assert_gone(out["addr-1"], ["975 Sunset Drive", "78750"])
    assert re.search(r"\d{3} [A-Z][a-z]+.*, Austin TX \d{5}$", out["addr-1"].messages[0]["content"])
    _assert_gone(out["addr-2"], ["88 Larkin Street", "Larkin"])
    assert out["addr-2"].messages[0]["content"].endswith(".")
    _assert_gone(out["addr-3"], ["4417 maple grove road", "80203"])
    assert ", denver co " in out["addr-3"].messages[0]["content"]


def test_address_variations(analyzer):
    recs = [_rec("a1", _msg("user", "Ship it to 12 Elm Court, Portland, OR 97201 please")),
            _rec("a2", _msg("user", "i live at 7 willow bend way, boise id 83702")),
            _rec("a3", _msg("user", "I have 2 bags in the way and 3 items to return, thanks")),
            _rec("a4", _msg("user", "We fly from Austin TX tomorrow, 2 passengers."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["a1"], ["12 Elm Court", "97201"])
    assert "Portland, OR" in out["a1"].messages[0]["content"]
    _assert_gone(out["a2"], ["7 willow bend way", "83702"])
    assert out["a3"].messages[0]["content"] == recs[2].messages[0]["content"]  # no address there
    assert out["a4"].messages[0]["content"] == recs[3].messages[0]["content"]


# ------------------------------------------------------------------- iban / phone / ssn
def _ibans(text):
    return [m.group(0) for m in re.finditer(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}(?: ?[A-Z0-9]{1,3})?\b", text)]


def test_case_iban(analyzer):
    out, _ = _run(analyzer, _case("iban-free-text.jsonl"))
    text = out["iban-1"].messages[0]["content"]
    assert "GB26QAXB40404090817263" not in text
    fake = _ibans(text)[0]
    assert fake[:2] == "GB" and len(fake) == 22 and std_iban.is_valid(fake)


@pytest.mark.parametrize("real", ["GB26 QAXB 4040 4090 8172 63", "DE89 3704 0044 0532 0130 00",
                                  "FR1420041010050500013M02606", "NL91ABNA0417164300"])
def test_iban_variations(analyzer, real):
    rec = _rec("i", _msg("user", f"My IBAN: {real}, thanks."), _msg("assistant", f"Refund sent to {real.replace(' ', '')}."))
    out, _ = _run(analyzer, [rec])
    t = _text(out["i"])
    assert real not in t and real.replace(" ", "") not in t
    fake = re.search(r"My IBAN: ([A-Z0-9 ]+),", out["i"].messages[0]["content"]).group(1)
    assert len(fake) == len(real) and [c == " " for c in fake] == [c == " " for c in real]
    assert fake[:2] == real[:2] and std_iban.is_valid(fake)
    assert fake.replace(" ", "") in out["i"].messages[1]["content"]  # same fake, other layout


def test_case_national_phones(analyzer):
    out, _ = _run(analyzer, _case("phone-national-non-us.jsonl"))
    a, b = out["phone-1"].messages[0]["content"], out["phone-2"].messages[0]["content"]
    assert "020 7946 0321" not in a and re.search(r"on 0\d\d \d{4} \d{4}\.$", a), a
    assert "07700 900461" not in b and re.search(r"is 0\d{4} \d{6}\.$", b), b


@pytest.mark.parametrize("real", ["+44 20 7946 0321", "030 901820 11", "(02) 9374 4000",
                                  "+91 98765 43210", "0161 496 0754"])
def test_phone_variations(analyzer, real):
    out, _ = _run(analyzer, [_rec("p", _msg("user", f"Call me on {real} after five."))])
    t = out["p"].messages[0]["content"]
    assert real not in t
    fake = t[len("Call me on "):-len(" after five.")]
    assert [c.isdigit() for c in fake] == [c.isdigit() for c in real]  # layout kept
    assert fake[:3] == real[:3] if real.startswith("+") else fake[0] == real[0]


def test_case_ssn(analyzer):
    out, _ = _run(analyzer, _case("ssn-free-text.jsonl"))
    t = out["ssn-1"].messages[0]["content"]
    assert "521-44-7893" not in t
    fake = re.search(r"\d{3}-\d{2}-\d{4}", t).group(0)
    assert fake[:3] not in ("000", "666") and not fake.startswith("9")


def test_ssn_variations(analyzer):
    recs = [_rec("s1", _msg("user", "SSN: 521447893")),
            _rec("s2", _msg("user", "my social is 078 05 1120"), _msg("assistant", "Got 078-05-1120.")),
            _rec("s3", _msg("user", "Item 123456789 is broken"))]
    out, _ = _run(analyzer, recs)
    assert "521447893" not in _text(out["s1"])
    _assert_gone(out["s2"], ["078 05 1120", "078-05-1120", "078051120"])
    assert out["s3"].messages[0]["content"] == "Item 123456789 is broken"  # bare digits, no SSN word


# ------------------------------------------------------------------- json-key-variants.jsonl
def test_case_camel_keys_like_snake_keys(analyzer):
    out, _ = _run(analyzer, _case("json-key-variants.jsonl"))
    camel = json.loads(out["camel-1"].messages[2]["content"])
    snake = json.loads(out["snake-1"].messages[2]["content"])
    assert list(camel.values()) == list(snake.values())  # same pseudonyms, key style aside
    assert camel["phoneNumber"] != "4155550142" and camel["postalCode"] != "94110"
    assert camel["lastFour"] != "3391" and camel["fullName"] != "Ingrid Solberg"


def test_key_variations(analyzer):
    obj = {"homePhone": "415-555-0142", "contact_phone": "(628) 555-0199", "mobile_number": "+1 628 555 0177",
           "cell_phone": "6285550123", "billing_zip": "94110", "shipping_postcode": "SW1A 1AA",
           "card_last4": "3391", "last4Digits": "8842", "Customer-Email": "ingrid.s@example.org",
           "phoneType": "mobile", "zipValid": True, "emailVerified": "yes", "lastFourShown": "no",
           "contactPreference": "phone"}
    rec = _rec("k", _msg("tool", json.dumps(obj), tool_call_id="c1"))
    out, _ = _run(analyzer, [rec])
    new = json.loads(out["k"].messages[0]["content"])
    for k in ("homePhone", "contact_phone", "mobile_number", "cell_phone", "billing_zip",
              "shipping_postcode", "card_last4", "last4Digits", "Customer-Email"):
        assert new[k] != obj[k], k
        assert [c.isdigit() for c in str(new[k])] == [c.isdigit() for c in str(obj[k])] or k == "Customer-Email", k
    for k in ("phoneType", "zipValid", "emailVerified", "lastFourShown", "contactPreference"):
        assert new[k] == obj[k], k



def test_keys_of_other_languages_and_invented_schemas(analyzer):
    """Eighth round (a second red-team pass): German, French, Spanish and Dutch keys, accents in
    keys, and the invented keys of CRM / ticket systems (``acctNo``, ``policyNo``, ``orderRef``,
    ``line1``, ``last4ssn``, ``eircode``, ``slack``); business keys beside them stay."""
    obj = {"kunde": {"vorname": "Theresia", "nachname": "Obermaier", "Straße": "Am Mühlenbach 7a", "PLZ": "79098",
                     "Ort": "Freiburg", "Geburtsdatum": "1969-11-30", "Kundennummer": "K-448120", "Telefon": "0761 4491203"},
           "client": {"prénom": "Anne-Laure", "nom": "Mercier-Dufresne", "code_postal": "44000",
                      "numéro_client": "FR-778120"},
           "paciente": {"nombre": "Graciela", "apellidos": "Ibarrola Zubiri", "dni": "48291037K",
                        "fecha_de_nacimiento": "1982-03-14", "teléfono": "612 345 678"},
           "klant": {"voornaam": "Femke", "achternaam": "de Wit-Jansen", "postcode": "1016 GV"},
           "acctNo": "000418873392", "policyNo": "HLP-3390127", "orderRef": "A-991-2204", "line1": "Prinsengracht 263-2",
           "last4ssn": "3390", "eircode": "D02 X285", "slack": "@margit.h", "mrn": "00482291",
           "status": "open", "quantity": 2}
    rec = _rec("k", _msg("tool", json.dumps(obj, ensure_ascii=False), tool_call_id="c1"))
    out, _ = _run(analyzer, [rec])
    new = json.loads(out["k"].messages[0]["content"])
    text = json.dumps(new, ensure_ascii=False)
    for v in ("Theresia", "Obermaier", "Mühlenbach", "79098", "1969-11-30", "K-448120", "4491203", "Anne-Laure",
              "Mercier", "44000", "778120", "Graciela", "Ibarrola", "48291037K", "1982-03-14", "612 345 678", "Femke",
              "Wit-Jansen", "1016 GV", "000418873392", "3390127", "991-2204", "Prinsengracht", "3390", "D02 X285",
              "margit", "00482291"):
        assert v not in text, v
    assert (new["status"], new["quantity"]) == ("open", 2)


# ------------------------------------------------------------------- dialogue variations
def test_dialogue_variations(analyzer):
    recs = [
        _rec("d1", _msg("assistant", "Who am I speaking with today?"), _msg("user", "priya raman"),
             _msg("assistant", "Thanks Priya. What's the order number?"), _msg("user", "It's 4471093385."),
             _msg("user", "login: praman_22 and you can email p dot raman at mailhub dot example"),
             _msg("assistant", "Found order 4471093385 for praman_22.")),
        _rec("d2", _msg("user", "Add Oskar Lindqvist (olindqvist) and Mirela (mirela.p) to the thread"),
             _msg("assistant", None, tool_calls=[{"id": "c", "type": "function", "function": {
                 "name": "share", "arguments": json.dumps({"assignee": "olindqvist",
                                                           "cc": ["mirela.p", "Oskar Lindqvist <oskar@lindqvist.example>"],
                                                           "owner": "olindqvist"})}}]),
             _msg("assistant", "Shared with oskar and Mirela; account no. 88120456.")),
        _rec("d3", _msg("user", "Thanks! Could you confirm the Gold membership and the basic economy fare?"),
             _msg("assistant", "Sure. Your booking is confirmed for Monday in Economy, see you at the Airport.")),
    ]
    out, anon = _run(analyzer, recs)
    _assert_gone(out["d1"], ["priya", "raman", "4471093385", "praman_22", "mailhub"])
    assert re.fullmatch(r"[a-z]+ [a-z'-]+", out["d1"].messages[1]["content"])  # lower case kept
    _assert_gone(out["d2"], ["Oskar", "Lindqvist", "olindqvist", "mirela.p", "Mirela", "88120456",
                             "oskar@lindqvist.example"])
    for i, m in enumerate(recs[2].messages):  # ordinary words, business vocabulary: untouched
        assert out["d3"].messages[i]["content"] == m["content"]
    assert anon.report()["audit"]["leaks"]["count"] == 0


def test_same_customer_shares_pseudonyms_across_records(analyzer):
    a = _rec("r1", _msg("user", "I'm Tamsin Okafor, tokafor482@mailbox.test"))
    b = _rec("r2", _msg("assistant", "What is your full name?"), _msg("user", "Tamsin Okafor"))
    out, _ = _run(analyzer, [a, b])
    name_b = out["r2"].messages[1]["content"]
    assert name_b in out["r1"].messages[0]["content"]


# ------------------------------------------------------------------- kinds found on held data
# Each test is one KIND of miss the held-out measurement showed (docs/anonymization.md), written
# here in other words than any measured template.
def test_names_with_no_context_word(analyzer):
    """Names no key, no id and no context word reveals, that spaCy's small model misses or calls
    a place: non-English names, names with a middle initial, a first name + a last name that are
    both English words; sentence-initial before a verb; single first names mid-sentence."""
    recs = [_rec("n1", _msg("user", "Forward the invoice to Łukasz Zięcik before Friday.")),
            _rec("n2", _msg("user", "We met Antonia Santana at the fair; she wants a quote.")),
            _rec("n3", _msg("user", "Jill Kowalczyk-Brandt wrote back about the delay.")),
            _rec("n4", _msg("user", "Send a copy to Louis Day and to Brianna Young please.")),
            _rec("n5", _msg("user", "Olli-Pekka M. Wälkky\nSenior buyer\nPhone: 0521 61 09 13")),
            _rec("n6", _msg("user", "I told Rasmus, and he asked Miroslava to check it.")),
            _rec("n7", _msg("user", "Add Władysia Wróblewiczka to the list.")),
            _rec("n8", _msg("user", "Rasmus, can you call back tomorrow?"))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["n1"], ["Łukasz", "Zięcik"])
    _assert_gone(out["n2"], ["Antonia", "Santana"])
    _assert_gone(out["n3"], ["Kowalczyk-Brandt"])
    _assert_gone(out["n4"], ["Louis Day", "Brianna", "Young"], ignore_case=False)
    _assert_gone(out["n5"], ["Olli-Pekka", "Wälkky", "0521 61 09 13"])
    _assert_gone(out["n6"], ["Rasmus", "Miroslava"])
    _assert_gone(out["n7"], ["Władysia", "Wróblewiczka"])
    _assert_gone(out["n8"], ["Rasmus"])


def test_places_products_and_other_languages_stay(analyzer):
    """Precision: places, product and business names, German nouns, labels are not names."""
    texts = ["We fly from Buenos Aires to Santa Monica via Los Angeles and San Francisco.",
             "Is the Smart Thermostat compatible with the Home Hub?",
             "Thanks! The Summer Sale ends in June; the Help Center has details.",
             "Können Sie mir die Rechnung für meine Lieferung schicken?",
             "Die Ware kam beschädigt an, ich möchte eine Rückerstattung.",
             "Ik wil mijn Bestelling annuleren, alstublieft.",
             "Please confirm your Address Line 1 and Address Line 2.",
             "Please escalate to Customer Care; the Refund Desk is closed.",
             "Bien sûr, merci beaucoup!"]
    recs = [_rec(f"c{i}", _msg("user", t)) for i, t in enumerate(texts)]
    out, anon = _run(analyzer, recs)
    for i, t in enumerate(texts):
        assert out[f"c{i}"].messages[0]["content"] == t


def test_lower_case_names_that_are_also_words(analyzer):
    """A bare reply to a name question in lower case whose words are also English words (a verb,
    an adjective), and "<name> here" introductions: replaced in lower case and Capitalized."""
    recs = [_rec("l1", _msg("assistant", "May I have your name, please?"), _msg("user", "roman trevisani"),
                 _msg("assistant", "Thank you Roman. The account number?")),
            _rec("l2", _msg("assistant", "Who's calling?"), _msg("user", "jack mcdaniel"),
                 _msg("assistant", "Hi Jack, how can I help?")),
            _rec("l3", _msg("user", "hey, its donald brooks here - a question about my bill"),
                 _msg("assistant", "Sure Donald.")),
            _rec("l4", _msg("user", "ok thanks, eugenia here btw")),
            _rec("l5", _msg("user", "Hello, Aria here - can you help?"))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["l1"], ["roman", "trevisani"])
    _assert_gone(out["l2"], ["jack", "mcdaniel"])
    _assert_gone(out["l3"], ["donald", "brooks"])
    _assert_gone(out["l4"], ["eugenia"])
    _assert_gone(out["l5"], ["Aria"])


def test_label_separator_is_a_whole_word(analyzer):
    """"my login is isaura_x": the "is" of "isaura" is not the label's separator."""
    out, _ = _run(analyzer, [_rec("h", _msg("user", "my login is isaura_gimnez720, thanks"),
                                  _msg("assistant", "Found isaura_gimnez720."))])
    _assert_gone(out["h"], ["isaura_gimnez720", "isaura"])


def test_person_labels_and_surnames_that_are_words(analyzer):
    recs = [_rec("p1", _msg("user", "Beneficiary: Zacco, IBAN DE89370400440532013000.")),
            _rec("p2", _msg("user", "Owner: Ines Quintero")),
            _rec("p3", _msg("user", "I'm Marcus Read; the price is 20 dollars.")),
            _rec("p4", _msg("user", "Hi, I'm Elijah Price and I read the price list."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["p1"], ["Zacco"])
    _assert_gone(out["p2"], ["Ines", "Quintero"])
    _assert_gone(out["p3"], ["Marcus Read", "Marcus"], ignore_case=False)
    assert "the price is 20 dollars" in out["p3"].messages[0]["content"]
    _assert_gone(out["p4"], ["Elijah Price", "Elijah"], ignore_case=False)
    assert "I read the price list" in out["p4"].messages[0]["content"]


def _luhn_complete(prefix: str, n: int = 16) -> str:
    digits = [int(c) for c in prefix] + [0] * (n - 1 - len(prefix))
    total = sum((d * 2 - 9 if d * 2 > 9 else d * 2) if i % 2 == 0 else d
                for i, d in enumerate(reversed(digits)))
    return "".join(map(str, digits)) + str((10 - total % 10) % 10)


def test_mastercard_2_series_and_national_phones_after_a_phone_word(analyzer):
    card = _luhn_complete("2223003122")
    recs = [_rec("m1", _msg("user", f"Charge {card} for the renewal.")),
            _rec("m2", _msg("user", f"pay with {card[:4]} {card[4:8]} {card[8:12]} {card[12:]} please")),
            _rec("m3", _msg("user", "Please have the manager call me at 67 818 65 32 tomorrow.")),
            _rec("m4", _msg("user", "Mobile: 476 1540, desk (49) 846-249")),
            _rec("m5", _msg("user", "Item 1008292230 and order 4471093385 are both late."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["m1"], [card])
    _assert_gone(out["m2"], [f"{card[:4]} {card[4:8]} {card[8:12]} {card[12:]}"])
    _assert_gone(out["m3"], ["67 818 65 32"])
    _assert_gone(out["m4"], ["476 1540", "(49) 846-249"])
    assert "Item 1008292230" in out["m5"].messages[0]["content"]  # an item number is no phone


def test_european_streets_and_postcodes(analyzer):
    recs = [_rec("e1", _msg("user", "Dennis Alvarado\n8764 Barkargatan 44\nSKUTSKÄR\nSweden 66651")),
            _rec("e2", _msg("user", "She lives on Allika 46, near the harbour.")),
            _rec("e3", _msg("user", "The shop is at Via Partenope 67 and Untere Bahnhofstrasse 6.")),
            _rec("e4", _msg("user", "We flew 2024 miles from Denver in May 2024."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["e1"], ["Barkargatan 44", "66651", "Dennis", "Alvarado"])
    assert "Sweden" in out["e1"].messages[0]["content"]  # the country stays
    _assert_gone(out["e2"], ["Allika 46"])
    _assert_gone(out["e3"], ["Via Partenope 67", "Untere Bahnhofstrasse 6"])
    assert out["e4"].messages[0]["content"] == recs[3].messages[0]["content"]


def test_streets_with_two_numbers_po_boxes_and_postcodes_of_any_format(analyzer):
    """Issue 11, presidio-evaluator's tune half: a building number before a street that carries
    its own number (any script, street abbreviations), French-order streets with no number after,
    a street the text calls a street, P.O. boxes, a postcode after a label in any country's
    format, the postcode of an address block after its unit line; dates and counts stay."""
    recs = [_rec("a1", _msg("user", "Sender:\n612 al. Jana Pawła 18\n Suite 40\n Gdynia\n Poland 81301")),
            _rec("a2", _msg("user", "Pick me up at 27 Οδός Ερμού 15, thanks.")),
            _rec("a3", _msg("user", "Her office moved: 88 14 Rue Lafayette\nParis")),
            _rec("a4", _msg("user", "Drop it at 301 2210 Maple Crest Road, Fairview")),
            _rec("a5", _msg("user", "Meet me by Kastanienweg 12 street near the park.")),
            _rec("a6", _msg("user", "Mail the form to P.O. Box 4471 instead.")),
            _rec("a7", _msg("user", "Postcode: SW1A 2BJ and zip code: 9020")),
            _rec("a8", _msg("user", "Unit 7\nValmiera\nLatvia 40123")),
            _rec("a9", _msg("user", "I bought 2 Wireless Earbuds 3 weeks ago, on 12 March 2024, gate 14.")),
            _rec("a10", _msg("user", "I bought 2 Wireless earbuds 3, thanks")),
            _rec("a11", _msg("user", "Her address: 451 Petőfi út 12."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["a1"], ["612", "Jana Pawła 18", "81301"])
    _assert_gone(out["a2"], ["Ερμού 15"])
    _assert_gone(out["a3"], ["Rue Lafayette"])
    _assert_gone(out["a4"], ["2210 Maple Crest Road", "301"])
    _assert_gone(out["a5"], ["Kastanienweg 12"])
    _assert_gone(out["a6"], ["4471"])
    _assert_gone(out["a7"], ["SW1A 2BJ", "9020"])
    _assert_gone(out["a8"], ["40123"])
    assert out["a9"].messages[0]["content"] == recs[8].messages[0]["content"]
    assert out["a10"].messages[0]["content"] == recs[9].messages[0]["content"]
    _assert_gone(out["a11"], ["451", "Petőfi út 12"])


def test_short_national_phones_and_call_before_a_number(analyzer):
    recs = [_rec("p1", _msg("user", "Phone: 48 21 07")),
            _rec("p2", _msg("user", "Please call 55 602 118 after six.")),
            _rec("p3", _msg("user", "Room 48 21 and 07 chairs.")),
            _rec("p4", _msg("user", "Fax: +1-415-320-0199x23, office 212.830.4471 ext. 9")),
            _rec("p5", _msg("user", "no SMS reached my registered 06.12.44.90.17 yet")),
            _rec("p6", _msg("user", "Desk: 4153200199"))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["p1"], ["48 21 07"])
    _assert_gone(out["p2"], ["55 602 118"])
    _assert_gone(out["p4"], ["415-320-0199", "x23", "830.4471"])
    _assert_gone(out["p5"], ["06.12.44.90.17"])
    _assert_gone(out["p6"], ["4153200199"])
    assert out["p3"].messages[0]["content"] == recs[2].messages[0]["content"]


def test_bare_phone_numbers_without_a_phone_word_and_business_ids_kept(analyzer):
    """Issue 11, third round: a number presidio's phone recognizer validates (phonenumbers) is a
    phone even with no phone word or layout ("I'm at 7183904456"), in national forms too
    ("07700482913"), and with an extension inside the value; a number the record calls an item,
    order or tracking id, or holds under a business key, stays."""
    catalog = json.dumps({"item_id": "4159271836", "price": 12.5})
    recs = [_rec("b1", _msg("user", "I'm at 7183904456 if anything changes.")),
            _rec("b2", _msg("user", "Try 07700482913 instead, or 2125550187x2210.")),
            _rec("b3", _msg("user", "Leave a message at 212.555.0187x2210 after lunch.")),
            _rec("b4", _msg("user", "Got it, 6465550142, thanks")),
            _rec("b5", _msg("user", "Please swap item 6465550142 for 7183904456."),
                 _msg("tool", catalog),
                 _msg("assistant", "4159271836 is in stock; tracking number 718390445612 is on its way.")),
            _rec("b6", _msg("user", "Order ids 7183904456 and 6465550142 were both late."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["b1"], ["7183904456"])
    _assert_gone(out["b2"], ["07700482913"])
    _assert_gone(out["b3"], ["212.555.0187x2210", "x2210"])
    _assert_gone(out["b4"], ["6465550142"])
    # retail's item ids are 10-digit numbers (its tool schema: "such as '6086499569'"): in a text
    # that names items they are ids; the tool result's value is a business value of the record
    assert out["b5"].messages[0]["content"] == recs[4].messages[0]["content"]
    assert out["b5"].messages[2]["content"] == recs[4].messages[2]["content"]
    assert out["b6"].messages[0]["content"] == recs[5].messages[0]["content"]


def test_card_numbers_in_any_issuer_range_without_a_card_word(analyzer):
    """Luhn-valid numbers in an issuer's range (Faker's table: 19-digit Visa, JCB 2131 / 1800,
    Maestro) are card numbers with no card word before them; a Luhn-valid 12-digit number under
    a JSON key that says nothing, or after "tracking", is no card."""
    visa19 = _luhn_complete("411122223333444", 19)
    jcb15 = _luhn_complete("21310000123", 15)
    maestro = _luhn_complete("6759000012", 12)
    recs = [_rec("c1", _msg("user", f"I paid with {visa19} yesterday.")),
            _rec("c2", _msg("user", f"{jcb15} was charged twice")),
            _rec("c3", _msg("user", f"Please use {maestro}, not the other one.")),
            _rec("c4", _msg("tool", json.dumps({"tracking_id": [maestro]})),
                 _msg("assistant", f"Your tracking id is {maestro}."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["c1"], [visa19])
    _assert_gone(out["c2"], [jcb15])
    _assert_gone(out["c3"], [maestro])
    assert maestro in _text(out["c4"]) and out["c4"].messages[1]["content"] == recs[3].messages[1]["content"]


def test_postcodes_around_places_and_after_labels(analyzer):
    """Postcodes of many layouts: after a label with words between ("the zipcode of my parents
    is 31-870"), the value before its label, after a place spaCy or the place gazetteer knows
    ("Lyon, 69003", "Tarnów, 33-112"), before one ("8213 Ljubljana"), 3-4 digits after a state
    code, British and Canadian shapes anywhere; a year before a city and a building number
    before a street stay."""
    recs = [_rec("z1", _msg("user", "The zipcode of my parents is 31-870")),
            _rec("z2", _msg("user", "2450 is the postcode for our cabin")),
            _rec("z3", _msg("user", "Ship it to Tarnów, 33-112.")),
            _rec("z4", _msg("user", "She moved to 8213 Ljubljana last year.")),
            _rec("z5", _msg("user", "Address: 12 Oak Lane, Fairview OR 9702")),
            _rec("z6", _msg("user", "They live at 62 Hill Road, Leeds LS1 4AP.")),
            _rec("z7", _msg("user", "In 2019 Ljubljana hosted the fair; we met at 5602 Rebecca Ville."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["z1"], ["31-870"])
    _assert_gone(out["z2"], ["2450"])
    _assert_gone(out["z3"], ["33-112"])
    _assert_gone(out["z4"], ["8213"])
    _assert_gone(out["z5"], ["9702"])
    _assert_gone(out["z6"], ["LS1 4AP"])
    assert "In 2019 Ljubljana" in out["z7"].messages[0]["content"]


def test_names_no_gazetteer_knows_in_a_persons_slot(analyzer):
    """A Capitalized word no gazetteer knows and no English word is a name where only a person
    stands: after a verb of speech or giving ("handed Zivko the keys"), before a question to the
    person ("Bendik, could you ..."), at the start of a sentence before a verb people do
    ("Hilarion works for ..."); a pair of such words that owns something ("Tamerlan S Godina's
    lawyer"). Ordinary sentences stay."""
    recs = [_rec("n1", _msg("user", "Jeffrey handed Zivko the keys.")),
            _rec("n2", _msg("user", "Bendik, could you pass the salt?")),
            _rec("n3", _msg("user", "Hilarion works for Acme Corp.")),
            _rec("n4", _msg("user", "Tamerlan S Godina's lawyer called back.")),
            _rec("n5", _msg("user", "Lisbon, could you believe it, was sunny all week."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["n1"], ["Zivko"])
    _assert_gone(out["n2"], ["Bendik"])
    _assert_gone(out["n3"], ["Hilarion"])
    _assert_gone(out["n4"], ["Tamerlan", "Godina"])
    assert "Lisbon" in out["n5"].messages[0]["content"]


def test_letterheads_speaker_labels_and_name_questions(analyzer):
    """A name on its own line above a job title (spaCy's span runs over the line break), the
    speaker labels of a transcript, the answer after "what's your name?" in the same message, a
    gazetteer first name spaCy calls a place."""
    recs = [_rec("l1", _msg("user", "Marit Olsen\n\nProcurement lead\n\nE-mail:\nMaritOlsen@example.org")),
            _rec("l2", _msg("user", "Vedrana: Are we still on for lunch?\nTobiah: Yes, at noon.")),
            _rec("l3", _msg("user", "What is your full name? Ottilie Brankovic")),
            _rec("l4", _msg("user", "Come back soon, Rebecca!")),
            _rec("l5", _msg("user", "Date: 2020-01-01\nNote: call the supplier\nStatus: done"))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["l1"], ["Marit", "Olsen"])
    _assert_gone(out["l2"], ["Vedrana", "Tobiah"])
    _assert_gone(out["l3"], ["Ottilie", "Brankovic"])
    _assert_gone(out["l4"], ["Rebecca"])
    assert out["l5"].messages[0]["content"] == recs[4].messages[0]["content"]


def test_letterhead_names_with_contact_blocks_and_owners_of_personal_data(analyzer):
    """A letterhead name whose block holds an e-mail, a URL and a street with French particles
    (no reason to read the text as French), a job title starting with a place word on the next
    line ("College"), a name owning an address, a first name before "lives" / "is from"."""
    recs = [_rec("h1", _msg("user", "Ingvild Haugerud\n\nSupply planner\n\nE-mail:\nIngvildHaugerud@example.org\n\n"
                                    "Website:\nhttps://example.net/\n\nAddress:\n41 12 Rue de la Gare\n Apt. 5")),
            _rec("h2", _msg("user", "Torvald Seim\nCollege registrar\nNordic Widgets AS")),
            _rec("h3", _msg("user", "Here is Sigrun's phone number, as asked.")),
            _rec("h4", _msg("user", "Amalie is from the Bergen office. Amazon's address is public."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["h1"], ["Ingvild", "Haugerud"])
    _assert_gone(out["h2"], ["Torvald", "Seim"])
    _assert_gone(out["h3"], ["Sigrun"])
    _assert_gone(out["h4"], ["Amalie"])
    assert "Amazon's address" in out["h4"].messages[0]["content"]


def test_domain_words_and_id_formats_come_from_the_domains(analyzer, monkeypatch):
    """No airline or retail vocabulary in the anonymizer: flight numbers, cabins, order and
    reservation id formats are read from the registered domains' tool schemas and state; with
    no domain registered, the 6-character code is an ordinary word and #W1234567 no order id."""
    from pipeline.anonymize import config as cfg

    vocab = cfg.domain_vocabulary()
    assert {"flight_number", "cabin", "item_ids"} <= vocab.business_keys
    assert ("ORDER_ID", r"#?W\d{7}") in vocab.id_patterns
    assert any(c.entity == "RESERVATION_ID" and c.length == 6 for c in vocab.codes)
    assert any(re.fullmatch(b, "HAT123") for b in vocab.business_ids)
    assert {"economy", "silver", "basiceconomy"} <= vocab.keep_words
    text = "My reservation 8JX2WO, flight HAT123, parcel #W1234567."
    out, _ = _run(analyzer, [_rec("d", _msg("user", text))])
    t = out["d"].messages[0]["content"]
    assert "8JX2WO" not in t and "#W1234567" not in t and "HAT123" in t
    monkeypatch.setattr(cfg, "_domain_vocabulary", lambda config: cfg.DomainVocabulary())
    out, _ = _run(analyzer, [_rec("d", _msg("user", text))])
    assert out["d"].messages[0]["content"] == text  # nothing of the domains known


def test_domain_pii_hints_are_read(monkeypatch):
    """A domain's optional ``pii_hints`` add business keys, words and id formats."""
    import pipeline.domains as domains
    from pipeline.anonymize import config as cfg
    from pipeline.domains.base import Domain

    class Shop(Domain):
        name, policy = "shop", "Orders ship from the Zorblax warehouse."
        tools: dict = {}
        write_tools: set = set()
        read_tools: set = set()
        pii_hints = {"business_keys": ["sku"], "keep_words": ["Zorblax"],
                     "id_patterns": {"ACCOUNT_ID": [r"CUST-\d{6}"]}, "business_ids": [r"SKU-\d{4}"]}

    monkeypatch.setattr(domains, "known_domains", lambda: ["shop"])
    monkeypatch.setattr(domains, "get_domain", lambda name: Shop())
    vocab = cfg._domain_vocabulary(cfg.PiiConfig.load())
    assert "sku" in vocab.business_keys and "zorblax" in vocab.keep_words
    assert ("ACCOUNT_ID", r"CUST-\d{6}") in vocab.id_patterns and r"SKU-\d{4}" in vocab.business_ids


def test_audit_business_value_is_no_leak(analyzer):
    """The passenger "Mia" searched in any case is not the airport code "MIA" the record holds
    under ``origin`` (taubench-10-0 / -1 of the real airline logs)."""
    rec = _rec("a", _msg("tool", json.dumps({"passengers": [{"first_name": "Mia", "last_name": "Kim"}],
                                              "origin": "MIA", "destination": "IAH"}), tool_call_id="t"),
               _msg("assistant", "Mia Kim flies from Miami (MIA) to Houston (IAH)."))
    out, anon = _run(analyzer, [rec])
    assert "MIA" in _text(out["a"]) and not re.search(r"\bMia\b", _text(out["a"]))
    assert anon.report()["audit"]["leaks"]["count"] == 0


# ------------------------------------------------------------------- issue 11, fourth round
def test_first_names_of_many_countries_from_the_names_dataset_gazetteer(analyzer):
    """Single first names no Faker locale knows (Nigerian, Kazakh, Zimbabwean ...) in the places
    where a gazetteer first name stands: mid-sentence, before ", can I" at the start."""
    from pipeline.anonymize.names_data import extra_names

    firsts, _lasts = extra_names()
    assert {"oluwaseun", "chidinma", "yerlan", "tendai"} <= firsts
    recs = [_rec("g1", _msg("user", "Yesterday I spoke with Oluwaseun about the refund.")),
            _rec("g2", _msg("user", "Chidinma, can I get the tracking link?")),
            _rec("g3", _msg("user", "The parcel was signed for by Yerlan at the door.")),
            _rec("g4", _msg("user", "Please let Tendai know the order shipped."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["g1"], ["Oluwaseun"])
    _assert_gone(out["g2"], ["Chidinma"])
    _assert_gone(out["g3"], ["Yerlan"])
    _assert_gone(out["g4"], ["Tendai"])
    assert "refund" in out["g1"].messages[0]["content"]


def test_family_name_particles_middle_initials_and_degrees(analyzer):
    """Family names with particles ("van der", "de") in text, on a letterhead and after "name is";
    a degree after a name ("MD" is no Maryland here); a first name another language also uses as
    a word ("Ella") in a sentence with a French company name. The particle itself may stay."""
    recs = [_rec("p1", _msg("user", "Please forward this to Joost van der Meulen today.")),
            _rec("p2", _msg("user", "Annelies de Wit\nProcurement officer\nBrouwer Logistics BV\nPhone: 020 555 0147")),
            _rec("p3", _msg("user", "Her family name is van den Broek, not Broekman.")),
            _rec("p4", _msg("user", "We got a referral from Karolina Lindgren MD on Monday.")),
            _rec("p5", _msg("user", "Ella is from Dubois et Fils SA and called twice."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["p1"], ["Joost", "Meulen"])
    _assert_gone(out["p2"], ["Annelies", "Wit"], ignore_case=False)
    _assert_gone(out["p3"], ["Broek"])
    _assert_gone(out["p4"], ["Karolina", "Lindgren"])
    _assert_gone(out["p5"], ["Ella"])
    assert "forward this to" in out["p1"].messages[0]["content"]


def test_lists_of_names_and_surnames_that_own_something(analyzer):
    """In a list of single Capitalized words where one is a known name, the others are people too
    (also a surname that is an English word: "Baker"); a gazetteer surname owning something
    mid-sentence ("Gutierrez's paella"). A list of colours stays."""
    recs = [_rec("l1", _msg("user", "The partners are Okafor, Lindqvist and Baker, all in Oslo.")),
            _rec("l2", _msg("user", "Everyone loved Gutierrez's paella at the party.")),
            _rec("l3", _msg("user", "The mugs come in Red, Green and Blue."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["l1"], ["Okafor", "Lindqvist", "Baker"], ignore_case=False)
    _assert_gone(out["l2"], ["Gutierrez"])
    assert out["l3"].messages[0]["content"] == recs[2].messages[0]["content"]


def test_streets_with_a_separate_street_noun_and_post_boxes(analyzer):
    """The street noun as a word of its own, in lower case, after the name ("Kongens gate 14",
    "Andrássy út 22", "Prešernova ulica 10") or before it ("ul. Marszałkowska 84", "πλατεία
    Συντάγματος 3" with a building number first); "Postbox 3312"; a building number before a
    P.O. Box. An airport gate stays."""
    recs = [_rec("s1", _msg("user", "The office moved to Kongens gate 14 last spring.")),
            _rec("s2", _msg("user", "Meet me in front of Andrássy út 22 tomorrow.")),
            _rec("s3", _msg("user", "Please send it to ul. Marszałkowska 84, thanks.")),
            _rec("s4", _msg("user", "The shop is at 17 πλατεία Συντάγματος 3")),
            _rec("s5", _msg("user", "Mail the form to Postbox 3312 instead.")),
            _rec("s6", _msg("user", "New address: 52 P.O. Box 778")),
            _rec("s7", _msg("user", "She grew up on Prešernova ulica 10 in Kranj.")),
            _rec("s8", _msg("user", "Departure gate 12 opens at nine."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["s1"], ["Kongens gate 14"])
    _assert_gone(out["s2"], ["Andrássy út 22"])
    _assert_gone(out["s3"], ["Marszałkowska 84"])
    _assert_gone(out["s4"], ["Συντάγματος 3", "17 πλατεία"])
    _assert_gone(out["s5"], ["Postbox 3312"])
    _assert_gone(out["s6"], ["52 P.O. Box"])
    _assert_gone(out["s7"], ["Prešernova ulica 10"])
    assert out["s8"].messages[0]["content"] == recs[7].messages[0]["content"]


def test_full_names_around_possessives_titles_vocatives_and_towns(analyzer):
    """Issue 11, fifth round (kinds from the tune half of presidio-evaluator, in sentences written
    here): a possessive inside a run ("Ingrid Barth's essays": the first name was replaced and
    the surname, a WordNet noun, kept); a surname that is a street noun after a middle initial or
    a first name ("Fletcher K Hill", "to Imogen Park"); a sentence-initial word-name before a
    non-English surname where an initial, a possessive, an appositive or a letterhead line says
    person ("Ruby O Guibord's", "Hope Tarkovska, the courier, said", "Tore Arvidsson" alone on
    its line); a title before a surname the chunk also uses in lower case ("Mrs. Hill ... the
    hill"); a degree after a surname no gazetteer knows ("Mimi Langen MD"); vocatives (", Chase!",
    "Kuyra, can I ..."), the one spoken to ("said Fred to Dawn"), "named him Yuito"; a first
    name that is also a town in a person's slot ("leave me Miroslav,", "Marco lives on"), and a
    known place in a list of people ("founders: Costa, Ana and Elizabeth"); a word no dictionary
    or gazetteer knows mid-sentence before what a person is or does ("that Oskuvaara will come").
    A town in an address and a street with a number stay places; "the hill" and "the park" stay
    words; product and shop names before other words ("broke Bluetooth on", "to Ikea and") stay."""
    recs = [_rec("q1", _msg("user", "We were reading the essays from Ingrid Barth's early years.")),
            _rec("q2", _msg("user", "The name on file is wrong, please change it to Fletcher K Hill")),
            _rec("q3", _msg("user", "I gave the spare keys to Imogen Park yesterday.")),
            _rec("q4", _msg("user", "Ruby O Guibord's lawyer called about the claim.")),
            _rec("q5", _msg("user", "Hope Tarkovska, the courier, said the parcel was left outside.")),
            _rec("q6", _msg("user", "Tore Arvidsson\nMedical secretary\nOxford Dental Ltd\n996 Taylor Hollow")),
            _rec("q7", _msg("user", "My note for Mrs. Hill is below. We walked up the hill after lunch.")),
            _rec("q8", _msg("user", "Our songwriter Mimi Langen MD wrote the jingle.")),
            _rec("q9", _msg("user", "Stop sulking and come to dinner, Chase!")),
            _rec("q10", _msg("user", "Kuyra, can I call you tomorrow about the refund?")),
            _rec("q11", _msg("user", "Thanks! said Fred to Dawn at the door.")),
            _rec("q12", _msg("user", "She named him Yuito after her grandfather.")),
            _rec("q13", _msg("user", "It is hard, but do not leave me Miroslav, I need the help.")),
            _rec("q14", _msg("user", "Marco lives on 7005 Wilson Ridges since May.")),
            _rec("q15", _msg("user", "Our three founders: Costa, Ana and Elizabeth.")),
            _rec("q16", _msg("user", "He lives at 12 Charlotte Park near the park in Oslo.")),
            _rec("q17", _msg("user", "I doubt that Oskuvaara will come, but Tjelmiri just said yes.")),
            _rec("q18", _msg("user", "The update broke Bluetooth on my phone, so I went to Ikea and back."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["q1"], ["Ingrid", "Barth"])
    _assert_gone(out["q2"], ["Fletcher", "Hill"])
    _assert_gone(out["q3"], ["Imogen", "Park"], ignore_case=False)
    _assert_gone(out["q4"], ["Ruby", "Guibord"], ignore_case=False)
    _assert_gone(out["q5"], ["Hope", "Tarkovska"], ignore_case=False)
    _assert_gone(out["q6"], ["Tore", "Arvidsson"])
    _assert_gone(out["q7"], ["Hill"], ignore_case=False)
    _assert_gone(out["q8"], ["Mimi", "Langen"])
    _assert_gone(out["q9"], ["Chase"], ignore_case=False)
    _assert_gone(out["q10"], ["Kuyra"])
    _assert_gone(out["q11"], ["Fred", "Dawn"], ignore_case=False)
    _assert_gone(out["q12"], ["Yuito"])
    _assert_gone(out["q13"], ["Miroslav"])
    _assert_gone(out["q14"], ["Marco", "7005 Wilson Ridges"])
    _assert_gone(out["q15"], ["Costa", "Ana", "Elizabeth"], ignore_case=False)
    _assert_gone(out["q16"], ["12 Charlotte Park"])
    assert "the hill after lunch" in out["q7"].messages[0]["content"]
    assert "near the park in Oslo" in out["q16"].messages[0]["content"]
    assert "Medical secretary" in out["q6"].messages[0]["content"]
    _assert_gone(out["q17"], ["Oskuvaara", "Tjelmiri"])
    assert out["q18"].messages[0]["content"] == recs[17].messages[0]["content"]


def test_grouped_national_phone_layouts_without_a_phone_word_before(analyzer):
    """Issue 11, fifth round: national layouts of the generator's person records (digit groups,
    7-11 digits) where no phone word stands right before the number: a phone word later in the
    sentence ("... is the number for reception", "(home)"), "landline" / "voicemail", or 3+
    groups alone; dotted US layouts after such a word. Amounts, dates, order and tracking
    numbers, card and IBAN groups stay as they are (or go as cards / IBANs)."""
    recs = [_rec("g1", _msg("user", "My number changed to 71 604 338 last week.")),
            _rec("g2", _msg("user", "25 870914 is the number for reception.")),
            _rec("g3", _msg("user", "Numbers: 03.44.19.70.62 (home)")),
            _rec("g4", _msg("user", "I left a voicemail on 614.207.5518 yesterday.")),
            _rec("g5", _msg("user", "Her landline: 20 558 131")),
            _rec("g6", _msg("user", "Send it to 58-41-22-07 as a text.")),
            _rec("n1", _msg("user", "The refund of 1 250 000 SEK was approved on 2024-05-20 (20.05.2024).")),
            _rec("n2", _msg("user", "Order 123 456 789 shipped, tracking 44 5566 7788.")),
            _rec("n3", _msg("user", "The total came to 1 234 567 dollars at 10:30."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["g1"], ["71 604 338"])
    _assert_gone(out["g2"], ["25 870914"])
    _assert_gone(out["g3"], ["03.44.19.70.62"])
    _assert_gone(out["g4"], ["614.207.5518"])
    _assert_gone(out["g5"], ["20 558 131"])
    _assert_gone(out["g6"], ["58-41-22-07"])
    _assert_unchanged(out, recs, "n1", "n2", "n3")


def test_streets_and_postcodes_in_address_blocks_no_gazetteer_knows(analyzer):
    """Issue 11, fifth round: an address written the European way whose street has no street
    noun and whose place no gazetteer knows - name and house number, then a postcode and its
    place, on one line or on several ("Brekkmoen 41 / 812 Tálknavík", "Kaasiku 17, Lõvasoo
    61233"), also in Greek script ("Κυπριανού 58, 3036 ΛΕΜΕΣΟΣ"); a postcode after a place no
    gazetteer knows after a street noun or after an address word ("Address: 12 Harbour Rd,
    Pukeatua 3880"). A flight, a date and a count stay."""
    recs = [_rec("b1", _msg("user", "Our office: Brekkmoen 41 / 812 Tálknavík")),
            _rec("b2", _msg("user", "Kaasiku 17, Lõvasoo 61233")),
            _rec("b3", _msg("user", "Vrtača 58\n4263 Zgornje Dule\nSlovenia")),
            _rec("b4", _msg("user", "Address: 12 Harbour Rd, Pukeatua 3880")),
            _rec("b5", _msg("user", "New address is Ugarte 2715, Chimbote, 20415")),
            _rec("b6", _msg("user", "Please ship it to Κυπριανού 58, 3036 ΛΕΜΕΣΟΣ.")),
            _rec("b7", _msg("user", "She lives on the east side of Ερμού 112 now.")),
            _rec("n1", _msg("user", "Flight HAT412, 2024 schedule: 4 bags for Denver.")),
            _rec("n2", _msg("user", "We booked Room 12, 1500 guests came to Oslo."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["b1"], ["Brekkmoen 41", "812"])
    _assert_gone(out["b2"], ["Kaasiku 17", "61233"])
    _assert_gone(out["b3"], ["Vrtača 58", "4263"])
    _assert_gone(out["b4"], ["3880"])
    _assert_gone(out["b5"], ["Ugarte 2715", "20415"])
    _assert_gone(out["b6"], ["Κυπριανού 58", "3036"])  # Greek script (fifth round, later)
    _assert_gone(out["b7"], ["Ερμού 112"])
    _assert_unchanged(out, recs, "n1", "n2")


def test_names_in_lower_case_signatures_lists_and_person_slots(analyzer):
    """Issue 11, sixth round (kinds from presidio-evaluator's person **values** - shared by both
    halves - put into carrier sentences written here, ``measure --source evaluator-values``): names
    in a text typed or lower-cased whole ("i met dorota wiśniewska", "mrs. haugland", "hello
    torvald,", "ingeborg said"); a sentence-initial surname before what a person does
    ("Kowalczyk has not answered", "Foster said"); the other name of a two-name list ("Hazel and
    Radomir"); a signature after a closing line, whatever its words ("Kind regards,\\nEsme
    Lodge"); a Capitalized word mid-sentence before a family name ("thanks to Noble Petrenko");
    a place or a word-name after "spoke with" / "my husband" ("spoke with Lombardi", "My husband
    Lorenzo"); a gazetteer name asked about ("Is Dragana available"); a first name before "here"
    at the start ("Harriet here,"); "cc:" as a person label. Teams, departments, brands and
    lower-case vocabulary in the same frames stay."""
    recs = [_rec("r1", _msg("user", "i met dorota wiśniewska at the airport and she was lovely.")),
            _rec("r2", _msg("user", "mrs. haugland is waiting in the lobby.")),
            _rec("r3", _msg("user", "hello torvald, the replacement ships today.")),
            _rec("r4", _msg("user", "ingeborg said the box was empty.")),
            _rec("r5", _msg("user", "Kowalczyk has not answered my emails since June.")),
            _rec("r6", _msg("user", "Foster said the driver never came.")),
            _rec("r7", _msg("user", "I called Hazel and Radomir this morning.")),
            _rec("r8", _msg("user", "The replacement is fine.\nKind regards,\nEsme Lodge")),
            _rec("r9", _msg("user", "The refund went through thanks to Noble Petrenko in billing.")),
            _rec("r10", _msg("user", "I spoke with Lombardi at the depot about it.")),
            _rec("r11", _msg("user", "My husband Lorenzo will collect the parcel.")),
            _rec("r12", _msg("user", "Is Dragana available this afternoon?")),
            _rec("r13", _msg("user", "Harriet here, calling about the invoice.")),
            _rec("r14", _msg("user", "cc: Mbali Dlamini")),
            # must stay
            _rec("s1", _msg("user", "Support said the parcel is lost.")),
            _rec("s2", _msg("user", "I talked to Support yesterday and to Billing today.")),
            _rec("s3", _msg("user", "Thanks for waiting.\nRegards,\nThe Support Team")),
            _rec("s4", _msg("user", "the grant application was rejected by the board, sadly.")),
            _rec("s5", _msg("user", "Amazon has not replied to my complaint.")),
            _rec("s6", _msg("user", "Is Bluetooth available on this model?")),
            _rec("s7", _msg("user", "we spoke with sales and billing about the invoice.")),
            _rec("s8", _msg("user", "muy bien, gracias por la ayuda con el pedido."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["r1"], ["dorota", "wiśniewska"])
    _assert_gone(out["r2"], ["haugland"])
    _assert_gone(out["r3"], ["torvald"])
    _assert_gone(out["r4"], ["ingeborg"])
    _assert_gone(out["r5"], ["Kowalczyk"])
    _assert_gone(out["r6"], ["Foster"], ignore_case=False)
    _assert_gone(out["r7"], ["Hazel", "Radomir"], ignore_case=False)
    _assert_gone(out["r8"], ["Esme", "Lodge"], ignore_case=False)
    _assert_gone(out["r9"], ["Noble", "Petrenko"], ignore_case=False)
    _assert_gone(out["r10"], ["Lombardi"])
    _assert_gone(out["r11"], ["Lorenzo"])
    _assert_gone(out["r12"], ["Dragana"])
    _assert_gone(out["r13"], ["Harriet"])
    _assert_gone(out["r14"], ["Mbali", "Dlamini"])
    assert "The replacement is fine." in out["r8"].messages[0]["content"]
    _assert_unchanged(out, recs, *[f"s{i}" for i in range(1, 9)])


def test_towns_beside_postcodes_are_not_names(analyzer):
    """Issue 11, sixth round (precision): a town no gazetteer knows, where an address puts it - a
    postcode right after or before it on its line, or in brackets after a building number - was
    replaced as a person's name (62 of 900 records of ``measure --source evaluator-values``). The
    town stays; the postcode is still replaced; a name beside a postcode-like number in a
    person's slot is still a name."""
    recs = [_rec("t1", _msg("user", "Ship it to Mäkitie 12, 6012 Pölläkkä.")),
            _rec("t2", _msg("user", "Address: Kossuth u. 5., Nagyharsányfalu 7822")),
            _rec("t3", _msg("user", "Deliver to Strada Vecchia 7 (Montegiardinello).")),
            _rec("t4", _msg("user", "Skovbrynet 4\n8832 Kvorninghøj\nDenmark")),
            _rec("t5", _msg("user", "My name is Wojsława Kettelbrück, 4410 is my desk extension."))]
    out, _ = _run(analyzer, recs)
    for rid, town in (("t1", "Pölläkkä"), ("t2", "Nagyharsányfalu"), ("t3", "Montegiardinello"), ("t4", "Kvorninghøj")):
        assert town in out[rid].messages[0]["content"], out[rid].messages[0]["content"]
    _assert_gone(out["t1"], ["6012"])
    _assert_gone(out["t2"], ["7822"])
    _assert_gone(out["t4"], ["8832"])
    _assert_gone(out["t5"], ["Wojsława", "Kettelbrück"])


def test_names_in_pairs_vocatives_speaker_lines_and_job_title_lines(analyzer):
    """Issue 11, sixth round, part 2 (more carrier sentences for the generator's person values,
    written here): two names joined by "and" that the sentence treats as people, with no name
    known before ("Both Haugtvedt and Ilunga disagreed", "tomasz and anouk are on holiday"); one
    addressed between an interjection and a comma ("Apologies, Quilla, I"), before ", please";
    "Have you seen X", "Congratulations X!", "her son, X,"; a single speaker line
    whose label is a gazetteer surname ("Jaworski: I agree"); a middle initial between two name
    words at a sentence start ("Xenophon A Maslov will"); a first name before "can't"; a name
    line with a job title after a dash ("Zezig Eldarkhanov - Senior Engineer"), or after
    "From:"; lower case: a possessive ("emily's idea"), "call markus back". Business words in the
    same frames stay ("Sales and Billing are closed", "Apologies, Team, I", "Note: I agree")."""
    recs = [_rec("p1", _msg("user", "Both Haugtvedt and Ilunga disagreed with the refund.")),
            _rec("p2", _msg("user", "tomasz and anouk are on holiday until Monday.")),
            _rec("p3", _msg("user", "Apologies, Quilla, I missed your call.")),
            _rec("p4", _msg("user", "Kenjirou, please confirm the booking.")),
            _rec("p5", _msg("user", "Have you seen Oyelaran today?")),
            _rec("p6", _msg("user", "Congratulations Tjelvar! Well deserved.")),
            _rec("p7", _msg("user", "Her son, Ikaika, starts school in May.")),
            _rec("p8", _msg("user", "Jaworski: I agree with the new plan.")),
            _rec("p9", _msg("user", "Xenophon A Maslov will be late today.")),
            _rec("p10", _msg("user", "Ulrich can't make it tonight.")),
            _rec("p11", _msg("user", "Thanks for the visit.\nZezig Eldarkhanov - Senior Engineer")),
            _rec("p12", _msg("user", "From: Phoebe Cole\nSubject: lamp")),
            _rec("p13", _msg("user", "it was emily's idea to move the meeting.")),
            _rec("p14", _msg("user", "call markus back when you can.")),
            # must stay
            _rec("s1", _msg("user", "Sales and Billing are closed on Sundays.")),
            _rec("s2", _msg("user", "Apologies, Team, I missed the stand-up.")),
            _rec("s3", _msg("user", "Note: I agree with the new plan.")),
            _rec("s4", _msg("user", "Have you seen Bluetooth settings today?")),
            _rec("s5", _msg("user", "i owe the bank twenty dollars and the baby needs shoes."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["p1"], ["Haugtvedt", "Ilunga"])
    _assert_gone(out["p2"], ["tomasz", "anouk"])
    _assert_gone(out["p3"], ["Quilla"])
    _assert_gone(out["p4"], ["Kenjirou"])
    _assert_gone(out["p5"], ["Oyelaran"])
    _assert_gone(out["p6"], ["Tjelvar"])
    _assert_gone(out["p7"], ["Ikaika"])
    _assert_gone(out["p8"], ["Jaworski"])
    _assert_gone(out["p9"], ["Xenophon", "Maslov"])
    _assert_gone(out["p10"], ["Ulrich"])
    _assert_gone(out["p11"], ["Zezig", "Eldarkhanov"])
    _assert_gone(out["p12"], ["Phoebe", "Cole"], ignore_case=False)
    _assert_gone(out["p13"], ["emily"])
    _assert_gone(out["p14"], ["markus"])
    assert "Senior Engineer" in out["p11"].messages[0]["content"]
    _assert_unchanged(out, recs, *[f"s{i}" for i in range(1, 6)])


def test_national_phone_layouts_alone_in_lists_and_with_area_codes(analyzer):
    """Issue 11, sixth round (the generator's person records' phone numbers in carrier sentences
    written here: 215 of 3,000 were left, all from a few national layouts): a grouped number that
    is a whole line or an item of a comma list ("Anna Berg, 445 6271, Oslo"), an area code in
    brackets before a dashed number ("(28) 438-991"), three pairs after "Contact:" ("81 32 04").
    A thousands grouping, a number in a list after an id word and an amount stay."""
    recs = [_rec("n1", _msg("user", "614 5454")),
            _rec("n2", _msg("user", "My details: Ragna Ulfsdottir, 25 750307, Reykjavik")),
            _rec("n3", _msg("user", "You can try (36) 586-321 during the day.")),
            _rec("n4", _msg("user", "Contact: 81 32 04")),
            _rec("n5", _msg("user", "Oskar Lind\n478 9180\nStorgatan 4")),
            # must stay
            _rec("s1", _msg("user", "The grant was 1 500 000, paid in May.")),
            _rec("s2", _msg("user", "Items: 1002 3344, 5566 7788")),
            _rec("s3", _msg("user", "Total: 445 6271, due Friday"))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["n1"], ["614 5454"])
    _assert_gone(out["n2"], ["25 750307"])
    _assert_gone(out["n3"], ["(36) 586-321", "586-321"])
    _assert_gone(out["n4"], ["81 32 04"])
    _assert_gone(out["n5"], ["478 9180"])
    _assert_unchanged(out, recs, "s1", "s2", "s3")


def test_speakers_of_quotes_answers_to_name_questions_and_family_name_endings(analyzer):
    """Issue 11, seventh round (kinds read from presidio-evaluator's probe templates, sentences
    written here): speaker labels with the quote right after the colon ('Ingrid:"At the
    station."'); the speaker of a quote after or before a verb of speech ('," says Lindqvist.',
    '," replied van Dijk.', '," Okafor said.'); a bare answer after a name question in the same
    text ("What's your last name? Szymanska"); the subject and object of "shouted at"; a family
    name known by its ending after any Capitalized word, even a town ("Borna Kovačević", "Jana
    Dvořáková"); two names joined by "and" where one is a word ("Nowakowska and Hill were");
    a first name before an English-word surname and "lives at" ("Mikayla Weld lives at"); a
    first name, an initial and a town ("Marta A Palermo"); a firm's person after its possessive
    ("Vexa Inc.'s Nicanor Bezrukov"); "ex-Zombie Heredia". The same frames with no person stay."""
    recs = [_rec("q1", _msg("user", 'Tomasz: "Where were you?"\nIngrid:"At the station."')),
            _rec("q2", _msg("user", '"We will ship it tomorrow," says Lindqvist.')),
            _rec("q3", _msg("user", '"I am not sure," replied van Dijk.')),
            _rec("q4", _msg("user", '"Fine," Okafor said, and left.')),
            _rec("q5", _msg("user", "What's your last name? Szymanska")),
            _rec("q6", _msg("user", "What is your surname? Baptiste")),
            _rec("q7", _msg("user", 'Oskar yelled at Melinda: "Stop that now!"')),
            _rec("q8", _msg("user", "The Borna Kovačević version was recorded in Zagreb.")),
            _rec("q9", _msg("user", "The form came back from Jana Dvořáková yesterday.")),
            _rec("q10", _msg("user", "Nowakowska and Hill were nurses at the clinic.")),
            _rec("q11", _msg("user", "Mikayla Weld lives at 17 Harbour Road, Deal")),
            _rec("q12", _msg("user", "Marta A Palermo\n\nBörßum\nGermany")),
            _rec("q13", _msg("user", "We also met Acme Holdings Company's Kathryn Barros and Vexa Inc.'s Nicanor Bezrukov.")),
            _rec("q14", _msg("user", "This song by ex-Zombie Heredia is my favourite.")),
            # must stay
            _rec("s1", _msg("user", 'Note:"fragile" items ship separately.\nDate: tomorrow')),
            _rec("s2", _msg("user", '"Welcome back," says the sign.')),
            _rec("s3", _msg("user", '"Closed for lunch," says NASA.')),
            _rec("s4", _msg("user", "What's your name? I forgot.")),
            _rec("s5", _msg("user", "Rostov and Paris were stops on the tour.")),
            _rec("s6", _msg("user", "Acme Company's Annual Report is out."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["q1"], ["Tomasz", "Ingrid"])
    _assert_gone(out["q2"], ["Lindqvist"])
    _assert_gone(out["q3"], ["Dijk"])
    _assert_gone(out["q4"], ["Okafor"])
    _assert_gone(out["q5"], ["Szymanska"])
    _assert_gone(out["q6"], ["Baptiste"])
    _assert_gone(out["q7"], ["Oskar", "Melinda"])
    _assert_gone(out["q8"], ["Borna", "Kovačević"])
    _assert_gone(out["q9"], ["Jana", "Dvořáková"])
    _assert_gone(out["q10"], ["Nowakowska", "Hill"], ignore_case=False)
    _assert_gone(out["q11"], ["Mikayla", "Weld"])
    _assert_gone(out["q12"], ["Marta", "Palermo"])
    _assert_gone(out["q13"], ["Kathryn", "Barros", "Nicanor", "Bezrukov"])
    _assert_gone(out["q14"], ["Heredia"])
    assert "Zagreb" in out["q8"].messages[0]["content"]
    _assert_unchanged(out, recs, *[f"s{i}" for i in range(1, 7)])


def test_street_corners_and_street_lines_above_an_apartment_line(analyzer):
    """Issue 11, seventh round: both streets of a corner or an intersection, whatever their words
    ("corner of Hollis Avenue and Brantley Crossing", "ul. Nobla Alfreda 90 St. and Nicolas Fords
    St.", "3433 avenue Royale"), the "St." after them kept; the street line of an address block
    above an apartment / suite line, in any script and with marks opening the lines ("}}45792
    Bössgränd 56\\n}}Apt. 285", "3556 Καλαμπάκα 70\\nSuite 413", "53992 34 quai Angel-Nathan").
    Corners of rooms or of continents and a report's title above a unit's sales stay."""
    recs = [_rec("c1", _msg("user", "Meet me at the corner of Hollis Avenue and Brantley Crossing.")),
            _rec("c2", _msg("user", "Stop at the corner of Garza Meadow St. and Pruitt Groves St. please")),
            _rec("c3", _msg("user", "The crash happened at the intersection of Delmont Trail & Orwell Knoll.")),
            _rec("c4", _msg("user", "Drop me at the corner of ul. Nobla Alfreda 90 St. and Nicolas Fords St.")),
            _rec("c5", _msg("user", "}}Dara Quinlan\n}}45792 Bössgränd 56\n}}Apt. 285\n}}Karlskoga\n}}Sweden 69503")),
            _rec("c6", _msg("user", "Fred Morales\n3556 Καλαμπάκα 70\nSuite 413\nΛευκωσία")),
            _rec("c7", _msg("user", "> Nina Hobbs\n> 53992 34 quai Angel-Nathan\n> Apt. 511\n> Tournefeuille")),
            # must stay
            _rec("s1", _msg("user", "Put the lamp in the corner of the room and the desk by the door.")),
            _rec("s2", _msg("user", "Istanbul sits at the crossroads of Europe and Asia.")),
            _rec("s3", _msg("user", "2024 Annual Report\nUnit 4 sales were flat.")),
            ]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["c1"], ["Hollis Avenue", "Brantley Crossing"])
    _assert_gone(out["c2"], ["Garza Meadow", "Pruitt Groves"])
    _assert_gone(out["c3"], ["Delmont Trail", "Orwell Knoll"])
    _assert_gone(out["c4"], ["Nobla Alfreda 90", "Nicolas Fords"])
    _assert_gone(out["c5"], ["Bössgränd 56", "45792", "Dara Quinlan"])
    _assert_gone(out["c6"], ["Καλαμπάκα 70", "3556"])
    _assert_gone(out["c7"], ["53992", "Angel-Nathan"])
    assert out["c2"].messages[0]["content"].count(" St.") == 2
    _assert_unchanged(out, recs, "s1", "s2")
    # the title line stays (an apartment / unit number alone is replaced wherever it stands)
    assert out["s3"].messages[0]["content"].startswith("2024 Annual Report\n")


def test_contact_block_phones_before_their_label_spanish_streets_and_two_surname_pairs(analyzer):
    """Issue 11, seventh round (probe templates, other seeds; sentences written here): a number
    before the label of its line in a contact block ("00401198036 fax", "21 426 486 4689
    office"); the Spanish "C/" street with a particle inside ("60211 C/ Jerome del Carter 88");
    two gazetteer surnames joined by "and", one no common word ("Crawford and Turner were").
    An amount before "office" words and two colours stay."""
    recs = [_rec("k1", _msg("user", "Hedda Brun\n21 426 486 4689 office\n00401198036 fax\n+41 59 946 54 42 mobile")),
            _rec("k2", _msg("user", "Theresa Price lives at 60211 C/ Jerome del Carter 88, Gibraleón")),
            _rec("k3", _msg("user", "Is this the best song? Crawford and Turner were precision engineers.")),
            # must stay
            _rec("s1", _msg("user", "We spent 1,250.00 office supplies budget in May.")),
            _rec("s2", _msg("user", "Black and White were the only colours left."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["k1"], ["21 426 486 4689", "00401198036", "+41 59 946 54 42"])
    _assert_gone(out["k2"], ["60211", "Jerome del Carter 88"])
    _assert_gone(out["k3"], ["Crawford", "Turner"], ignore_case=False)
    _assert_unchanged(out, recs, "s1", "s2")


def test_answers_to_address_zip_last_four_and_ssn_questions_mentions_and_ibans(analyzer):
    """Issue 11, seventh round (a red-team pass of new logs, written by a helper as a new user;
    sentences here are variations): the customer's bare answer to the agent's question for an
    address, a zip, the last four of a social or the social security number; nine digits after
    "SS#"; @mentions of users; an IBAN in lower case; a valid IBAN under an account label keeps
    its country ("account IT60X05428..." became an "AI..." string). An e-mail address question
    answered with words stays; an @ inside an e-mail address is no mention."""
    recs = [_rec("a1", _msg("assistant", "Which address should the technician visit?"), _msg("user", "77 larkspur way"),
                 _msg("assistant", "And the postcode?"), _msg("user", "sure, 30318"),
                 _msg("assistant", "For security, the last 4 of your social?"), _msg("user", "5521"),
                 _msg("assistant", "What is your social security number?"), _msg("user", "482-61-5521")),
            _rec("a2", _msg("user", "Employee SS# 612045583 is on the form.")),
            _rec("a3", _msg("user", "Can @dmitri.sokolov hand this to @lwerner88 today?")),
            _rec("a4", _msg("user", "my iban is de44 5001 0517 5407 3249 31, thanks")),
            _rec("a5", _msg("user", "Pay into account IT60X0542811101000000123456 please.")),
            # must stay
            _rec("s1", _msg("assistant", "What's your email address?"), _msg("user", "the same as last time")),
            _rec("s2", _msg("user", "Write to help@shop.example.com if it breaks."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["a1"], ["77 larkspur way", "larkspur", "30318", "5521", "482-61-5521"])
    _assert_gone(out["a2"], ["612045583"])
    _assert_gone(out["a3"], ["dmitri.sokolov", "lwerner88"])
    _assert_gone(out["a4"], ["de44 5001 0517 5407 3249 31", "5001 0517 5407 3249 31"])
    _assert_gone(out["a5"], ["IT60X0542811101000000123456"])
    iban = re.search(r"\b[A-Z]{2}\d{2}[A-Z0-9]{10,30}\b", out["a5"].messages[0]["content"]).group(0)
    assert iban.startswith("IT") and len(iban) == 27 and std_iban.is_valid(iban), iban
    # the e-mail is replaced as an e-mail (a whole address), not as a mention of "@shop"
    assert re.search(r"\S+@\S+\.\w+ if it breaks", out["s2"].messages[0]["content"])
    assert out["s1"].messages[1]["content"] == "the same as last time"


def test_people_in_nested_person_keys_labels_of_other_languages_and_transcripts(analyzer):
    """Issue 11, seventh round (red-team pass, variations): any key ending in "_by" holds a person
    ("last_touched_by"); an object under a person key with "first" / "last" parts; a name with
    particles or an initial under a person key ("Maartje van der Zee", "E. Thornbury");
    "dispatcher" / "plus_one" keys; labels of policies, medical record numbers and German
    customer numbers and user names; "my wife fenella opened" and the surname after a found
    first name at the end of a clause ("my sister, petronella gaskell"); speaker labels in lower
    case or capitals ("cormac:", "BJÖRN:"); an e-mail spelled with "underscore"; an Australian
    "Parade". A role label before an ordinary sentence ("Customer: My invoice"), field labels in
    a log and a role label in capitals stay."""
    tool = {"reporter": {"login": "mvanderzee", "name": "Maartje van der Zee"}, "last_touched_by": "gfontaine",
            "guest": {"first": "Anselm", "last": "Whitcombe"}, "plus_one": "Tamsyn", "dispatcher": "hollis.r",
            "signed_by": "E. Thornbury", "status": "open"}
    call = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_ticket", "arguments": "{}"}}]}
    recs = [_rec("k1", call, {"role": "tool", "tool_call_id": "c1", "name": "get_ticket", "content": json.dumps(tool)}),
            _rec("k2", _msg("user", "policy number PLC-8839201, MRN 4820193; Kundennummer: 7720031845, "
                                    "Benutzername: hbrandstaetter")),
            _rec("k3", _msg("user", "my wife fenella opened the account but i pay. she's my sister, petronella gaskell.")),
            _rec("k4", _msg("user", "cormac: is it fixed?\nbot: Yes.\ncormac: thx")),
            _rec("k5", _msg("user", "BJÖRN: hej\nKUNDTJÄNST: hej hej\nBJÖRN: tack")),
            _rec("k6", _msg("user", "Write to annabel underscore quayle at protonmail dot com")),
            _rec("k7", _msg("user", "Ship to 48 Banksia Parade, Toowong QLD 4066")),
            # must stay
            _rec("s1", _msg("user", "Agent: How can I help?\nCustomer: My invoice total looks wrong.")),
            _rec("s2", _msg("user", "ERROR: disk full\nWARNING: retry later\nINFO: ok")),
            _rec("s3", _msg("user", "Our refund policy is 30 days."))]
    out, _ = _run(analyzer, recs)
    assert json.loads(out["k1"].messages[1]["content"])["status"] == "open"
    _assert_gone(out["k1"], ["mvanderzee", "Maartje", "Zee", "gfontaine", "Anselm", "Whitcombe", "Tamsyn",
                             "hollis.r", "Thornbury"])
    _assert_gone(out["k2"], ["PLC-8839201", "4820193", "7720031845", "hbrandstaetter"])
    assert "Benutzername:" in out["k2"].messages[0]["content"]
    _assert_gone(out["k3"], ["fenella", "petronella", "gaskell"])
    _assert_gone(out["k4"], ["cormac"])
    _assert_gone(out["k5"], ["BJÖRN"])
    assert "KUNDTJÄNST" in out["k5"].messages[0]["content"]
    _assert_gone(out["k6"], ["annabel", "quayle"])
    _assert_gone(out["k7"], ["Banksia Parade", "48 Banksia Parade"])
    _assert_unchanged(out, recs, "s1", "s2", "s3")


def test_a_street_with_and_without_its_sentence_dot_gets_one_pseudonym(analyzer):
    """Found by a fresh-clone check: "417 larkspur ct" (an answer) and "417 larkspur ct." (the
    end of the agent's sentence) became two different streets in one record; the final dot does
    not count (it stays after the fake)."""
    recs = [_rec("d1", _msg("assistant", "What's the service address?"), _msg("user", "417 larkspur ct"),
                 _msg("assistant", "I'll update it to 417 larkspur ct."),
                 _msg("user", "We moved from 975 Sunset Drive. 975 Sunset Drive was old."))]
    out, _ = _run(analyzer, recs)
    m = out["d1"].messages
    assert "larkspur" not in json.dumps(out["d1"].model_dump()) and "Sunset" not in m[3]["content"]
    assert m[2]["content"] == f"I'll update it to {m[1]['content']}."
    first, second = re.findall(r"(\d+ [A-Z]\w+ \w+)", m[3]["content"])
    assert first == second


def test_postcodes_after_a_lower_case_town_in_a_street_line(analyzer):
    """Red-team pass, seventh round: a postcode after a lower-case town, in a line whose building
    number and street noun stand before the comma ("17 cobblers row, york yo1 7hh", "..., chicago
    60657"); numbers after a comma with no street before them stay ("we sold 3 items, total 45000")."""
    recs = [_rec("z1", _msg("user", "deliver to 17 cobblers row, york yo1 7hh, the blue door")),
            _rec("z2", _msg("user", "yeah its 3390 n halsted st unit 2, chicago 60657")),
            _rec("z3", _msg("user", "send it to 12 mill lane, ashford 2345")),
            _rec("s1", _msg("user", "we sold 3 items, total 45000 today")),
            _rec("s2", _msg("user", "i paid 20 dollars, about 1500 total"))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["z1"], ["yo1 7hh", "cobblers"])
    _assert_gone(out["z2"], ["60657", "halsted"])
    _assert_gone(out["z3"], ["2345", "mill lane"])
    assert "york" in out["z1"].messages[0]["content"] and "chicago" in out["z2"].messages[0]["content"]
    _assert_unchanged(out, recs, "s1", "s2")


def test_names_of_roads_and_landmarks_stay_places(analyzer):
    """Eighth round (precision): a gazetteer first name before a Capitalized road or landmark
    noun names the road ("the Madison Avenue store"), as does such a noun ending the span ("the
    Grand Canyon tour"); a person's name before one is still replaced where the context says
    person ("My name is Lois Lane"), and "Lane" (a family name) is no road noun."""
    recs = [_rec("s1", _msg("user", "Main Street Bakery is closed on Sundays; the Madison Avenue store is open 9 to 5.")),
            _rec("s2", _msg("user", "The Grand Canyon tour on Saturday was cancelled because of the storm.")),
            _rec("s3", _msg("user", "We walked down Oxford Street and Abbey Road, then to Harrison Plaza.")),
            _rec("p1", _msg("user", "My name is Lois Lane and I need a refund.")),
            _rec("p2", _msg("user", "Please ask Madison Clarke about the Sunset Boulevard delivery."))]
    out, _ = _run(analyzer, recs)
    _assert_unchanged(out, recs, "s1", "s2", "s3")
    _assert_gone(out["p1"], ["Lois", "Lane"])
    _assert_gone(out["p2"], ["Madison", "Clarke"])
    assert "Sunset Boulevard" in out["p2"].messages[0]["content"]


def test_dates_of_birth_in_european_layouts_other_languages_and_after_a_birth_word(analyzer):
    """Eighth round (a second red-team pass): day-first, dotted and dashed dates of birth, month
    names in lower case and in French / Spanish / German, two-digit years after a birth word;
    the fake keeps the layout; business dates of this century stay."""
    recs = [_rec("d1", _msg("user", "DOB: 17/04/1979 and for my son dob 3/14/82")),
            _rec("d2", _msg("user", "note: DOB 22-09-1975, verified. Born 1977.05.19, married 30.11.1969")),
            _rec("d3", _msg("user", "Elle est née le 8 mars 1986 à Nantes; nacida el 14 de marzo de 1982; geboren am 3. März 1961")),
            _rec("d4", _msg("user", "my birthday is march 9th 1984")),
            _rec("s1", _msg("user", "The meeting is on 2024-05-20 at 10; invoice 12/2023, 3/14 items shipped."))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["d1"], ["17/04/1979", "3/14/82"])
    _assert_gone(out["d2"], ["22-09-1975", "1977.05.19", "30.11.1969"])
    _assert_gone(out["d3"], ["8 mars 1986", "14 de marzo de 1982", "3. März 1961"])
    _assert_gone(out["d4"], ["march 9th 1984"])
    assert re.fullmatch(r"DOB: \d\d/\d\d/\d{4} and for my son dob \d{1,2}/\d\d/\d\d", out["d1"].messages[0]["content"])
    assert re.search(r"DOB \d\d-\d\d-\d{4}, verified\. Born \d{4}\.\d\d\.\d\d", out["d2"].messages[0]["content"])
    _assert_unchanged(out, recs, "s1")


def test_ids_after_labels_of_claims_references_and_other_languages(analyzer):
    """Eighth round (second red-team pass): ids after "claim #", "Ref:", "commande n°", "pedido",
    "numero client est"; the label words alone and short numbers after them stay."""
    recs = [_rec("i1", _msg("user", "Subject: Re: warranty claim #WC-88123 and thanks")),
            _rec("i2", _msg("user", "Je n'ai toujours pas reçu ma commande n° FR-778120. Mi pedido ES-44120 no ha llegado.")),
            _rec("i3", _msg("user", "Reply STOP to opt out. Ref: APT-22817")),
            _rec("i4", _msg("user", "mon numero client est 4471-0093. merci")),
            _rec("i5", _msg("user", "IVR: 'please say your account number' ... '4 4 0 9 1 8 7 7 2'; my social is 4 7 1 - 3 3 - 9 0 2 8")),
            _rec("s1", _msg("user", "We sold 12 items, ref 2024 and order 3 units; the scores were 1 2 3 4 5 6 7 8.")),
            _rec("s2", _msg("user", "the cap on refunds is 500 dollars"))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["i1"], ["WC-88123"])
    _assert_gone(out["i2"], ["FR-778120", "ES-44120"])
    _assert_gone(out["i3"], ["APT-22817"])
    _assert_gone(out["i4"], ["4471-0093"])
    _assert_gone(out["i5"], ["4 4 0 9 1 8 7 7 2", "4 7 1 - 3 3 - 9 0 2 8"])
    assert re.search(r"'\d \d \d \d \d \d \d \d \d'", out["i5"].messages[0]["content"])  # spaced as said
    _assert_unchanged(out, recs, "s1", "s2")


def test_names_in_brackets_after_a_role_other_languages_intros_pnr_and_signatures(analyzer):
    """Eighth round (second red-team pass): "wife (Henrietta)", "agent (Rhiannon)"; introductions
    and titles of other languages ("hier ist", "mijn naam is", "soy", "Mme", "meneer"); airline
    booking records' SURNAME/GIVEN TITLE; one-word signatures after "Best," or "--"; name slots
    in lower case ("first name is marigold", "his brother anand", "ask for ravi"). Titles stay;
    "customer (VIP)" and "ich bin Kunde" are no names."""
    recs = [_rec("n1", _msg("user", "Spoke to wife (Henrietta). QA: agent (Rhiannon) failed; customer (Tiberius) asked")),
            _rec("n2", _msg("user", "Guten Tag, hier ist Volker Dittrichsen. Goedemiddag, mijn naam is Femke de Wit-Jansen.")),
            _rec("n3", _msg("user", "Hola, soy Ximena Arrieta Goñi. Compte de Mme Apolline Garnier-Vidal; meneer Pieterse belde.")),
            _rec("n4", _msg("tool", json.dumps({"pax": [{"nm": "HOLLOWAY/CRESSIDA MS"}, {"nm": "DE LA CRUZ/ANA MARIA MRS"}],
                                                 "ctce": "CRESSIDA.HOLLOWAY//GMAIL.TEST"}), tool_call_id="c1")),
            _rec("n5", _msg("user", "The refund went back on Friday.\n\nBest,\nJoost | Billing team")),
            _rec("n6", _msg("user", "thanks\n-- \nCorny\nSent from my phone")),
            _rec("n7", _msg("user", "my maiden name which is thistlewood, first name is marigold. ask for ravi or his brother anand")),
            _rec("s1", _msg("user", "The customer (VIP) asked for a refund. Ich bin Kunde seit 2010. Please check AND/OR EITHER MR.")),
            _rec("s2", _msg("user", "Regards,\nSupport"))]
    out, _ = _run(analyzer, recs)
    _assert_gone(out["n1"], ["Henrietta", "Rhiannon", "Tiberius"])
    _assert_gone(out["n2"], ["Volker", "Dittrichsen", "Femke", "Wit-Jansen"])
    _assert_gone(out["n3"], ["Ximena", "Arrieta", "Apolline", "Garnier-Vidal", "Pieterse"])
    assert "Mme " in out["n3"].messages[0]["content"] and "meneer " in out["n3"].messages[0]["content"]
    _assert_gone(out["n4"], ["HOLLOWAY", "CRESSIDA", "CRUZ", "ANA MARIA"])
    assert re.search(r'"nm": "[A-Z \'-]+/[A-Z \'-]+ MS"', out["n4"].messages[0]["content"])
    _assert_gone(out["n5"], ["Joost"])
    _assert_gone(out["n6"], ["Corny"])
    _assert_gone(out["n7"], ["thistlewood", "marigold", "ravi", "anand"])
    _assert_unchanged(out, recs, "s1", "s2")


def test_brands_firms_products_and_venues_are_not_names(analyzer):
    """Eighth round (precision, second red-team pass): single words joined by "&" name a firm
    unless both are first names with no possessive ("Tom & Jerry" stay people); a product code or
    CamelCase word after or inside the span, and venue / product nouns, make it a product or a
    place; CamelCase family names ("McDonald") stay names."""
    recs = [_rec("s1", _msg("user", "Does the Ben & Jerry's voucher work at the Marks & Spencer food hall?")),
            _rec("s2", _msg("user", "Which is better, the Johnson & Johnson kit or the Red Cross one?")),
            _rec("s3", _msg("user", "My Dell XPS won't charge. Items: 1x Bose QuietComfort headphones.")),
            _rec("s4", _msg("user", "The Victoria Falls package is sold out; the Kruger Safari has space; the Mesh Extender needs an update.")),
            _rec("p1", _msg("user", "Thanks to Tom & Jerry for the help.")),
            _rec("p2", _msg("user", "Please ask Anna McDonald about it; Ingrid Solberg handles the XPS order."))]
    out, _ = _run(analyzer, recs)
    _assert_unchanged(out, recs, "s1", "s2", "s3", "s4")
    _assert_gone(out["p1"], ["Tom", "Jerry"])
    _assert_gone(out["p2"], ["Anna", "McDonald", "Ingrid", "Solberg"])
    assert "XPS order" in out["p2"].messages[0]["content"]



def test_stop_words_of_other_languages_next_to_a_name_from_a_user_id_stay(analyzer):
    """A fresh-clone check: "Meine Benutzer-ID ist wiebke_hollerbach_3307" made "ist" a first name
    (the word before a name word taken from the id), then "hier" and "bestätigt" beside it; a
    stop word of another language next to a known name word is no name. A staff number after
    its label is an id."""
    recs = [_rec("d1", _msg("user", "Guten Tag, hier ist Wiebke Hollerbach. Meine Benutzer-ID ist "
                                     "wiebke_hollerbach_3307, Ihre Buchung ist bestätigt. My staff number is BW-448172."))]
    out, _ = _run(analyzer, recs)
    text = out["d1"].messages[0]["content"]
    _assert_gone(out["d1"], ["Wiebke", "Hollerbach", "wiebke_hollerbach_3307", "BW-448172"])
    assert text.startswith("Guten Tag, hier ist ") and "Benutzer-ID ist " in text and "Buchung ist bestätigt." in text
