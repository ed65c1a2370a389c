"""Issue 11, twenty-second round: the kinds red-team 35 and 36 (read this round) showed; red-team
34 is never read. Each kind is tested in sentences and records written here, never the red-team
values.

Real presidio + the spaCy package model; one analyzer for the module.
"""
from __future__ import annotations

import json
from functools import partial

import pytest

from pipeline.anonymize import Anonymizer, build_analyzer
from pipeline.anonymize.config import default_config, normalize_key
from pipeline.anonymize.context import LabelFinder
from pipeline.anonymize.structured_text import markdown_rows, padded_fields
from tests.anon_helpers import called_tool_text, one, user, assert_gone, assert_kept


@pytest.fixture(scope="module")
def anon():
    return Anonymizer(secret="round22", analyzer=build_analyzer())


_tool_text = partial(called_tool_text, ask="Can you pull the record?")


_gone = partial(assert_gone, ignore_case=True)


_kept = assert_kept


# ---------------------------------------- a person's object: its id, as a JSON number too
@pytest.mark.parametrize("obj,values", [
    # a help desk's requester: the id is a JSON number
    ({"ticket": {"subject": "Blender jar cracked", "requester": {"id": 48120937716, "name": "Imogen Castellano",
                                                                  "email": "imogen.c@example.com"}}},
     ["48120937716", "Imogen Castellano"]),
    ({"assignee": {"id": 77310254, "name": "Teodor Wiśniewski"}}, ["77310254", "Teodor Wiśniewski"]),
    # a courier's own code: letters and three digits
    ({"kurier": {"id": "KUR-WAW-482", "imie": "Zofia", "nazwisko": "Dudek"}}, ["KUR-WAW-482", "Zofia", "Dudek"]),
    ({"driver": {"id": "drv-519", "name": "Oskar Lindahl"}}, ["drv-519", "Oskar Lindahl"]),
])
def test_a_person_objects_id_is_replaced_even_as_a_number(anon, obj, values):
    out = _tool_text(anon, json.dumps(obj, ensure_ascii=False))
    _gone(out, values)
    json.loads(out)  # still JSON, the number still a number
    if "requester" in out:
        assert isinstance(json.loads(out)["ticket"]["requester"]["id"], int)


def test_a_number_nobody_registered_stays_a_number(anon):
    out = _tool_text(anon, json.dumps({"item": {"id": 40213377, "qty": 3, "price": 19.99}}))
    _kept(out, ["40213377", "19.99"])


# ---------------------------------------- keys split otherwise by their capitals
@pytest.mark.parametrize("key", ["samAccountName", "SamAccountName", "sAMAccountName", "SAMACCOUNTNAME"])
def test_a_directory_login_key_in_any_capitals(anon, key):
    assert default_config().key_entity(normalize_key(key))[0] == "USER_ID"
    out = _tool_text(anon, json.dumps({key: "tbrennan", "department": "Payroll"}))
    _gone(out, ["tbrennan"])
    _kept(out, ["Payroll", key])


def test_a_labels_value_never_is_the_next_lines_key():
    finder = LabelFinder(default_config().id_labels)
    text = "objectClass: user\nsAMAccountName: kvarga"
    spans = [text[s:e] for _ent, s, e in finder.find(text)]
    assert "sAMAccountName" not in spans
    # (a value on the next line with no colon after it is still the label's)
    text2 = "Username:\nkvarga91"
    assert any(text2[s:e] == "kvarga91" for _ent, s, e in finder.find(text2))


def test_an_ldif_entry_keeps_its_keys(anon):
    out = _tool_text(anon, "dn: CN=Orsolya Varga,OU=Finance,DC=corp,DC=local\nobjectClass: user\n"
                           "sAMAccountName: ovarga\nmail: orsolya.varga@example.com")
    _kept(out, ["sAMAccountName:", "objectClass: user"])
    _gone(out, ["ovarga", "Orsolya Varga", "orsolya.varga@example.com"])


# ---------------------------------------- a printout's aligned fields
def test_padded_fields_read_a_format_list_and_a_screen_with_leader_dots():
    ps = "Name              : Wren Halloway\nSamAccountName    : whalloway\nEnabled           : False\n"
    assert padded_fields(ps) == [{"Name": "Wren Halloway", "SamAccountName": "whalloway", "Enabled": "False"}]
    screen = "PEDIDO.......: 7741-KX\nCLIENTE......: LUANA SIQUEIRA PRADO\nCEP..........: 04538-132\n"
    assert padded_fields(screen)[0]["CLIENTE"] == "LUANA SIQUEIRA PRADO"
    # a chat's speaker labels are not padded: no block
    assert padded_fields("Agent: hello\nCustomer: hi\nAgent: how can I help?") == []


@pytest.mark.parametrize("text,values,kept", [
    ("Name              : Wren Halloway\nSamAccountName    : whalloway\nDepartment        : Logistics\n"
     "EmployeeID        : 5520148", ["whalloway", "Wren Halloway", "5520148"], ["Logistics"]),
    ("PEDIDO.......: 7741-KX\nCLIENTE......: LUANA SIQUEIRA PRADO\nENDERECO.....: RUA DOS PINHEIROS 870, AP 41\n"
     "CEP..........: 04538-132\nENTREGADOR...: CAIO MENDONÇA RIBAS (ID MTB-22817)",
     ["LUANA SIQUEIRA PRADO", "RUA DOS PINHEIROS 870", "04538-132", "CAIO MENDONÇA RIBAS", "MTB-22817"], ["PEDIDO"]),
])
def test_a_printouts_fields_are_judged_by_their_keys(anon, text, values, kept):
    out = _tool_text(anon, text)
    _gone(out, values)
    _kept(out, kept)


# ---------------------------------------- people keys and log fields
@pytest.mark.parametrize("text,values", [
    ('{"malik": "YILDIRIMOĞLU, Hatice Nur", "blok": "D", "daire": "7"}', ["YILDIRIMOĞLU", "Hatice Nur"]),
    ('ts=09:12:40 evento=ALTA visitante="NURIA PASCUAL ROCA" anfitrion="Ignasi Ferrer (Compras)"',
     ["NURIA PASCUAL ROCA", "Ignasi Ferrer"]),
    # a generic "name" among a person's fields of a log line, in a script of its own
    ('ts=2024-03-02T08:01:12 door=DC-L2 cred=HX-55102 name="ফারহানা ইয়াসমিন" emp=QA-10442 ev=GRANT',
     ["ফারহানা ইয়াসমিন", "HX-55102", "QA-10442"]),
    ('2024-05-18T10:02:11Z INFO chat_opened by="Lukas Brandt" channel=web', ["Lukas Brandt"]),
])
def test_people_of_log_lines_and_owner_keys(anon, text, values):
    _gone(_tool_text(anon, text), values)


def test_a_log_lines_name_of_a_product_stays(anon):
    out = _tool_text(anon, 'ts=10:00 sku=KB-220 name="Ergo Keyboard Pro" qty=4 warehouse=North')
    _kept(out, ["Ergo Keyboard Pro"])


# ---------------------------------------- staff named in a system prompt
@pytest.mark.parametrize("text,name", [
    ("You are the TechNest support assistant. Human agent on shift: Priyanka Deshmukh. Never promise refunds.",
     "Priyanka Deshmukh"),
    ("Console of the streaming service. Agent: Chidinma Okoro. Verify identity first.", "Chidinma Okoro"),
    ("Painel de suporte. Atendente: Larissa Tavares. SLA: 2 min.", "Larissa Tavares"),
    ("Kundenservice-Assistent. Eskalation an: Frieda Hollmann (Team Retouren).", "Frieda Hollmann"),
])
def test_staff_named_inside_a_line_of_a_system_prompt(anon, text, name):
    _gone(user(anon, text), [name])


def test_a_chat_speaker_agent_is_no_label(anon):
    out = user(anon, "Agent: Thank you for calling. Agent: Sure, Great Question.")
    _kept(out, ["Thank you for calling", "Great Question"])


# ---------------------------------------- precision: a business's places, products, times
def test_markdown_rows_by_their_header():
    md = "Stores:\n| Store | Address | Hours |\n|---|:---:|---|\n| Leeds Briggate | 12 Briggate | 9-18 |\n| York | 3 Coney St | 9-17 |\nEnd"
    assert markdown_rows(md) == [{"Store": "Leeds Briggate", "Address": "12 Briggate", "Hours": "9-18"},
                                 {"Store": "York", "Address": "3 Coney St", "Hours": "9-17"}]


@pytest.mark.parametrize("text,kept", [
    # a store table in markdown: the address column is the stores'
    ("| Tienda | Dirección | L-S |\n|---|---|---|\n| Bilbao Gran Vía | Gran Vía de Don Diego López de Haro 21 | 10:00–21:00 |\n"
     "| Sevilla Nervión | Calle Luis de Morales 3 | 10:00–21:30 |", ["Tienda", "Calle Luis de Morales 3", "Sevilla Nervión"]),
    # a branch's object
    ('{"filiale": "TechHaus Köln Schildergasse", "adresse": "Schildergasse 64, 50667 Köln", "telefon": "0221 2049 310",'
     ' "oeffnungszeiten": "Mo-Sa 10-20"}', ["Schildergasse 64, 50667 Köln", "0221 2049 310"]),
    # a utility's service centres in YAML
    ("kundenzentren:\n  - name: Kundenzentrum am Marktplatz\n    adresse: Marktplatz 3, 79098 Freiburg\n"
     "  - name: Servicepunkt Bahnhof\n    adresse: Bismarckallee 7, 79098 Freiburg\nhotline: kostenfrei",
     ["Kundenzentrum am Marktplatz", "Marktplatz 3", "Servicepunkt Bahnhof", "Bismarckallee 7"]),
])
def test_a_business_places_name_address_and_phone_stay(anon, text, kept):
    _kept(_tool_text(anon, text), kept)


def test_a_persons_town_beside_the_street_is_still_replaced(anon):
    out = _tool_text(anon, json.dumps({"customer": {"name": "Halvard Rønning", "street": "Løkkeveien 14",
                                                    "city": "Stavanger", "zip": "4008"}}))
    _gone(out, ["Halvard Rønning", "Løkkeveien 14", "Stavanger", "4008"])


@pytest.mark.parametrize("obj,kept", [
    # a search's towns, no address around them
    ({"ciudad": ["Zaragoza", "Málaga", "Alicante"], "fechas": ["2024-12-24"]}, ["Zaragoza", "Málaga", "Alicante"]),
    # a catalogue's entry by its price: its name and number stay
    ({"ref": "CHQ-1182-NV", "nombre": "Trekking Pro Gore-Tex Verde Oliva", "pvp": "189,00 €"},
     ["Trekking Pro Gore-Tex Verde Oliva"]),
    ({"artikel": {"nr": "20931177", "bezeichnung": "Kaffeevollautomat CM 5", "preis": "899,00 €"}}, ["20931177"]),
    # times, dates and school years under keys read as an id's
    ({"franges": {"dl-dv": "06:00-22:00", "ds": "07:00-14:00"}}, ["06:00-22:00", "07:00-14:00"]),
    ({"eid_al_adha": ["2024-06-16", "2024-06-17"]}, ["2024-06-16", "2024-06-17"]),
    ({"state": "Lagos", "session": "2024/2025"}, ["2024/2025"]),
])
def test_business_values_under_misleading_keys_stay(anon, obj, kept):
    _kept(_tool_text(anon, json.dumps(obj, ensure_ascii=False)), kept)


# ---------------------------------------- a headerless payroll export: ids in the first column, amounts stay
def test_a_payroll_rows_employee_numbers_go_and_its_salaries_stay(anon):
    text = ("EMP-0231,MARGIT SZABO,HU42117730161111101800000000,412000,OK\n"
            "EMP-0287,ISTVAN KOVACS,HU93116000060000000012345676,385500,OK\n"
            "EMP-0302,ZSOFIA NAGY,HU35120102360038212300100001,290000,OK")
    out = _tool_text(anon, text)
    _gone(out, ["EMP-0231", "EMP-0287", "EMP-0302", "MARGIT SZABO", "ISTVAN KOVACS", "ZSOFIA NAGY"])
    _kept(out, ["412000", "290000"])


# ---------------------------------------- Turkish and Polish name parts under a courier
def test_a_couriers_name_parts_in_turkish(anon):
    out = _tool_text(anon, json.dumps({"kurye": {"ad": "Emre", "soyad": "Kılıçarslan", "kurye_no": "KRY-0192-77"}},
                                      ensure_ascii=False))
    _gone(out, ["Emre", "Kılıçarslan", "KRY-0192-77"])


@pytest.mark.parametrize("key,value", [("brukernavn", "kjnordh"), ("kennung", "ab12cde"), ("naf", "28/10023344/55"),
                                       ("TekuciRacun", "160-0000000123456-78"), ("tabno", "ТН-04471")])
def test_logins_and_numbers_under_keys_of_other_languages(anon, key, value):
    out = _tool_text(anon, json.dumps({key: value, "status": "active", "updated": "2024-03-01"}, ensure_ascii=False))
    _gone(out, [value])


@pytest.mark.parametrize("text,name", [
    ("You are the TechNest support assistant. Human agent on shift: Priyanka Deshmukh. Never promise refunds.",
     "Priyanka Deshmukh"),
    ("Asistente de la tienda (España). Agente humano de apoyo: Itziar Larrañaga. Plazo: 30 días.", "Itziar Larrañaga"),
])
def test_staff_named_in_a_system_prompt_are_replaced_there(anon, text, name):
    out = one(anon, [{"role": "system", "content": text}, {"role": "user", "content": "hello"}])
    _gone(out.messages[0]["content"], [name])
    assert out.messages[0]["content"].split(":")[0] == text.split(":")[0]  # the rest of the policy as written


def test_a_system_prompts_rules_after_a_role_stay(anon):
    text = "You are an airline agent. Agent: Follow The Policy. Supervisor: Customer Care Team. Operator: Booking Desk."
    out = one(anon, [{"role": "system", "content": text}, {"role": "user", "content": "hello"}])
    assert out.messages[0]["content"] == text


@pytest.mark.parametrize("text,values", [
    ("[2024-10-05 12:27:55] rider.assigned rider=B-KR-0417 (Jonas W.) vehicle=E-Bike", ["B-KR-0417", "Jonas W."]),
    ('{"verifie_par": "livreur #LC-5520 (Yannick Morel)", "age_ok": true}', ["LC-5520", "Yannick Morel"]),
])
def test_a_persons_number_then_the_name_in_brackets(anon, text, values):
    _gone(_tool_text(anon, text), values)


@pytest.mark.parametrize("obj,town", [
    ({"endereco": {"logradouro": "Rua Almirante Gavião 118", "cidade": "Niterói", "cep": "24210-310"}}, "Niterói"),
    ({"ad_soyad": "Deniz Aksoy", "adres": "Bahariye Cd. No: 41", "sehir": "Eskişehir", "tel": "+90 532 771 20 44"},
     "Eskişehir"),
    ({"адрес": "ул. Малая Садовая, д. 3, кв. 12", "город": "Калуга", "индекс": "248000"}, "Калуга"),
])
def test_a_town_beside_a_street_under_town_keys_of_other_languages(anon, obj, town):
    out = _tool_text(anon, json.dumps(obj, ensure_ascii=False))
    assert town not in out, out
