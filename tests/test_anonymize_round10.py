"""Issue 11, tenth round: the kinds red-team set 5 showed once it was read (it had been measured
unseen in the ninth round) - record numbers after a word that says "number" in any language or in
a "PREFIX-digits" shape, national ids with check digits anywhere, keys of other languages and
glued keys, a YAML boolean in the PII config - each tested in sentences written here, never the
red-team values, with the sentences that must stay.

Real presidio + the spaCy package model; one analyzer for the module.
"""
from __future__ import annotations

import json
import re
from functools import partial

import pytest

from pipeline.anonymize import Anonymizer, build_analyzer
from pipeline.anonymize.config import PiiConfig, PiiConfigError, default_config, normalize_key
from tests.anon_helpers import assert_gone, one, present, tool, user


@pytest.fixture(scope="module")
def anon():
    return Anonymizer(secret="round10", analyzer=build_analyzer())


# the shared helpers (tests/anon_helpers.py); values are matched in any case
_present = partial(present, ignore_case=True)
_assert_gone = partial(assert_gone, ignore_case=True)
_one = partial(one, rid="r10")
_user = user
_tool = partial(tool, with_user=False)


@pytest.mark.parametrize("text,values", [
    ("Please update the record for donor ID GH-US-7741203, thanks.", ["GH-US-7741203"]),
    ("Ich bin Vereinsmitglied, Mitgliedsnr. KLV-55120, und möchte kündigen.", ["KLV-55120"]),
    ("Mój numer klienta to WPL-8812034 a legitymacja nr 774120.", ["WPL-8812034", "774120"]),
    ("Zaměstnanec č. ZT-118820 požádal o změnu účtu.", ["ZT-118820"]),
    ("Pakkenr. 77420091183300451276 er ikke leveret.", ["77420091183300451276"]),
    ("Loan no. 0077123498 was refinanced last year.", ["0077123498"]),
    ("Subscriber n° ABO-7720145 reported the outage.", ["ABO-7720145"]),
    ("My steam id is 76561198112233445 if you need it.", ["76561198112233445"]),
    ("Il numero della pratica assicurativa è SIN-IT-4471023.", ["SIN-IT-4471023"]),
    ("Nummer der Kundenkarte 88 1204 5531, bitte sperren.", ["88 1204 5531"]),
])
def test_ids_after_a_number_word_of_any_language(anon, text, values):
    _assert_gone(_user(anon, text), values)


@pytest.mark.parametrize("text,values", [
    ("Booked under plan GYM-449120, monthly.", ["GYM-449120"]),
    ("Your parcel ticket is COL-24-8812290, keep it.", ["COL-24-8812290"]),
    ("Vstupenka FST-25-6612093 byla převedena.", ["FST-25-6612093"]),
    ("Lesson slot TUT-4417-C moved to Friday.", ["TUT-4417-C"]),
])
def test_prefixed_record_ids_anywhere(anon, text, values):
    _assert_gone(_user(anon, text), values)


@pytest.mark.parametrize("text", [
    "The SKU-4471 shelf is empty and ISO-27001 audit is due.",
    "Flight no. LH400 departs at 9 from gate 12.",
    "Room no. 2214 is on the second floor.",
    "Version 2024 of the app is out; see step no. 3.",
])
def test_numbers_that_are_no_persons_record_stay(anon, text):
    assert _user(anon, text) == text


@pytest.mark.parametrize("text,value", [
    ("mój PESEL jest w systemie, a tata ma 41020312476", "41020312476"),   # pl.pesel
    ("el conductor era 73219486K según la multa", "73219486K"),           # es.dni
    ("rodné číslo otce je 410723/118", "410723/118"),                      # cz.rc
    ("le donateur 72.09.14-265.17 est domicilié à Gand", "72.09.14-265.17"),  # be.nn
    ("CPR 110384-1956 er registreret", "110384-1956"),                     # dk.cpr
])
def test_national_ids_with_check_digits_anywhere(anon, text, value):
    assert not _present(_user(anon, text), value)


def test_eleven_digits_that_fail_every_check_stay(anon):
    # 07555284190 (a UK mobile written together) is no PESEL / TC kimlik / CPF; it is a phone
    # and may be replaced as one, but never as a national id
    from pipeline.anonymize.engine import NATIONAL_ID_RES
    import importlib

    for rx, mods in NATIONAL_ID_RES:
        for m in rx.finditer("ref 12345678901 and 07555284190"):
            assert not any(importlib.import_module("stdnum." + mod).is_valid(m.group("v")) for mod in mods)


@pytest.mark.parametrize("obj,value", [
    ({"cita_id": "VAC-ES-448201", "ok": True}, "VAC-ES-448201"),
    ({"donornr": "BLD-SE-771204"}, "BLD-SE-771204"),
    ({"konto": "KT-PL-0044182"}, "KT-PL-0044182"),
    ({"nuova_tessera": "0044 9182 7731", "ritiro": "sportello"}, "0044 9182 7731"),
    ({"kod_odbioru": "774 120", "stav": "ready"}, "774 120"),
    ({"dvla_no": "MORGA712159JM9AB"}, "MORGA712159JM9AB"),
    ({"lidnummer": "NL-88120-K"}, "NL-88120-K"),
])
def test_keys_of_other_languages_and_glued_keys(anon, obj, value):
    out = _tool(anon, obj)
    assert not _present(out, value), out


def test_glued_key_takes_its_heads_entity():
    c = default_config()
    assert c.key_entity(normalize_key("phonenumber"))[0] == "PHONE_NUMBER"
    assert c.key_entity(normalize_key("donornr"))[0] == "ACCOUNT_ID"
    assert c.key_entity(normalize_key("piano"))[0] is None


def test_yaml_booleans_in_the_pii_config_are_an_error():
    """An unquoted ``no`` in a YAML list is the boolean False (YAML 1.1): the default config's
    key word ``no`` silently became "false" and "dvla_no" matched nothing."""
    c = default_config()
    assert c.key_entity("dvla_no")[0] == "ACCOUNT_ID"
    assert "no" in c.keep_words and "false" not in c.keep_words
    with pytest.raises(PiiConfigError, match="quote it"):
        PiiConfig().extend({"key_words": {"ACCOUNT_ID": ["ref", False]}}, source="extra.yaml")


@pytest.mark.parametrize("text,values", [
    ("Comprador: D. Álvaro Etxeberria Lasa, con domicilio en Bilbao.", ["Álvaro", "Etxeberria", "Lasa"]),
    ("Die Steuer-ID von Frau Dr. Hannelore Zwickauer-Brand fehlt noch.", ["Hannelore", "Zwickauer-Brand"]),
    ("Spendenquittung für Herrn Prof. em. Gottfried Rauschenbach-Moll, bitte.", ["Gottfried", "Rauschenbach-Moll"]),
    ("Verstorbener: Heinrich Mückenhaupt, geb. Lammerskötter, zuletzt in Münster.", ["Mückenhaupt", "Lammerskötter"]),
    ("Madame Dupont, née Vasseur, a appelé hier.", ["Dupont", "Vasseur"]),
    ("Děkujeme, pane Dvořáčku, adresa je změněna.", ["Dvořáčku"]),
    ("Jsem dcera po panu Miroslavu Kučerovi a chci vyřídit dědictví.", ["Miroslavu", "Kučerovi"]),
    ("Mă numesc Ioana Vlădescu și am o problemă cu factura.", ["Ioana", "Vlădescu"]),
])
def test_titles_birth_names_and_introductions_of_other_languages(anon, text, values):
    _assert_gone(_user(anon, text), values)


@pytest.mark.parametrize("text,label", [
    ("Vendedora: Dña. Maite Urrutia Goikoetxea firmó ayer.", "Vendedora"),
    ("Geburtsname Tiefenbrunner, Vorname Ottilie.", "Geburtsname"),
])
def test_the_label_before_a_name_stays(anon, text, label):
    assert _user(anon, text).startswith(label)


@pytest.mark.parametrize("text", [
    "Fundação Gulbenkian e Uniwersytet Gdański organizam o concerto.",
    "Das Bestattungshaus Lindenhof hat freitags geschlossen.",
])
def test_institutions_of_other_languages_stay(anon, text):
    assert _user(anon, text) == text


@pytest.mark.parametrize("text,values", [
    ("Our player got banned. In-game name is Kx_Tormenta_9, Discord tormenta#8812.", ["Kx_Tormenta_9", "tormenta#8812"]),
    ("Hola, mi nick es 'Lobo_Gris77' y no me llegó el premio.", ["Lobo_Gris77"]),
    ("streamer signing: twitch.tv/velvetotter, details later", ["velvetotter"]),
    ("My gamertag is SilentMoose42 on xbox.", ["SilentMoose42"]),
])
def test_gaming_and_streaming_handles(anon, text, values):
    _assert_gone(_user(anon, text), values)


def test_record_words_before_a_hash_are_no_handles(anon):
    text = "Please check order#4471 and ticket#2210."
    assert _user(anon, text) == text


@pytest.mark.parametrize("text,values", [
    ("Navn: Signe Holm, adresse Nørregade 14, 2. th., 8000 Aarhus C.", ["Nørregade 14", "8000"]),
    ("Mon adresse : 12 allée des Peupliers, 35000 Rennes.", ["35000"]),
    ("vivo en Calle Mayor 27, 5ºB, 20004 Donostia.", ["Calle Mayor 27", "20004"]),
])
def test_postcode_after_a_street_of_other_layouts(anon, text, values):
    _assert_gone(_user(anon, text), values)


@pytest.mark.parametrize("text,values", [
    ("B-07,Moira Talbot,Guillemot,07412 558 903,moira.t@gmail.com", ["07412 558 903", "Moira Talbot"]),
    ("Tax file number for the records: 512 334 871.", ["512 334 871"]),
    ("Vorrei il rimborso: intestatario Ludovica Santangelo, grazie.", ["Ludovica", "Santangelo"]),
    ("Uitvaart van mijn vader Gerrit (Gert) Hoogeveen, overleden 3 april.", ["Gerrit", "Gert", "Hoogeveen"]),
    ("J'ai vu une rayure sur la Clio immatriculée FR-552-KD hier.", ["FR-552-KD"]),
    ("Ho lasciato il casco nella Panda targata GH 771 RS ieri.", ["GH 771 RS"]),
    ("Cartão de Cidadão 13380421 7 ZY4, por favor.", ["13380421"]),
    ("bsn kind 111222333 voor de declaratie", ["111222333"]),
    ("nový držitel Jan Novák, nar. 12. 3. 1998", ["Jan Novák", "12. 3. 1998"]),
])
def test_fields_roles_nicknames_plates_and_birth_words(anon, text, values):
    _assert_gone(_user(anon, text), values)


def test_a_csv_field_that_is_no_phone_stays(anon):
    text = "SKU-A,Blue Tern,12,4.50"
    assert _user(anon, text) == text


def test_romance_function_words_spelled_like_english_say_no_language():
    from pipeline.anonymize.context import is_foreign

    assert is_foreign("O Rock in Rio Lisboa aceita voluntários sem experiência? E a Fundação ainda patrocina o Jazz?")
    assert not is_foreign("I need to change my flight to Lisbon in May, is that ok?")
    assert not is_foreign("Hi, my name is Ella da Silva and I am in a hurry")


@pytest.mark.parametrize("text,values,kept", [
    ("Für die Sonderausstellung zahlen Sie einen Aufpreis von 4 Euro.", [], ["Sie"]),
    ("Buonasera, prenotazione per 5 notti. Comandante Lorenzo Dell'Acqua, patente nautica n. GE 41872.",
     ["Lorenzo", "Dell'Acqua"], ["Comandante"]),
    ("Il notaio di Bologna chiede la visura catastale.", [], ["Bologna"]),
    ("Il notaio Carlo Benedetti ha firmato l'atto.", ["Carlo", "Benedetti"], ["notaio"]),
])
def test_titles_and_stop_words_of_other_languages(anon, text, values, kept):
    out = _user(anon, text)
    _assert_gone(out, values)
    assert all(_present(out, k) for k in kept), out


def test_signature_with_an_affiliation_after_a_comma(anon):
    text = ("Sehr geehrte Damen und Herren,\nanbei die Unterlagen.\nMit freundlichen Grüßen\n"
            "Heidrun Wallenstein, Förderverein Stadtmuseum")
    out = _user(anon, text)
    _assert_gone(out, ["Heidrun", "Wallenstein"])
    assert out.endswith(", Förderverein Stadtmuseum")


def test_lower_case_words_of_a_capitalized_foreign_text_are_no_names(anon):
    text = "O festival aceita voluntários sem experiência prévia? A Fundação confirma amanhã."
    assert _user(anon, text) == text


def test_lower_case_name_in_a_foreign_note_with_codes_in_capitals(anon):
    text = "paczka nr 620018447193 nie ma w paczkomacie KRK04M. odbiorca bożena kamińska-lis tel 698 224 017"
    _assert_gone(_user(anon, text), ["bożena", "kamińska-lis"])


def test_nickname_between_a_known_first_and_family_name(anon):
    out = _one(anon, [{"role": "user", "content": "Mein Name ist Irmgardine Wolkenstedt."},
                      {"role": "user", "content": "Im Vertrag steht Irmgardine (Dinchen) Wolkenstedt."}])
    text = " ".join(m["content"] for m in out.messages)
    _assert_gone(text, ["Irmgardine", "Dinchen", "Wolkenstedt"])


def test_ip_addresses_get_valid_fakes_and_versions_stay(anon):
    import ipaddress

    out = _user(anon, "Last logins from 81.143.22.197 and 2a02:c7f:5c3a:9e00::1b, then 10.0.0.12.")
    _assert_gone(out, ["81.143.22.197", "2a02:c7f:5c3a:9e00::1b", "10.0.0.12"])
    fakes = re.findall(r"[0-9a-f]*:[0-9a-f:]+|\d+\.\d+\.\d+\.\d+", out)
    assert len(fakes) == 3 and all(ipaddress.ip_address(f) for f in fakes), out
    text = "Update to v1.2.3.4 or version 10.0.0.1; the call was at 10:30:45."
    assert _user(anon, text) == text


def test_every_planted_persona_builds_and_holds_its_values():
    """The evaluation's planted set draws MAX_PERSONAS personas (the canary fewer): each record
    builds and holds each of its canary values (a plate letter list one short raised IndexError)."""
    from pipeline.anonymize.planted import MAX_PERSONAS, canary_values, persona, record

    for i in range(MAX_PERSONAS):
        text = json.dumps(record(i), ensure_ascii=False)
        missing = [v for v in canary_values(persona(i)) if v not in text and json.dumps(v)[1:-1] not in text]
        assert not missing, (i, missing)


def test_an_international_number_gets_one_fake_in_every_layout(anon):
    """A fresh-clone check: "+351 912 345 678" in a message and "+351912345678" in a tool call
    got unrelated fakes, the second with a new country code."""
    out = _one(anon, [
        {"role": "user", "content": "O meu número é +351 912 345 678, obrigado."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "reset_sim", "arguments": json.dumps({"msisdn": "+351912345678"})}}]}])
    shown = re.search(r"\+351 \d{3} \d{3} \d{3}", out.messages[0]["content"]).group(0)
    called = json.loads(out.messages[1]["tool_calls"][0]["function"]["arguments"])["msisdn"]
    assert shown != "+351 912 345 678" and called == shown.replace(" ", ""), (shown, called)


def test_weekdays_of_other_languages_are_no_names(anon):
    text = "Öffnungszeiten: Montag Ruhetag, Donnerstag Langer Abend bis 22 Uhr, sonst 10-18 Uhr."
    assert _user(anon, text) == text
    obj = {"oeffnungszeiten": [{"tag": "Montag Ruhetag"}, {"tag": "Sonntag Ruhetag", "bis": "22 Uhr"}]}
    assert json.loads(_tool(anon, obj)) == obj
    # (not yet: short German values with no language evidence - "Donnerstag Langer Abend",
    # "Donnerstag Spätöffnung" - still read as names; Known limits)


def test_a_name_part_as_a_field_beside_a_known_one(anon):
    out = _one(anon, [{"role": "user", "content": "Sou a Marta Teles, preciso de ajuda."},
                      {"role": "tool", "tool_call_id": "c", "content":
                       "apelido,nome,telefone,cidade\nTeles,Marta,+351 936 220 114,Braga"}])
    text = " ".join(m["content"] for m in out.messages)
    _assert_gone(text, ["Marta", "Teles", "+351 936 220 114"])
    assert "apelido,nome,telefone,cidade" in text and "Braga" in text
