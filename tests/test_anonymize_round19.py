"""Issue 11, nineteenth round: the kinds the read red-team sets (17, 18, 19, 21, 22, then 24 and
25) still showed at the round's start; red-team 20 and 23 are never read. Each is tested in
sentences and records written here, never the red-team values.

Real presidio + the spaCy package model; one analyzer for the module.
"""
from __future__ import annotations

import json
from functools import partial

import pytest

from pipeline.anonymize import Anonymizer, build_analyzer
from tests.anon_helpers import called_tool_text, one, present, user


@pytest.fixture(scope="module")
def anon():
    return Anonymizer(secret="round19", analyzer=build_analyzer())


_tool_text = partial(called_tool_text, ask="Can you look it up?")


# ---------------------------------------- long digit runs no recognizer or key rule claimed
@pytest.mark.parametrize("obj,values", [
    ({"ok": True, "reissued_tkts": ["2209381746551", "2209381746552"]}, ["2209381746551", "2209381746552"]),
    ({"ttn": "59001234567812", "status": "arrived"}, ["59001234567812"]),
    ({"zakaznik": {"rc": "8203154417"}}, ["8203154417"]),
    ({"meter": "۲۷۵۱۹۰۴۴۸۳"}, ["۲۷۵۱۹۰۴۴۸۳"]),  # Persian digits
])
def test_a_long_number_under_a_key_that_says_nothing_is_replaced(anon, obj, values):
    out = _tool_text(anon, json.dumps(obj, ensure_ascii=False))
    for v in values:
        assert v not in out, (v, out)


@pytest.mark.parametrize("text,value", [
    ("my parcel came back, AWB 77120934850021, please resend", "77120934850021"),
    ("вот номер 4402918377 из письма", "4402918377"),
    ("PID|1||3381920475^^^HOSP^MR||DOE^JANE", "3381920475"),
])
def test_a_long_number_in_a_text_is_replaced(anon, text, value):
    assert value not in user(anon, text)


def test_the_same_number_is_replaced_in_the_text_and_the_tool_result(anon):
    out = one(anon, [{"role": "user", "content": "the ticket 5519023847712 was reissued?"},
                     {"role": "tool", "tool_call_id": "c1",
                      "content": json.dumps({"tkts": ["5519023847712"]})}])
    fakes = [out.messages[0]["content"].split()[2], json.loads(out.messages[1]["content"])["tkts"][0]]
    assert "5519023847712" not in fakes and fakes[0] == fakes[1], fakes


@pytest.mark.parametrize("obj,kept", [
    ({"ts": "1717171717", "created_at": "1717171723"}, ["1717171717", "1717171723"]),  # times
    ({"amount": "6500000", "total_vnd": "36990000"}, ["6500000", "36990000"]),  # amounts
    ({"tracking_id": ["840887978401"]}, ["840887978401"]),
    ({"sent": "20240611093011"}, ["20240611093011"]),  # a timestamp of digits
    ({"interchange": "000004417"}, ["000004417"]),  # an EDI control number
    ({"catalog": {"Notebook": "2892623495", "Desk Lamp": "1656367028"}, "item_id": "1656367028"},
     ["2892623495", "1656367028"]),  # side by side with an item id
])
def test_long_numbers_that_are_no_persons_stay(anon, obj, kept):
    out = _tool_text(anon, json.dumps(obj, ensure_ascii=False))
    for v in kept:
        assert v in out, (v, out)


@pytest.mark.parametrize("text,kept", [
    ("ISBN 9788535932379, 3 copies in stock", "9788535932379"),
    ("barcode 4006381333931 scanned at the till", "4006381333931"),  # a valid EAN-13
    ("4006381333931;Senf mittelscharf;12", "4006381333931"),  # a valid EAN-13 in a table
    ("reefer containers MSKU 7741203 and TGHU 8840112 held", "7741203"),  # ISO 6346
    ("paid ₹ 6500000 last week", "6500000"),
    ("gia 4500000 VND da thanh toan", "4500000"),
    ("routing 111000025 for the transfer", "111000025"),
    ("MSH|^~\\&|LAB|20240408153022||ORU^R01", "20240408153022"),
    ("<cMun>3550308</cMun><xMun>SAO PAULO</xMun>", "3550308"),
])
def test_long_numbers_of_products_containers_amounts_and_times_stay_in_text(anon, text, kept):
    out = _tool_text(anon, text)
    assert present(out, kept), out


def test_a_number_under_a_tracking_key_stays_where_a_text_repeats_it(anon):
    out = one(anon, [{"role": "tool", "tool_call_id": "c1",
                      "content": json.dumps({"fulfillments": [{"tracking_id": ["840887978435"]}]})},
                     {"role": "assistant", "content": "The tracking ID for this shipment is 840887978435."}])
    assert "840887978435" in out.messages[0]["content"] and "840887978435" in out.messages[1]["content"], out


# ------------------------------------------- name keys: compounds, abbreviations, other scripts
@pytest.mark.parametrize("obj,values", [
    ({"rider_id": "R-20417", "rider_nm": "Kwon Haneul"}, ["Kwon Haneul"]),
    ({"pt_name": "Ferreira, Odete", "ward": "4B"}, ["Ferreira", "Odete"]),
    ({"name_romanized": "TANAKA SORA", "plan": "basic"}, ["TANAKA", "SORA"]),
    ({"klantnaam": "Joost Verbruggen", "status": "open"}, ["Joost", "Verbruggen"]),
    ({"振込人名義": "スズキ タロウ", "金額": 5200}, ["スズキ タロウ"]),
    ({"배송": {"받는사람이름": "조민서", "상세": "101동"}}, ["조민서"]),
    ({"landlord": {"name": "Brendan Kinsella", "aka": "Benny"}}, ["Benny", "Kinsella"]),
])
def test_a_key_that_names_a_persons_name_is_read_as_one(anon, obj, values):
    out = _tool_text(anon, json.dumps(obj, ensure_ascii=False))
    for v in values:
        assert v not in out, (v, out)


@pytest.mark.parametrize("obj,kept", [
    ({"product_nm": "Velvet Harbor", "sku": "VH-2"}, "Velvet Harbor"),  # a product's name
    ({"file_name": "report.pdf", "team_name": "Night Owls"}, "Night Owls"),
    ({"preferred": "email", "aka": "n/a"}, "email"),  # no name's shape
])
def test_name_keys_of_things_stay(anon, obj, kept):
    out = _tool_text(anon, json.dumps(obj, ensure_ascii=False))
    assert kept in out, out


# ---------------------------------------- presidio's national-id recognizers, where it has them
@pytest.mark.parametrize("text,value", [
    ("NI no. on file: JT 48 29 61 B, please check", "JT 48 29 61 B"),  # UK NINO
    ("my national insurance is SH204177C", "SH204177C"),
    ("CF RSSMRA85T10A562S per la polizza", "RSSMRA85T10A562S"),  # Italian codice fiscale
    ("the MBI on the card reads 1EG4-TE5-MK72", "1EG4-TE5-MK72"),  # US Medicare Beneficiary Id
    ("NRIC S1234567D on the form", "S1234567D"),  # Singapore NRIC
])
def test_presidio_national_id_recognizers_find_their_numbers(anon, text, value):
    assert value not in user(anon, text)


def test_a_presidio_national_id_under_a_key_is_replaced_with_its_layout(anon):
    out = json.loads(_tool_text(anon, json.dumps({"ni": "NP 55 18 02 A", "plan": "Plan 2"})))
    assert out["ni"] != "NP 55 18 02 A" and len(out["ni"]) == len("NP 55 18 02 A") and out["ni"].count(" ") == 4, out


# ------------------------------------------------------ URL-encoded phones and e-mails in a body
def test_url_encoded_phone_numbers_and_emails_of_a_webhook_body_are_replaced(anon):
    body = ("POST /hooks/sms HTTP/1.1\n\nMessageSid=SM81c2&From=%2B14165550143&To=%2B18005550199"
            "&Body=Hi+there&reply_to=dara.okafor%40example.org")
    out = _tool_text(anon, body)
    for v in ("%2B14165550143", "14165550143", "dara.okafor%40example.org"):
        assert v not in out, (v, out)
    assert "From=%2B" in out and "MessageSid=SM81c2" in out, out  # the encoding and the layout stay


# ------------------------------------------------ an e-mail with a plain "at" before its provider
@pytest.mark.parametrize("text,value", [
    ("EA HKOLARU AT OUTLOOK.COM | TK 0187", "HKOLARU"),
    ("mail me: jana.kralova at seznam.cz", "jana.kralova"),
])
def test_an_email_written_with_a_plain_at_is_replaced(anon, text, value):
    assert value not in user(anon, text)


def test_a_plain_at_before_a_site_is_no_email(anon):
    text = "Have a look at github.com for the docs."
    assert user(anon, text) == text


# ------------------------------------------------ iCalendar common names, machine-readable zones
def test_icalendar_organizer_and_attendee_names_are_replaced(anon):
    ics = ("BEGIN:VEVENT\nSUMMARY:Viewing\nORGANIZER;CN=Maren Solberg MCSP:mailto:clinic@example.com\n"
           "ATTENDEE;ROLE=REQ-PARTICIPANT;CN=\"Teodor Lindqvist\":mailto:tl@example.org\nEND:VEVENT")
    out = _tool_text(anon, ics)
    for v in ("Maren", "Solberg", "Teodor", "Lindqvist"):
        assert v not in out, (v, out)
    assert "ORGANIZER;CN=" in out and "MCSP" in out and "SUMMARY:Viewing" in out, out


def test_a_passports_machine_readable_zone_loses_its_names(anon):
    mrz = "P<CANVELASQUEZ<<MARISOL<ANDREA<<<<<<<<<<<<<<<<<\nQX1234567CAN8803127F3009219<<<<<<<<<<<<<<04"
    out = one(anon, [{"role": "tool", "tool_call_id": "c1", "content": mrz},
                     {"role": "assistant", "content": "Marisol Velasquez is checked in."}])
    text = out.messages[0]["content"] + "\n" + out.messages[1]["content"]
    for v in ("VELASQUEZ", "MARISOL", "ANDREA", "Marisol", "Velasquez"):
        assert not present(text, v), (v, text)
    assert out.messages[0]["content"].startswith("P<") and "<<" in out.messages[0]["content"], text


def test_an_organizations_common_name_in_an_invite_stays(anon):
    ics = "BEGIN:VEVENT\nORGANIZER;CN=CSE Atelier Lumière:mailto:cse@example.com\nSUMMARY:Dîner\nEND:VEVENT"
    assert "CN=CSE Atelier Lumière" in _tool_text(anon, ics)


# ------------------------------------------ an address's house number and unit under their own keys
@pytest.mark.parametrize("obj,values", [
    ({"logradouro": "Rua Harmonia", "numero": "1402", "complemento": "apto 51", "cep": "05435-000"},
     ["1402", "apto 51"]),
    ({"via": "Via Tortona", "interno": "scala C int. 9", "cap": "20144", "citta": "Milano"}, ["scala C int. 9"]),
    ({"도로명": "서울특별시 마포구 성미산로 17", "상세": "504호", "우편번호": "03979"}, ["504호"]),
])
def test_a_house_number_and_unit_beside_a_street_are_replaced(anon, obj, values):
    out = _tool_text(anon, json.dumps(obj, ensure_ascii=False))
    for v in values:
        assert v not in out, (v, out)


@pytest.mark.parametrize("obj,kept", [
    ({"number": "1402", "status": "shipped", "carrier": "UPS"}, "1402"),  # no street beside it
    ({"street": "Rua Harmonia", "numero": "7"}, "\"7\""),  # (a one-digit number stays: the registry
                                                          # would replace every "7" of the record)
])
def test_numbers_without_a_street_or_too_short_stay(anon, obj, kept):
    assert kept in _tool_text(anon, json.dumps(obj, ensure_ascii=False))


# ------------------------------------------------------------------ NACHA (ACH) entry detail records
def _nacha_entry(account: str, amount: str, ident: str, name: str) -> str:
    line = "622" + "07100001" + "3" + account.ljust(17) + amount.rjust(10, "0") + ident.ljust(15) + \
        name.ljust(22) + "  " + "0" + "071000010000001"
    assert len(line) == 94
    return line


def test_a_nacha_files_payees_lose_their_names_ids_and_accounts(anon):
    ach = "\n".join([
        "101 071000013 1234567890240614" + " " * 63,
        "5220HARBOR FREIGHT CO" + " " * 73,
        _nacha_entry("558120044871", "184220", "EMP-00412", "OKONKWO ADAEZE"),
        _nacha_entry("661773001928", "201815", "EMP-00533", "LINDQVIST SVEN"),
        "822000000200193200110000000000000004823931470339221" + " " * 43])
    out = _tool_text(anon, ach)
    for v in ("OKONKWO", "ADAEZE", "LINDQVIST", "SVEN", "EMP-00412", "558120044871"):
        assert v not in out, (v, out)
    # (the company stays; a fake name's length may differ from the real one's and a glued digit run
    # is faked whole, so the 94-character layout is not kept - docs, known limits)
    assert "HARBOR FREIGHT CO" in out and len(out.split("\n")) == 5, out


# ------------------------------------------------------------------ street addresses in capitals
@pytest.mark.parametrize("text,value,kept", [
    ("SHIP TO 14 SEAVIEW PARK, DUNMORE EAST", "14 SEAVIEW PARK", "DUNMORE EAST"),
    ("PA 88 HILLCREST DR UNIT 5 BRAMPTON ON", "88 HILLCREST DR UNIT 5", "BRAMPTON"),
    ("^FO40,120^FD 21 MILL LANE^FS", "21 MILL LANE", "^FS"),
    ("ADDR: 2290 CASS AVENUE #3, DETROIT MI", "2290 CASS AVENUE #3", "DETROIT MI"),
])
def test_a_street_address_in_capitals_is_replaced(anon, text, value, kept):
    out = user(anon, text)
    assert value not in out and kept in out, out


def test_capital_words_without_a_street_noun_stay(anon):
    text = "FLIGHT BA 117 GATE 22 TERMINAL 5 BOARDING 0940"
    assert user(anon, text) == text
