"""Issue 11, eleventh round: the kinds red-team set 6 showed once it was read (it had been
measured unseen in the tenth round) - names in capitals and other languages' person keys,
subscriber numbers and identity numbers under their countries' keys, national ids with check
digits of more countries, labels of national ids, plates and complaints, addresses that open with
a plot or house number, year-like Australian postcodes, sign-offs and e-mail headers, a text's
language from its unknown lower-case words - each tested in sentences written here, never the
red-team values, with the sentences that must stay.

Real presidio + the spaCy package model; one analyzer for the module.
"""
from __future__ import annotations

import re
from functools import partial

import pytest

from pipeline.anonymize import Anonymizer, build_analyzer
from pipeline.anonymize.context import is_foreign
from pipeline.anonymize.engine import NATIONAL_ID_RES
from tests.anon_helpers import assert_gone, one, present, tool, user


@pytest.fixture(scope="module")
def anon():
    return Anonymizer(secret="round11", analyzer=build_analyzer())


# the shared helpers (tests/anon_helpers.py); values are matched as written
_present = partial(present, ignore_case=False)
_assert_gone = partial(assert_gone, ignore_case=False)
_one = partial(one, rid="r11")
_user = user
_tool = tool


@pytest.mark.parametrize("obj,values", [
    # names in capitals, particles inside, under a person's object or a person key
    ({"owner": {"name": "BEATRIZ DE LA FUENTE", "dob": "1979-02-11"}}, ["BEATRIZ", "FUENTE", "1979-02-11"]),
    ({"status": "PAID", "recipient_name": "MWANGI JOSEPH KARIUKI"}, ["MWANGI", "JOSEPH", "KARIUKI"]),
    ({"customer": {"name": "PRIYA SUNDARAM IYER", "tier": "gold"}}, ["PRIYA", "SUNDARAM", "IYER"]),
    # "name" in other languages under other languages' person keys, or beside an identity number
    ({"klant": {"naam": "Joost Verhagen", "email": "jv@example.nl"}}, ["Joost", "Verhagen"]),
    ({"mottagare": {"namn": "Sofia Lindqvist"}}, ["Sofia", "Lindqvist"]),
    ({"akun": {"nama": "DEWI KARTIKA SARI", "nik": "3201154507880004"}}, ["DEWI", "KARTIKA", "SARI", "3201154507880004"]),
    # subscriber numbers under telecom / payment keys, a phone under a person key's longer name
    ({"msisdn": "447700900123", "plan": "SIM only"}, ["447700900123"]),
    ({"sender": {"swish": "46701234567"}}, ["46701234567"]),
    ({"wrong_recipient": "254711223344", "amount_kes": 1500}, ["254711223344"]),
    ({"new_owner": "Tomasz Wróbel"}, ["Tomasz", "Wróbel"]),
    # accounts, bank keys of other countries, tickets, licences and identity keys
    ({"reimburse_to": {"routing": "021000021", "account": "7712093345"}}, ["7712093345"]),
    ({"nro_cliente": "0055123987", "cbu": "0170099220000067797370"}, ["0055123987", "0170099220000067797370"]),
    ({"pax": "LEE/MINJI MS", "eticket": "220-7712345678", "ffp": "LH 992001234"}, ["220-7712345678", "LH 992001234"]),
    ({"cnh": "02650306461", "dl": "D1234567", "ckyc": "40012345678901"}, ["02650306461", "D1234567", "40012345678901"]),
    ({"spz": "5A8 1234", "rego": "1AB 2CD"}, ["5A8 1234", "1AB 2CD"]),
    ({"paciente": {"nome": "Lucas Andrade", "nascimento": "03/07/1988"}}, ["Lucas", "Andrade", "03/07/1988"]),
    # an address under any key that holds one
    ({"kyc_address": "Plot 7, Ring Road, Ibadan", "kyc": "ok"}, ["Plot 7, Ring Road, Ibadan"]),
    ({"service_address": "Flat 3, 27 Mill Lane, Leeds"}, ["27 Mill Lane"]),
])
def test_keys_people_numbers_and_addresses(anon, obj, values):
    _assert_gone(_tool(anon, obj), values)


def test_capital_particles_are_no_name_words(anon):
    """"DE LA" of a name in capitals is not registered as names ("ship to LA" stays)."""
    out = _tool(anon, {"owner": {"name": "BEATRIZ DE LA FUENTE", "dob": "1979-02-11"}},
                user="Can you ship it to the LA warehouse?")
    assert "LA warehouse" in out
    _assert_gone(out, ["BEATRIZ", "FUENTE"])


def test_a_whole_name_under_a_first_name_key_replaces_its_parts_in_the_chat(anon):
    out = _tool(anon, {"nome": "ANA PAULA DE MORAIS", "placa": "RTY5H72"},
                user="Oi, aqui é a Ana Paula Morais, minha moto foi bloqueada")
    _assert_gone(out, ["ANA", "PAULA", "MORAIS", "Ana", "Paula", "Morais", "RTY5H72"])


@pytest.mark.parametrize("obj", [
    {"account_balance": "12345.50"},  # an amount, not an account number
    {"http_client": "requests", "display": "compact"},  # vague person words ending a key
    {"screen": {"display": "AMOLED", "size_in": "6.1"}},  # one word in capitals is a spec, no name
])
def test_values_that_keep_their_place(anon, obj):
    out = _tool(anon, obj)
    for v in obj.values():
        for x in (v.values() if isinstance(v, dict) else [v]):
            assert x in out, out


@pytest.mark.parametrize("text,value", [
    ("Il codice fiscale del paziente: RSSMRA85T10A562S, grazie.", "RSSMRA85T10A562S"),
    ("RSSMRA85T10A562S, cell 347 112 2334", "RSSMRA85T10A562S"),
    ("KYC docs attached - AKQPT4471K and the form.", "AKQPT4471K"),
    ("Soy monotributista, 27-33445566-7, ¿me ayudan?", "27-33445566-7"),
    ("aadhaar wala number 4821 3377 6124 hai", "4821 3377 6124"),
    ("ID document 8504125123086 was uploaded yesterday.", "8504125123086"),
    ("Saya warga Malaysia, 880615-14-5527.", "880615-14-5527"),
])
def test_national_ids_of_more_countries_anywhere(anon, text, value):
    _assert_gone(_user(anon, text), [value])


def test_a_card_in_groups_is_no_aadhaar():
    """Three groups of a 16-digit card number are not an Aadhaar (a fake card became a residual)."""
    text = "Card number 5842 7421 7313 2174 on file"
    hits = [m.group("v") for rx, mods in NATIONAL_ID_RES if "in_.aadhaar" in mods for m in rx.finditer(text)]
    assert hits == []


@pytest.mark.parametrize("text,values", [
    ("My PPS is 2345671R and my employer is Tesco.", ["2345671R"]),
    ("I'm a resident, NRIC S7712093D, helper FIN G8812345N.", ["S7712093D", "G8812345N"]),
    ("The other driver's rego was XQJ-441, my rego is 1AB 2CD.", ["XQJ-441", "1AB 2CD"]),
    ("Minha placa do carro é RTY-5H72 e a da moto QWE2R45.", ["RTY-5H72", "QWE2R45"]),
    ("Plakam 34 ABC 123, kazadan sonra.", ["34 ABC 123"]),
    ("I have raised complaint CMP/2025/0098812 for the refund.", ["CMP/2025/0098812"]),
    ("BSB 082-001 Acc 9876 5432 please.", ["9876 5432"]),
    ("Mijn EAN 871685900012345678 klopt niet.", ["871685900012345678"]),
    ("CARTE AVANTAGE: 29090112345678901 | TRAIN 6113", ["29090112345678901"]),
    ("Her DOB 22-Mar-1987 is on the form; dob 05SEP79 for him.", ["22-Mar-1987", "05SEP79"]),
])
def test_labelled_ids_plates_and_birth_dates(anon, text, values):
    _assert_gone(_user(anon, text), values)


@pytest.mark.parametrize("text,values", [
    ("I'm at Plot 22, Adeola Odeku Street, Victoria Island.", ["Plot 22, Adeola Odeku Street"]),
    ("Deliver to No. 45, 5th Cross, Koramangala please", ["No. 45, 5th Cross"]),
    ("New address: 7/22 Ocean Pde, Coogee NSW 2034", ["22 Ocean Pde"]),
])
def test_streets_opening_with_a_plot_or_house_number(anon, text, values):
    _assert_gone(_user(anon, text), values)


def test_year_like_australian_postcode_after_its_state(anon):
    out = _user(anon, "Unit 4/18 Crown St Surry Hills NSW 2010. The lease started in 2010.")
    assert not _present(out.split(".")[0], "2010"), out
    assert "started in 2010" in out


@pytest.mark.parametrize("text,values", [
    ("Bitte ab März nicht mehr abbuchen. LG Jonas Weißmüller", ["Jonas", "Weißmüller"]),
    ("Kontot är stängt nu. /Ingrid Holmqvist", ["Ingrid", "Holmqvist"]),
    ("From: mariana soto <m.soto@correo.mx>\nSubject: devolución\n\nhola", ["mariana", "soto"]),
    ("Von: Jörg Haberl <jh@web.de>\nBetreff: Kündigung", ["Jörg", "Haberl"]),
])
def test_sign_offs_and_mail_headers(anon, text, values):
    _assert_gone(_user(anon, text), values)


@pytest.mark.parametrize("text,kept", [
    ("I bought an LG TV last year. LG Electronics fixed it.", ["LG TV", "LG Electronics"]),
    ("From: Customer Service <support@shop.example>\nSubject: your order", ["Customer Service"]),
    ("Von: Jörg Haberl <jh@web.de>\nBetreff: Kündigung", ["Von:", "Betreff: Kündigung"]),
    ("vorrei prenotare una visita oculistica per domani mattina", ["una visita oculistica"]),
])
def test_words_that_stay(anon, text, kept):
    out = _user(anon, text)
    for k in kept:
        assert k in out, out


@pytest.mark.parametrize("text,values", [
    ("I spoke with Jordan Baker yesterday about the refund.", ["Jordan", "Baker"]),
    ("I want to add Borna Dujmović as a beneficiary to my account", ["Borna", "Dujmović"]),
    ("A great song made even greater by a mandolin coda (not by Maya Langset).", ["Maya"]),
])
def test_names_that_are_also_words_or_places_stay_names(anon, text, values):
    _assert_gone(_user(anon, text), values)


def test_first_name_before_particles_and_a_known_family_name(anon):
    out = _tool(anon, {"klant": {"naam": "R. van den Broek", "email": "rvdb@example.nl"}},
                user="Dag, de retour is onderweg. Groeten, Roos van den Broek")
    _assert_gone(out, ["Roos", "Broek"])


def test_nickname_in_brackets_after_a_known_full_name(anon):
    out = _tool(anon, {"motorista": {"nome": "Wanderley Prates"}},
                user="meu cadastro foi bloqueado, nome Wanderley Prates (Dedé)")
    _assert_gone(out, ["Wanderley", "Prates", "Dedé"])


def test_language_from_unknown_lower_case_words():
    assert is_foreign("devo prenotare una visita dermatologica, impegnativa allegata", unknown_words=True)
    assert not is_foreign("called gwilym prytherch re: the invoice")
    assert not is_foreign("hey, the wifi keeps dropping, router model archer ax55, firmware updated yday")


@pytest.mark.parametrize("text", [
    "Welche Tarife gibt es für Ökostrom in Kiel und Lübeck?",
    "Se pueden devolver en cualquier tienda de Madrid, Barcelona o Valencia.",
    "Soffan är på väg från Jönköping Centrallager till Malmö Hyllie.",
    "Entregamos em São Paulo e no Rio amanhã.",
    "The lamp was discontinued in the Spring 2026 catalogue.",
    "Ground Handling at Lagos has rebooked the passengers.",
    "Abbiamo la Sala Medici alle 20:30 o la Terrazza Boboli alle 21:15.",
    "Il Menù San Valentino include il tiramisù.",
    "We sturen een nieuwe accu naar het afhaalpunt.",
])
def test_places_rooms_and_things_stay(anon, text):
    assert _user(anon, text) == text


def test_a_place_is_still_a_persons_name_beside_a_first_name(anon):
    _assert_gone(_user(anon, "ASSICURATO: Buongiorno, sono Lorenzo Castiglioni, chiamo per il sinistro."),
                 ["Lorenzo", "Castiglioni"])


@pytest.mark.parametrize("text,values", [
    ("My UPI id is anil.k.menon@okhdfc and the payment failed.", ["anil.k.menon@okhdfc"]),
    ("Vivo en Av. Insurgentes Sur 1602, Int. 5, CDMX", ["Av. Insurgentes Sur 1602"]),
    ("alamat saya Jl. Kebon Sirih Raya No. 27, Jakarta", ["Jl. Kebon Sirih Raya No. 27"]),
])
def test_handles_and_streets_of_more_countries(anon, text, values):
    _assert_gone(_user(anon, text), values)


def test_a_signature_with_particles_and_a_hyphenated_family_name(anon):
    out = _tool(anon, {"klant": {"naam": "M. van der Berg-Smit", "email": "mvdb@example.nl"}},
                user="Mijn accu is kapot.\n\nMet vriendelijke groet,\nMarloes van der Berg-Smit\nKerkstraat 9")
    _assert_gone(out, ["Marloes", "Berg-Smit"])


def test_a_number_answering_a_bank_account_question(anon):
    out = _one(anon, [{"role": "assistant", "content": "Can you re-enter your bank account in the app?"},
                      {"role": "user", "content": "oh i closed that one. new one is 000987123456 same bank"}])
    _assert_gone(out.messages[1]["content"], ["000987123456"])


def test_plural_keys_take_the_singular_keys_entity(anon):
    _assert_gone(_tool(anon, {"status": "HK", "new_etickets": ["220-7712009911", "220-7712009912"]}),
                 ["220-7712009911", "220-7712009912"])


@pytest.mark.parametrize("text,value", [
    ("Fødselsnummer er 15038500047, takk.", "15038500047"),
    ("Meine Steuer-Identifikation: 65423710005", "65423710005"),
    ("ο ΑΜΚΑ μου 22038712000 ευχαριστώ", "22038712000"),
    ("AHV-Nummer 756.9217.0769.85 bitte ändern", "756.9217.0769.85"),
    ("주민등록번호 971013-9019902 입니다", "971013-9019902"),
])
def test_national_ids_with_strong_checks_anywhere(anon, text, value):
    _assert_gone(_user(anon, text), [value])


@pytest.mark.parametrize("text,values", [
    ("お客様情報：生年月日：1987年3月22日、〒150-0002 東京都渋谷区渋谷2-21-1",
     ["1987年3月22日", "150-0002", "渋谷2-21-1"]),
    ("생년월일: 1987년 3월 22일", ["1987년 3월 22일"]),
    ("router mac a4:5e:60:d2:1f:09, please reset it", ["a4:5e:60:d2:1f:09"]),
    ("IMEI 356938035643809, the phone was stolen", ["356938035643809"]),
])
def test_cjk_birth_dates_japanese_addresses_and_devices(anon, text, values):
    _assert_gone(_user(anon, text), values)


def test_a_mac_address_gets_a_hex_fake(anon):
    out = _user(anon, "router mac a4:5e:60:d2:1f:09, please reset it")
    assert re.search(r"mac (?:[0-9a-f]{2}:){5}[0-9a-f]{2},", out), out


def test_times_and_item_ids_stay(anon):
    text = "The meeting is at 10:30:00; items 1008292230 and 4768869376 ship with tracking 682308736931."
    assert _user(anon, text) == text


def test_a_mac_address_under_an_address_key_is_a_device_not_a_street(anon):
    out = _tool(anon, {"mac_address": "00:1A:2B:3C:4D:5E"})
    assert re.search(r'"mac_address": "(?:[0-9A-F]{2}:){5}[0-9A-F]{2}"', out) and "00:1A:2B:3C:4D:5E" not in out, out


def test_a_possessive_keeps_a_place_named_person_a_person(anon):
    _assert_gone(_user(anon, "They sang the verses from Salla Mieto's Cautionary Tales."), ["Salla", "Mieto"])


# a fresh-clone check at the end of the round (a new user's own records)
def test_a_pan_under_a_pan_key_is_an_indian_tax_id_not_a_card(anon):
    out = _tool(anon, {"vpa": "9845031276@okaxis", "pan": "AKQPT4471K"})
    m = re.search(r'"pan": "([A-Z]{5})\d{4}[A-Z]"', out)
    assert m and m.group(1) != "AKQPT", out


@pytest.mark.parametrize("obj,values", [
    ({"status": "REVERSED", "receiver_name": "WANJIRU KAMAU", "receiver": {"msisdn": "254711002233"}},
     ["WANJIRU", "KAMAU", "254711002233"]),
])
def test_receivers_are_people(anon, obj, values):
    _assert_gone(_tool(anon, obj), values)


@pytest.mark.parametrize("text,values", [
    ("Row: Liam Ngata,0412 883 019,12 Spit Rd,Mosman NSW,2088,780", ["2088"]),
    ("生年月日は1987年4月23日です", ["1987年4月23日"]),
])
def test_csv_postcodes_after_a_state_and_birth_dates_after_a_particle(anon, text, values):
    _assert_gone(_user(anon, text), values)


def test_a_capitalized_particle_is_no_first_name(anon):
    out = _user(anon, "Beste meneer Van der Meulen,\n\nMet vriendelijke groet,\nPieter van der Meulen")
    assert "meneer Van der " in out and "\nPieter" not in out and "Meulen" not in out, out
