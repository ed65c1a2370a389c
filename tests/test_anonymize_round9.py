"""Issue 11, ninth round: the kinds a third red-team pass found (national ids, plates and record
numbers after labels of other languages; person objects in JSON by their structure; transcripts
written in one message; introductions of other languages; lower-case names in agents' notes;
IBANs with wrong check digits; last four digits after words of other languages), each tested in
sentences written here - never the red-team values - with the sentences that must stay.

Real presidio + the spaCy package model; one analyzer for the module.
"""
from __future__ import annotations

import json
from functools import partial

import pytest

from pipeline.anonymize import Anonymizer, build_analyzer
from pipeline.records import LogRecord
from tests.anon_helpers import assert_gone, one, present, user


@pytest.fixture(scope="module")
def anon():
    return Anonymizer(secret="round9", analyzer=build_analyzer())


# the shared helpers (tests/anon_helpers.py); values are matched in any case
_present = partial(present, ignore_case=True)
_assert_gone = partial(assert_gone, ignore_case=True)
_one = partial(one, rid="r9")
_user = user


@pytest.mark.parametrize("text,values", [
    ("Hola, mi DNI es 30927418M y llamo por la factura.", ["30927418M"]),
    ("Le comunico mi NIE Y7731246P para el contrato.", ["Y7731246P"]),
    ("Il mio codice fiscale è BNCLRA72D41H501W, grazie.", ["BNCLRA72D41H501W"]),
    ("Mój PESEL 90081512345, proszę o kontakt.", ["90081512345"]),
    ("Reisepass C4F7J9K21 liegt der Anmeldung bei.", ["C4F7J9K21"]),
    ("Führerschein-Nr. J010000SD51 wurde vorgelegt.", ["J010000SD51"]),
    ("Je souhaite résilier le contrat n° HB-5531902 au plus vite.", ["HB-5531902"]),
    ("Vertragskonto 330 918 204 7, bitte Abschlag anpassen.", ["330 918 204 7"]),
    ("ciao, matricola 773120, non riesco a entrare nel portale", ["773120"]),
    ("Sou sócia nº 402281 do ginásio.", ["402281"]),
    ("Applicant NI number QQ 12 34 56 C on file.", ["QQ 12 34 56 C"]),
    ("N° de sécurité sociale : 1 85 05 78 006 084 36", ["1 85 05 78 006 084 36"]),
    ("student ID is 4410937 and I cannot log in", ["4410937"]),
    ("rental agreement RA-60218843 shows a fuel charge", ["RA-60218843"]),
])
def test_ids_after_labels_of_other_languages(anon, text, values):
    _assert_gone(_user(anon, text), values)


@pytest.mark.parametrize("text,plate", [
    ("Return check: veh reg BD51 SMR, scratch on the door.", "BD51 SMR"),
    ("Votre véhicule AB-123-CD est prêt.", "AB-123-CD"),
    ("Matrícula 2207 HXB, multa de aparcamiento.", "2207 HXB"),
    ("Kunde hat Fahrzeug B-KX 4410 abgegeben.", "B-KX 4410"),
    ("Sprawca odjechał, nr rej. WX 5512K.", "WX 5512K"),
    ("VIN 2T1BURHE0JC043821 on the claim form", "2T1BURHE0JC043821"),
])
def test_vehicle_plates_after_labels(anon, text, plate):
    out = _user(anon, text)
    assert plate not in out, out


def test_plate_words_without_a_plate_stay(anon):
    text = "The vehicle was clean and the plate light works; registration opens Monday."
    assert _user(anon, text) == text


def test_person_objects_by_structure(anon):
    args = {"application": {"ref": "APP-90417", "applicants": [
        {"first": "Gwenllian", "last": "Prytherch", "employer": "Harbour Mills Ltd"}]},
        "renter": {"fn": "Oskari", "ln": "Vainikainen"},
        "member": {"name": {"given": "Ludovica", "family": "Sperandeo"}},
        "student": {"id": "U7720391", "names": {"legal": "Trần Thị Mai", "preferred": "Maisie"}},
        "patient": {"ref": "P55012874", "label": "ABERNETHY-COLE, Rosalind"},
        "booking": {"attendee_name": "Eun-ji Baek", "class_id": "YOGA-0900"},
        "licence": {"no": "K8820413", "state": "WA"}}
    out = _one(anon, [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "save", "arguments": json.dumps(args)}}]}])
    text = json.dumps(out.model_dump(), ensure_ascii=False)
    _assert_gone(text, ["Gwenllian", "Prytherch", "Oskari", "Vainikainen", "Ludovica", "Sperandeo",
                        "Maisie", "Trần Thị Mai", "ABERNETHY-COLE", "Rosalind", "Eun-ji Baek", "K8820413",
                        "U7720391", "P55012874", "APP-90417"])
    # business facts beside them stay
    got = json.loads(out.messages[0]["tool_calls"][0]["function"]["arguments"])
    assert got["application"]["applicants"][0]["employer"] == "Harbour Mills Ltd"
    assert got["booking"]["class_id"] == "YOGA-0900" and got["licence"]["state"] == "WA"


def test_first_last_pair_of_non_names_is_no_person(anon):
    args = {"window": {"first": "2025-03-01", "last": "2025-03-31"}, "page": {"first": 1, "last": 9}}
    out = _one(anon, [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "q", "arguments": json.dumps(args)}}]}])
    assert json.loads(out.messages[0]["tool_calls"][0]["function"]["arguments"]) == args


def test_transcript_in_one_message_answers_are_read_as_what_was_asked(anon):
    text = ("AGENTE: Buenas tardes, ¿con quién hablo?\nCLIENTE: Con Maite Urquiola Berasaluce.\n"
            "AGENTE: ¿Me confirma su DNI?\nCLIENTE: 71204836Q\n"
            "AGENTE: ¿Y la matrícula del coche?\nCLIENTE: 5521 JLK\nAGENTE: Gracias.")
    out = _user(anon, text)
    _assert_gone(out, ["Maite", "Urquiola", "Berasaluce", "71204836Q", "5521 JLK"])
    # the speaker labels are no names
    assert out.count("AGENTE:") == 4 and out.count("CLIENTE:") == 3, out


@pytest.mark.parametrize("text,values", [
    ("oi, sou a Graciete Lobão e quero mudar o plano", ["Graciete", "Lobão"]),
    ("Buonasera, sono Ottavio Zanardelli, chiamo per la bolletta.", ["Ottavio", "Zanardelli"]),
    ("Dzień dobry, nazywam się Bożena Kwiatkowska-Lis.", ["Bożena", "Kwiatkowska-Lis"]),
    ("Mon fils s'appelle Théodore Vasseur, il a 12 ans.", ["Théodore", "Vasseur"]),
    ("Virement de 300 € au nom de « Gaëtan Rouquette ».", ["Gaëtan", "Rouquette"]),
    ("Pedido errado. Nome: Jurandir Mascarenhas. Obrigado.", ["Jurandir", "Mascarenhas"]),
    ("c'est pour la carte, je suis Hélène Marchetti-Dubois", ["Hélène", "Marchetti-Dubois"]),
])
def test_introductions_of_other_languages(anon, text, values):
    _assert_gone(_user(anon, text), values)


@pytest.mark.parametrize("text", [
    "Ich bin Neukunde und ich bin Student.",
    "je suis désolé, je suis Fatigué aujourd'hui.",
    "Sono arrivato ieri. Sono Contento del servizio.",
])
def test_i_am_a_noun_of_other_languages_stays(anon, text):
    assert _user(anon, text) == text


def test_lower_case_names_in_agent_notes(anon):
    note = ("cust verified. acct holder rosalind featherstonehaugh called re card. "
            "clmt = ignatius oyelowo-park, alt contact wife perpetua. stu. kwabena asante-darko locked out")
    out = _one(anon, [{"role": "assistant", "content": note}]).messages[0]["content"]
    _assert_gone(out, ["rosalind", "featherstonehaugh", "ignatius", "oyelowo-park", "perpetua",
                       "kwabena", "asante-darko"])


def test_role_words_without_a_name_stay(anon):
    note = "the customer called back and the client asked for a refund; patient reports pain; driver arrived late"
    assert _one(anon, [{"role": "assistant", "content": note}]).messages[0]["content"] == note


@pytest.mark.parametrize("text", [
    "Do you offer the Novavax or Sanofi booster at the Kingsbury branch?",
    "Olá, há tarifa social no Funchal? E em Ponta Delgada?",
    "Est-ce que vous livrez à Grenoble le dimanche ?",
    # (a place that is also a gazetteer name after an English article is replaced: "the Camden
    # site" - the rule gave way to "The Okafor version"; see docs/anonymization.md, Known limits)
    "Which plans cover the Lambeth office and the Thamesmead site?",
])
def test_places_and_brands_after_an_article_stay(anon, text):
    assert _user(anon, text) == text


@pytest.mark.parametrize("value", [
    "DE44 5001 0517 5407 3249 32",   # German layout, check digits wrong
    "ES91 2100 0418 4502 0005 1333",  # Spanish layout, check digits wrong
])
def test_iban_with_wrong_check_digits_in_printed_layout(anon, value):
    from stdnum import iban as std_iban

    assert not std_iban.is_valid(value)  # the kind: a mistyped / made-up account number
    out = _user(anon, f"Bitte überweisen Sie auf {value}, danke.")
    assert value not in out and value.replace(" ", "") not in out.replace(" ", ""), out


def test_iban_shaped_code_of_no_country_stays(anon):
    text = "Ticket QX12 3456 7890 1234 5678 was closed."
    assert "QX12 3456 7890 1234 5678" in _user(anon, text)


@pytest.mark.parametrize("text,four", [
    ("¿Reconoce el cargo con la tarjeta terminada en 6083?", "6083"),
    ("Pode estornar no cartão final 2947?", "2947"),
    ("Paiement refusé sur la carte se terminant par 5512.", "5512"),
    ("Die Karte endet auf 7301.", "7301"),
])
def test_last_four_after_words_of_other_languages(anon, text, four):
    assert four not in _user(anon, text)


@pytest.mark.parametrize("text,street", [
    ("Endereço: Rua das Flores, 271 - Centro", "Rua das Flores, 271"),
    ("wohne jetzt in der lindenallee 12, bitte ändern", "lindenallee 12"),
])
def test_streets_in_other_layouts(anon, text, street):
    out = _user(anon, text)
    assert street not in out and "Flores" not in out and "lindenallee" not in out, out


# ---- part 3 (kinds of a fourth red-team set, tested in sentences written here) ----

def _tool_result(anon, obj):
    out = _one(anon, [{"role": "tool", "tool_call_id": "t", "content": json.dumps(obj)}])
    return json.loads(out.messages[0]["content"])


def test_record_numbers_under_keys_by_their_words(anon):
    obj = {"rxNum": "RX5531907", "ticketBarcode": "7700312958841", "folio": "F-330917", "txn": "T44120958",
           "addr": "77 Quarry Bank Rd, Leeds", "house": "Ivy Cottage", "line2": "Flat 4",
           "fromUser": "saltmarsh_gerti", "num_seats": 150, "cap": 10000, "user_role": "admin"}
    got = _tool_result(anon, obj)
    for k in ("rxNum", "ticketBarcode", "folio", "txn", "addr", "house", "line2", "fromUser"):
        assert got[k] != obj[k], k
    # counts and roles under look-alike keys stay
    assert got["num_seats"] == 150 and got["cap"] == 10000 and got["user_role"] == "admin"


@pytest.mark.parametrize("text,value", [
    ("Alquilé una furgoneta, reserva n.º VK-604219, gracias", "VK-604219"),
    ("Reference CL/2025/11873 for the bulky waste pickup.", "CL/2025/11873"),
    ("Permit no. RZ-448102 is on the windscreen.", "RZ-448102"),
    ("Meine Nutzer-ID 5590127364 ist gesperrt.", "5590127364"),
    ("locked out again, user id 6613092", "6613092"),
    ("O meu NIF é 215530872, obrigado.", "215530872"),
    ("at the dock now, my truck is MV21 PXE", "MV21 PXE"),
])
def test_more_labels(anon, text, value):
    assert value not in _user(anon, text)


@pytest.mark.parametrize("text,values", [
    ("Naam: Geertruida Wolterbeek, klant sinds 2019.", ["Geertruida", "Wolterbeek"]),
    ("Sono la dottoressa Ippolita Scarpellini, chiamo per il paziente Anselmo Tagliaferri.",
     ["Ippolita", "Scarpellini", "Anselmo", "Tagliaferri"]),
    ("Leveransen kom aldrig fram. Mvh Gunnvor Lindqvist-Åberg", ["Gunnvor", "Lindqvist-Åberg"]),
    ("Bedankt voor de hulp.\nMet vriendelijke groet,\nMarijke Verschuuren", ["Marijke", "Verschuuren"]),
])
def test_name_labels_titles_and_closings_of_other_languages(anon, text, values):
    _assert_gone(_user(anon, text), values)


def test_closing_words_alone_stay(anon):
    text = "Ich bin Kunde. Mit freundlichen Grüßen aus Köln und viele Grüße an das Team."
    assert _user(anon, text) == text


@pytest.mark.parametrize("text,value", [
    ("Reise für 2 Erw. + 1 Kind, Kind Mathis geb. 03.11.2016.", "03.11.2016"),
    ("profile: linkedin.com/in/oriel-fanshawe-7c2d1 (open to work)", "oriel-fanshawe-7c2d1"),
    ("withdrawal to 0x4b2E19c07aD3f5581c9E0b7A62dF13e84C9a0B57 pending", "0x4b2E19c07aD3f5581c9E0b7A62dF13e84C9a0B57"),
    ("sent to bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4 by mistake", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"),
])
def test_dates_profiles_and_wallets(anon, text, value):
    assert value not in _user(anon, text)


@pytest.mark.parametrize("messages", [
    [{"role": "user", "content": "Do you stock Nurofen Express 400 mg and the Bosch S6 Serie?"}],
    [{"role": "user", "content": "¿Qué documentos necesito para el padrón?"}],
    [{"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function", "function": {
        "name": "search", "arguments": json.dumps({"q": "Miele Triflex HX2", "filters": {"brand": ["Miele", "Vorwerk"]}})}}]},
     {"role": "tool", "tool_call_id": "c", "content": "Miele Triflex HX2 Pro and Vorwerk Kobold VK7 are in stock."}],
])
def test_products_brands_and_words_of_other_languages_stay(anon, messages):
    out = _one(anon, messages)
    assert json.dumps(out.messages, ensure_ascii=False) == json.dumps(messages, ensure_ascii=False)


@pytest.mark.parametrize("text,values", [
    ("Employee: Leopoldo Castañeda-Vidal (EMP-118204), Finance team.", ["EMP-118204"]),
    ("tkt: stu. wairimu kamau-otieno (S-00718823) locked out", ["S-00718823", "wairimu"]),
    ("Mijn nieuwe adres: Keizersgracht 512-II, 1017 EK Amsterdam.", ["Keizersgracht 512-II", "1017 EK"]),
    ("im at 14c Tanners Lane, side gate.", ["14c Tanners Lane"]),
    ("client brick_and_mortar_bob wont pay the invoice", ["brick_and_mortar_bob"]),
    ("lesson w/ tamsin okonedo, parallel parking ok", ["tamsin", "okonedo"]),
    ("Met vriendelijke groet,\nHendrikje Vlasblom", ["Hendrikje", "Vlasblom"]),
])
def test_ids_after_names_dutch_addresses_handles_after_roles(anon, text, values):
    _assert_gone(_user(anon, text), values)


@pytest.mark.parametrize("text", [
    "the item (1008292230) ships today; Flight HAT045 (ID 2024) is on time.",
    "We sold 1500 GX units; the client services team and user experience improved.",
    "Under £700: Dyson V15 Detect Absolute (£649) and Bosch Unlimited 7 Pro.",
])
def test_ids_in_brackets_and_products_that_stay(anon, text):
    assert _user(anon, text) == text


@pytest.mark.parametrize("text,values", [
    ("je viens avec mon fils Anatole, il a 19 ans", ["Anatole"]),
    ("Voy con mi hija Itziar al centro.", ["Itziar"]),
    ("Kunde kommt mit meinem Sohn Jannes vorbei.", ["Jannes"]),
    ("Mój tel. 601 220 918 - Wiesława Dąbrowicz", ["Wiesława", "Dąbrowicz"]),
    ("Poszkodowany: Radosław Wierzbicki, nr polisy 44120.", ["Radosław", "Wierzbicki"]),
    ("Fahrer: Jannik Oberkirch kam zu spät.", ["Jannik", "Oberkirch"]),
])
def test_kin_of_other_languages_dash_signatures_and_labelled_names(anon, text, values):
    _assert_gone(_user(anon, text), values)


@pytest.mark.parametrize("text", [
    "Status: Open Ticket. Destination: Paris Orly. Product: Galaxy Note.",
    "Meeting moved to 3pm. - Thanks",
    "It costs 20 dollars - Regards",
])
def test_labels_and_dashes_without_a_name_stay(anon, text):
    assert _user(anon, text) == text


@pytest.mark.parametrize("text,values", [
    ("Strandvejen 100, DK-2900 Hellerup", ["Strandvejen 100", "DK-2900"]),
    ("send it to 221B Baker St, London NW1 6XE", ["221B Baker St", "NW1 6XE"]),
    ("Adresa: Vinohradská 1511/230, 100 00 Praha 10", ["Vinohradská 1511/230", "100 00"]),
    ("Storgatan 14B, 113 45 Stockholm", ["Storgatan 14B", "113 45"]),
])
def test_european_street_and_postcode_layouts(anon, text, values):
    out = _user(anon, text)
    _assert_gone(out, values)


def test_town_after_a_swedish_postcode_stays(anon):
    assert "Stockholm" in _user(anon, "Storgatan 14B, 113 45 Stockholm")


def test_signature_name_in_a_text_of_another_language(anon):
    text = ("Objet : Résiliation\n\nBonjour,\n\nje souhaite résilier ma ligne.\n\nCordialement,\n"
            "Évariste Lefranc-Moulinier\nTél. +33 6 44 18 20 97")
    _assert_gone(_user(anon, text), ["Évariste", "Lefranc-Moulinier", "+33 6 44 18 20 97"])


def test_date_of_birth_after_dob_given(anon):
    assert "3/9/71" not in _user(anon, "caller failed KBA, DOB given 3/9/71, account locked")


@pytest.mark.parametrize("text,values", [
    # articles that are also family-name particles do not make the next word a thing
    ("Was this the best album of the year? van den Hoogenband and Okafor were session players.",
     ["Hoogenband", "Okafor"]),
    # a firm's legal form at the end of a span that runs over a field separator
    ("Gwendolen Tarrant-Voss / Halcyon Fabrics Ltd. / 12 Orchard Way", ["Gwendolen", "Tarrant-Voss"]),
])
def test_precision_rules_keep_the_names_beside_them(anon, text, values):
    _assert_gone(_user(anon, text), values)


@pytest.mark.parametrize("text,values", [
    # a possessive or a family noun after the word says person, whatever stands before it
    ("The Okafor family moved in last week.", ["Okafor"]),
    ("In Maria's opinion the plan works.", ["Maria"]),
    # a first name before the colon is a speaker, not a field's label
    ("Maria: John Smith called about the refund.", ["Maria", "John", "Smith"]),
])
def test_persons_beside_the_thing_and_label_rules(anon, text, values):
    _assert_gone(_user(anon, text), values)


def test_audit_judges_a_key_word_match_by_the_value_shape_as_the_anonymizer_does(anon):
    """A key named by a word inside it ("case", "claim_ref") holds an id only when the value has
    an id's shape; the audit must not call a kept "LIC-APP" a leak (a fresh-clone check found the
    two disagreeing), and still sees a real one."""
    rec = LogRecord(id="a", messages=[{"role": "tool", "tool_call_id": "t",
                                       "content": json.dumps({"case": "LIC-APP", "claim_ref": "CR-4471902"})}])
    a = Anonymizer(secret="round9-audit", analyzer=build_analyzer())
    out = a.anonymize_record(rec)
    got = json.loads(out.messages[0]["content"])
    assert got["case"] == "LIC-APP" and got["claim_ref"] != "CR-4471902"
    assert a.report()["audit"]["leaks"]["count"] == 0, a.report()["audit"]
