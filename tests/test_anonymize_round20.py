"""Issue 11, twentieth round: the kinds red-team 27 and 28 (read this round) showed at the round's
start; red-team 26 is never read. Each is tested in sentences and records written here, never the
red-team values.

Real presidio + the spaCy package model; one analyzer for the module.
"""
from __future__ import annotations

import json
from functools import partial

import pytest

from pipeline.anonymize import Anonymizer, build_analyzer
from pipeline.anonymize.config import PiiConfig
from pipeline.anonymize.context import intro_names
from tests.anon_helpers import called_tool_text, present, user, assert_gone


@pytest.fixture(scope="module")
def anon():
    return Anonymizer(secret="round20", analyzer=build_analyzer())


_tool_text = partial(called_tool_text, ask="Can you pull the export?")


_gone = partial(assert_gone, ignore_case=True)


# ---------------------------------------- a CSV row's numbers beside another number's comma
@pytest.mark.parametrize("csv,values", [
    # a call record's parties after a time and beside each other
    ("ts,caller,callee,secs\n2025-01-04 10:02:11,447911123456,447922654321,63\n"
     "2025-01-04 11:40:00,447911123456,33155667788,12", ["447911123456", "447922654321", "33155667788"]),
    # a postcode after a flat's number, a phone after a name
    ("id,client,mobile,line1,postcode\nK-2231,Wanjiru Kamau,0722123456,12 Riverside Apt 4,80100",
     ["0722123456", "80100"]),
    # a Chinese owner list: a mobile and an identity number side by side
    ("房号,业主姓名,联系电话,身份证号\n1203,王晓明,13911112222,110101199003071234",
     ["13911112222", "110101199003071234"]),
])
def test_numbers_of_a_csv_row_are_replaced_beside_other_numbers(anon, csv, values):
    _gone(_tool_text(anon, csv), values)


def test_amounts_and_thousands_stay(anon):
    out = _tool_text(anon, "item,qty,total\nTable lamp,2,\"1,25000\"\nDesk,1,\"12,500\"")
    assert "12,500" in out and "1,25000" in out


# ---------------------------------------- a generic name beside contact details
@pytest.mark.parametrize("text,name", [
    ("name,phone,zip,city\nMarisol Quintana,312-555-0144,60614,Chicago", "Marisol Quintana"),
    ("name;email;dob\nTobias Lindqvist;tobias.l@example.se;1988-02-11", "Tobias Lindqvist"),
])
def test_a_name_column_beside_contact_columns_is_a_person(anon, text, name):
    assert name not in _tool_text(anon, text)


def test_a_store_or_firm_beside_contact_columns_stays(anon):
    out = _tool_text(anon, json.dumps({"stores": [
        {"name": "Downtown Seattle", "phone": "206-555-0100"},
        {"name": "Cascade Dental Group", "phone": "206-555-0101"}]}))
    assert "Downtown Seattle" in out and "Cascade Dental Group" in out


# ---------------------------------------- keys: a checked value, logins, "by" of other languages
@pytest.mark.parametrize("obj,values,kept", [
    ({"zip_verified": "94110", "email_verified": True}, ["94110"], ["true"]),
    ({"phone_confirmed": "+1 415 555 0199", "zip_valid": "Y"}, ["+1 415 555 0199"], ['"Y"']),
    ({"actor": "ops_lindqvist", "action": "export"}, ["ops_lindqvist"], ["export"]),
    ({"sAMAccountName": "tbergstrom", "upn": "t.bergstrom@corp.example"}, ["tbergstrom", "t.bergstrom@corp.example"], []),
    ({"zuletzt_geaendert_durch": "mkoenig", "creado_por": "lgarcia"}, ["mkoenig", "lgarcia"], []),
    ({"nom_famille": "Desrosiers", "prenom": "Mathilde"}, ["Desrosiers", "Mathilde"], []),
    ({"agent": "Mozilla/5.0 (X11; Linux x86_64)", "tech": "r.oyelaran"}, ["r.oyelaran"], ["Mozilla/5.0"]),
])
def test_keys_of_unseen_schemas(anon, obj, values, kept):
    out = _tool_text(anon, json.dumps(obj))
    _gone(out, values)
    for k in kept:
        assert k in out, (k, out)


def test_log_key_values_of_staff_logins(anon):
    out = _tool_text(anon, "2025-02-01T08:00:00Z app=Billing staff=hwinterbottom emp=kfairclough result=ok")
    _gone(out, ["hwinterbottom", "kfairclough"])
    assert "app=Billing" in out and "result=ok" in out


@pytest.mark.parametrize("obj,values", [
    ({"签收人": "周建国", "质检员": "孙丽"}, ["周建国", "孙丽"]),
    ({"mgr": "Oyelaran Adewale", "inspector": "Hilde Brekke"}, ["Oyelaran Adewale", "Hilde Brekke"]),
])
def test_people_keys_of_roles(anon, obj, values):
    _gone(_tool_text(anon, json.dumps(obj, ensure_ascii=False)), values)


def test_the_state_word_rule_in_the_config():
    cfg = PiiConfig.load()
    assert cfg.key_entity("zip_verified") == ("ZIP", False)
    assert cfg.key_entity("zip_type")[0] is None  # a hard exclusion stays


# ---------------------------------------- an agent's own name in a call's opening
@pytest.mark.parametrize("text,name", [
    ("agent: thank you for calling northwind power this is ottilie how can i help", "ottilie"),
    ("agent: claims desk this is ignatius am i speaking with the policy holder", "ignatius"),
    ("AGENT: harbor cable this is desmond\nCALLER: hi there", "desmond"),
    ("agent: brightline energy rosalind speaking", "rosalind"),
    ("operatore: buongiorno sono ludovica come posso aiutarla", "ludovica"),
    ("agente: banco azul buenas tardes le atiende itziar en qué puedo ayudarle", "itziar"),
    ("conseiller: bonjour maxence à votre écoute", "maxence"),
])
def test_lower_case_agent_introductions(anon, text, name):
    assert name in intro_names(text)
    assert not present(user(anon, text), name, ignore_case=True)


@pytest.mark.parametrize("text", ["this is urgent can you help", "hi this is support speaking",
                                  "je suis content de vous voir", "this is about my order"])
def test_introductions_of_no_name(text):
    assert intro_names(text) == []


# ---------------------------------------- values spelled out in a call
@pytest.mark.parametrize("text,value", [
    ("caller: my surname is spelled q u a r s h i e", "q u a r s h i e"),
    ("caller: the reference is tango foxtrot seven seven two one", "tango foxtrot seven seven two one"),
    ("caller: jerome p l a t t s", "p l a t t s"),
])
def test_spelled_values_are_replaced(anon, text, value):
    assert value not in user(anon, text)


@pytest.mark.parametrize("text", ["pick option a b c d or e", "the U S A and the U K", "the Hotel Charlie lounge"])
def test_letters_that_spell_nothing_stay(anon, text):
    assert user(anon, text) == text


# ---------------------------------------- a short code of letters and digits under a record's key
def test_a_markdown_booking_column_and_a_work_order_column(anon):
    out = _tool_text(anon, "| Booking | Guest | Email |\n|---|---|---|\n| RZ-4K8QW | Ines Vidal | ines.v@example.com |\n\n"
                           "| WO | Site contact | Panel S/N |\n|---|---|---|\n| GH-WO-7710 | Petra Novak | QX7-889 |")
    _gone(out, ["RZ-4K8QW", "GH-WO-7710", "Ines Vidal", "Petra Novak"])


def test_a_product_code_under_a_booking_key_stays(anon):
    out = _tool_text(anon, json.dumps({"booking": "confirmed", "room": "A320"}))
    assert '"confirmed"' in out and "A320" in out


def test_camel_prefixed_first_names(anon):
    out = _tool_text(anon, "sub,customer,email\nS-1,DeAndre Whitfield,dw@example.com\nS-2,LaKeisha Moore,lk@example.com")
    _gone(out, ["DeAndre Whitfield", "LaKeisha Moore"])


# ---------------------------------------- a neighbour, an ex, a courier named once
@pytest.mark.parametrize("text,name", [
    ("if nobody answers, neighbor Clement at number 6 has a key", "Clement"),
    ("la llamada era para mi ex Iñaki, ya no vive aquí", "Iñaki"),
    ("il rider Gianmarco non trova il portone", "Gianmarco"),
    ("grannen Ulla-Britt har också strömavbrott", "Ulla-Britt"),
    ("my neighbour mister kowalczyk had the same outage", "kowalczyk"),
])
def test_people_named_once_by_their_role(anon, text, name):
    assert not present(user(anon, text), name, ignore_case=True)


def test_a_role_before_a_title_stays(anon):
    assert user(anon, "the ex Prime Minister spoke at the event") == "the ex Prime Minister spoke at the event"


# ---------------------------------------- names and numbers in Chinese, Japanese, Korean
@pytest.mark.parametrize("text,values", [
    ("担当の佐藤です。ご確認ください", ["佐藤"]),
    ("[상담사 최윤아] 안녕하세요", ["최윤아"]),
    ("집에 없으면 아빠 김동현님이 받으실 거예요", ["김동현"]),
    ("维修工王建平会联系您", ["王建平"]),
    ("请联系刘师傅", ["刘师傅"]),
    ("라이더 Marcus님께 전달했습니다", ["Marcus"]),
    ("주문번호 A2025031400771 확인 부탁드려요", ["A2025031400771"]),
    ("engineer 李强 (工号 ZX30418)", ["ZX30418"]),
])
def test_cjk_names_and_numbers(anon, text, values):
    out = user(anon, text)
    for v in values:
        assert v not in out, (v, out)


def test_a_tracking_number_in_chinese_stays(anon):
    out = user(anon, "你好，我的快递单号 SF1234567890123 显示已签收")
    assert "SF1234567890123" in out


# ---------------------------------------- masked numbers, last four of a social
@pytest.mark.parametrize("text,value", [
    ("payment=Visa ••7781 on file", "7781"),
    ("PAYMENT: MASTERCARD x5520", "5520"),
    ("card 4111 XXXXXX X3390 was declined", "3390"),
    ("SSN on file: XXX-XX-4471", "4471"),
    ("last4 ssn 8834 given for verification", "8834"),
    ("verified with last 4 SSN 1928 and zip", "1928"),
])
def test_masked_numbers_and_last_four(anon, text, value):
    assert not present(user(anon, text), value)


def test_a_product_model_with_an_x_stays(anon):
    assert "3x2200" in user(anon, "the 3x2200 panel ships Monday")


# ---------------------------------------- chat nicks and mixed-case handles
@pytest.mark.parametrize("text,value", [
    ("> [kasia_wr] sure, send it via the app", "kasia_wr"),
    ("[room=88123] [jo.hanna_k] see you there", "jo.hanna_k"),
    ("appeal for account SnowOwl_Ranger please", "SnowOwl_Ranger"),
    ("--- note (Admin_Rowena) --- second strike", "Admin_Rowena"),
])
def test_nicks_and_handles(anon, text, value):
    assert value not in user(anon, text)


@pytest.mark.parametrize("text", ["[INFO] job started", "set Status_Code to 200 and call get_Order(x)",
                                  "PAYMENT_FAILED at 10:02"])
def test_log_levels_constants_and_code_stay(anon, text):
    assert user(anon, text) == text


# ---------------------------------------- a house number said before the street
@pytest.mark.parametrize("text,value", [
    ("customer: thirty one oak hollow drive in fresno", "thirty one oak hollow drive"),
    ("caller: six two oh eight north linden avenue", "six two oh eight north linden avenue"),
    ("it's at two nineteen marsh crescent", "two nineteen marsh crescent"),
])
def test_spoken_house_number_then_street(anon, text, value):
    assert value not in user(anon, text)


@pytest.mark.parametrize("text", ["we had two hundred people drive in", "it is two more lanes to the left"])
def test_numbers_before_street_words_that_are_no_address_stay(anon, text):
    assert user(anon, text) == text


# ---------------------------------------- units and UUIDs
@pytest.mark.parametrize("text,value", [
    ("Tenant rep Imogen (Flat 14) will hold the keys", "Flat 14"),
    ("jag bor på Ekgatan, lgh 1203", "lgh 1203"),
])
def test_flat_numbers(anon, text, value):
    assert value not in user(anon, text)


def test_a_persons_uuid_is_replaced(anon):
    uid = "0c8d2b1e-77a4-4f0e-9b3a-5e2d6c1f9a40"
    out = _tool_text(anon, json.dumps({"applicant": {"uuid": uid}, "request_uuid": "11111111-2222-4333-8444-555555555555"}))
    assert uid not in out and "11111111-2222-4333-8444-555555555555" in out


def test_markdown_bold_before_a_date_is_no_mask(anon):
    text = "- **Current Return Date:** 2024-05-28\n- **Card:** ending 4821"
    out = user(anon, text)
    assert "2024-05-28" in out and "4821" not in out


def test_xml_children_read_as_one_object(anon):
    out = _tool_text(anon, "<crm><person><nm><last>Okonjo</last><first>Adaeze</first></nm>"
                           "<addr><l1>17 Larch Row</l1><pc>1072 KX</pc></addr></person>"
                           "<item><name>Desk Lamp</name><sku>DL-100</sku></item></crm>")
    _gone(out, ["Okonjo", "Adaeze", "17 Larch Row", "1072 KX"])
    assert "Desk Lamp" in out and "DL-100" in out


def test_cjk_glued_number_keys_but_not_tracking(anon):
    out = _tool_text(anon, json.dumps({"退货单号": "TH2025010200331", "订单号": "JD7710293312",
                                       "快递单号": "SF1102938475612"}, ensure_ascii=False))
    _gone(out, ["TH2025010200331", "JD7710293312"])
    assert "SF1102938475612" in out


# ---------------------------------------- names in capitals, by initials, in bank statements
@pytest.mark.parametrize("text,values", [
    ("D 20018811 WM-0093311 OK   9 ELM CT           HALLORAN, BRIDGET", ["HALLORAN", "BRIDGET"]),
    ("=== CASE 4418820 ===\nCUSTOMER: HILL, GRACE   CUST#0077120", ["HILL", "GRACE", "4418820", "0077120"]),
])
def test_family_comma_given_in_capitals_and_case_headers(anon, text, values):
    out = _tool_text(anon, text)
    for v in values:
        assert not present(out, v), (v, out)


@pytest.mark.parametrize("text", ["DEPT: SALES, MARKETING", "NOTE: URGENT, PLEASE CALL", "PARIS, TEXAS is a film",
                                  "in case 3 of 5 we retried"])
def test_capitals_and_cases_that_are_no_person(anon, text):
    assert user(anon, text) == text


@pytest.mark.parametrize("text,value", [
    ("Surveyor: K. Oyelaran (PropCheck)", "Oyelaran"),
    ("meter read by T. Achterberg, vacant", "Achterberg"),
    ("ответственный инженер Соколов В.П. не передал данные", "Соколов"),
    ("менеджер: Морозова Е.", "Морозова"),
])
def test_initials_and_family_name(anon, text, value):
    assert value not in user(anon, text)


@pytest.mark.parametrize("text", ["shop at J. Crew and U.S. Steel", "see p. 12 and Fig. 3"])
def test_initials_of_no_person_stay(anon, text):
    assert user(anon, text) == text


def test_person_to_person_payments_in_a_statement(anon):
    out = _tool_text(anon, "date,description,amount\n2025-01-02,ZELLE TO AMARA OKAFOR,-80.00\n"
                           "2025-01-03,VENMO *LUCAS MOREAU,-12.50\n2025-01-04,ZELLE FROM JIN-HO SEO,+40.00\n"
                           "2025-01-05,TRANSFER TO SAVINGS ACCOUNT,-100.00\n2025-01-06,UBER *TRIP,-9.10")
    _gone(out, ["AMARA OKAFOR", "LUCAS MOREAU"])
    assert "TRANSFER TO SAVINGS ACCOUNT" in out and "UBER *TRIP" in out


def test_a_name_then_kin_in_brackets(anon):
    out = user(anon, "second number 0161 496 0222 (Folake, wife) after 6pm")
    assert "Folake" not in out


def test_an_irish_eircode(anon):
    out = user(anon, "Address: 4 Church View, Galway, H91 X2Y7")
    assert "H91 X2Y7" not in out
    assert user(anon, "route A12 BC34 closed") == "route A12 BC34 closed"


def test_a_signature_after_a_teams_name_and_a_slash(anon):
    out = user(anon, "Paketet är på väg.\n\nVänliga hälsningar\nKundtjänst Norr / Linnea")
    assert "Linnea" not in out
    assert user(anon, "Thanks,\nSupport / Billing") == "Thanks,\nSupport / Billing"


@pytest.mark.parametrize("text,value", [
    ("Hi Edwin, I'm Sam! Sorry about that", "Sam"),  # no key rule's short word is a keep-word
    ("login reset done. account name Philippa Dunmore", "Philippa Dunmore"),
])
def test_names_after_short_introductions_and_account_name(anon, text, value):
    assert value not in user(anon, text)


@pytest.mark.parametrize("text,value", [
    ("meet me at 64 Larch Lakes, 75011\nthanks", "75011"),
    ("deliver to 2064 Patterson Plains, chicago 60659. thanks", "60659"),
    ("i live at 26 Monica Mountain cv3 4ah since may", "cv3 4ah"),
])
def test_a_postcode_after_a_street(anon, text, value):
    assert not present(user(anon, text), value, ignore_case=True)


def test_a_year_after_a_street_stays(anon):
    assert "2024." in user(anon, "we moved to 12 Baker Street, 2024.")


@pytest.mark.parametrize("text", ["Anexo I. Tarifas uso doméstico (IVA no incluido)", "Part V. Claims process"])
def test_a_roman_numeral_before_a_heading_is_no_initial(anon, text):
    assert user(anon, text) == text


# ---------------------------------------- red-team 29 (read this round): forms, letters, offices
def test_field_labels_of_a_form_in_another_language_are_no_speakers(anon):
    form = ("Név: Kovács-Tóth Emese\nLakcím: 6720 Szeged, Kárász utca 9.\nBankszámla: 10918001-00000071-44550011\n"
            "Munkakör: ápoló\nBelépés: 2024.06.03.\nTelefon: 06-30-555-0192")
    out = user(anon, form)
    # ("Belépés:" - entry date - is left out: spaCy's English model itself tags it PERSON here)
    for label in ("Lakcím:", "Bankszámla:", "Munkakör:", "Telefon:"):
        assert label in out, (label, out)
    _gone(out, ["Kovács-Tóth", "10918001-00000071-44550011", "06-30-555-0192"])


def test_a_transcripts_repeated_speakers_are_still_names(anon):
    out = user(anon, "Wendeline: hi\nOperator: hello\nWendeline: my bill\nOperator: sure")
    assert "Wendeline" not in out and "Operator:" in out


@pytest.mark.parametrize("text,value", [
    ("Betreft: terugvordering, kenmerk WW/25/0771230", "WW/25/0771230"),
    ("Prot. n. INPS.5100.02/04/2025.0031187 - domanda n. 5100.2025.0044120", "0031187"),
    ("Revisa el borrador (protocolo 2.311/2025):", "2.311/2025"),
    ("Ügyszám: NYF/2025/201-55120/1", "NYF/2025/201-55120/1"),
    ("ombi la kibali - faili SVC/RP/2025/0711", "SVC/RP/2025/0711"),
])
def test_an_offices_file_reference_after_its_label(anon, text, value):
    assert value not in user(anon, text)


def test_a_word_that_only_names_a_reference_stays(anon):
    assert user(anon, "the kenmerk is missing from the letter") == "the kenmerk is missing from the letter"


@pytest.mark.parametrize("text,value", [
    ("2025-02-01 10:05:12 NOTE author=kimsh text=\"refund\" cashier=leejy07", "kimsh"),
    ("2025-02-01 10:05:12 RECEIPT cashier=leejy07 amt=4800", "leejy07"),
])
def test_staff_logins_of_a_hospital_log(anon, text, value):
    assert value not in _tool_text(anon, text)


def test_an_adjuster_key_and_a_sort_key(anon):
    out = _tool_text(anon, json.dumps({"adjuster": "r.whitlock", "sort": {"by": "date"}}))
    assert "r.whitlock" not in out and '"by": "date"' in out


@pytest.mark.parametrize("text,value", [
    ("o meu filho Duarte (nascido a 11/04/2020) precisa de médico", "11/04/2020"),
    ("De auto is verkocht aan mijn zwager Hasnae. Kunt u dit omzetten?", "Hasnae"),
    ("pełnomocnik: córka Bożena, e-mail w aktach", "Bożena"),
    ("operator: spitalul judetean buna ziua sunt ruxandra", "ruxandra"),
    ("home visit si Nurse Marivic sa Purok 5", "Marivic"),
])
def test_kin_titles_and_birth_words_of_other_languages(anon, text, value):
    assert not present(user(anon, text), value, ignore_case=True)


@pytest.mark.parametrize("text", ["the syn Flood attack was blocked", "the Nurse Practitioner role is open"])
def test_words_like_kin_or_titles_that_name_no_one_stay(anon, text):
    assert user(anon, text) == text


@pytest.mark.parametrize("text,value", [
    ("El NUHSA es AN5512093377 y su médico", "AN5512093377"),
    ("Nilikuwa na NHIF namba R0933120 zamani", "R0933120"),
    ("KVNR: K408812273, Kasse AOK", "K408812273"),
])
def test_a_registers_number_after_its_acronym(anon, text, value):
    assert value not in user(anon, text)


@pytest.mark.parametrize("text", ["SKU AB1234567 is in stock", "PO KX2024118 approved", "ISO 27001 audit"])
def test_product_order_and_standard_codes_stay(anon, text):
    assert user(anon, text) == text
