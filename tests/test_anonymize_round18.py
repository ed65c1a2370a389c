"""Issue 11, eighteenth round: the kinds red-team sets 17 and 18 (read) still showed at the round's
start and those of red-team sets 21 and 22 once read (red-team 20 is never read). Each is tested
in sentences and records written here, never the red-team values.

Real presidio + the spaCy package model; one analyzer for the module.
"""
from __future__ import annotations

import json

import pytest

from pipeline.anonymize import Anonymizer, build_analyzer
from tests.anon_helpers import called_tool_text, replaced_and_kept, user


@pytest.fixture(scope="module")
def anon():
    return Anonymizer(secret="round18", analyzer=build_analyzer())


_tool_text = called_tool_text


# ------------------------------------------------- product tables: cells with a quantity and a unit
@pytest.mark.parametrize("table,kept", [
    ("code;descripcion;uds\nQS-01;Queso Curado Don Hilario 3kg;12\nVN-07;Vino Tinto Solar Viejo 75cl;96\n",
     ["Don Hilario", "Solar Viejo"]),
    ("art,bezeichnung,menge\n1001,Bergkäse Alpenglück 400 g,20\n1002,Apfelsaft Gut Heinrich 1L,50\n",
     ["Alpenglück", "Gut Heinrich"]),
    ("sku\tname\tqty\nPH-3\tNova Lumen Pro 256 GB\t4\nPH-4\tNova Lumen Mini 128GB\t9\n",
     ["Nova Lumen"]),
])
def test_a_table_cell_with_a_quantity_and_unit_is_a_product(anon, table, kept):
    out = _tool_text(anon, table)
    for w in kept:
        assert w in out, (w, out)


def test_a_person_column_keeps_its_names_beside_product_cells(anon):
    table = "customer;item;qty\nAnneliese Brückner;Bergkäse Alpenglück 400 g;2\n"
    out = _tool_text(anon, table)
    assert "Anneliese" not in out and "Brückner" not in out, out
    assert "Alpenglück" in out, out


@pytest.mark.parametrize("obj,kept", [
    ({"sku": "TR-11", "descripcion": "Turrón Casa Almendra 300g"}, ["Casa Almendra"]),
    ({"ean": "4006381333931", "beschreibung": "Gutshof Lindenberg Senf mittelscharf"}, ["Lindenberg"]),
])
def test_a_products_description_key_holds_business_words(anon, obj, kept):
    out = _tool_text(anon, json.dumps(obj, ensure_ascii=False))
    for w in kept:
        assert w in out, (w, out)


# ------------------------------------------------------ places, stations, storms, vessels, squares
@pytest.mark.parametrize("text", [
    "ICE 1706 Hamburg Hbf - Leipzig Hbf fällt heute aus.",
    "The ferry to Koh Lanta and Koh Phi Phi leaves at nine.",
    "Boats to Pulau Tioman are cancelled; Isla Holbox is still served.",
    "Sturmtief Friederike: Bäume im Gleis bei Uelzen.",
    "Orkantief Zeynep zieht nach Osten, Tief Bernd bringt Regen.",
    "Today the Andaman Wave Catamaran runs as normal.",
    "Waterlogging reported at Nehru Nagar, Lajpat Vihar and Tilak Chowk.",
    "A 4-es villamos nem jár a Petőfi Sándor tér és a Baross Gábor tér között.",
])
def test_places_storms_and_vessels_named_like_people_stay(anon, text):
    assert user(anon, text) == text


def test_a_customer_beside_a_station_is_still_replaced(anon):
    out = user(anon, "Treffpunkt Hamburg Hbf, Gleis 5: bitte melden Sie sich bei Frau Henrike Albers.")
    replaced_and_kept(out, ["Henrike", "Albers"], ["Hamburg Hbf", "Gleis 5"])


@pytest.mark.parametrize("text", [
    "Filia nr 7 im. Marii Konopnickiej jest nieczynna w sobotę.",
    "Экскурсия в школу им. Чехова переносится на среду.",
    "The Rosa Parks Library, named after Rosa Parks, opens at ten.",
])
def test_a_patron_after_named_after_words_stays(anon, text):
    out = user(anon, text)
    assert "Konopnickiej" in out or "Чехова" in out or "Rosa Parks" in out.split(",")[1], out


# ------------------------------------------------------- dishes under a name key
def test_dishes_under_a_name_attribute_stay(anon):
    xml = ('<menu><plat nom="Tarte Fine Mirabelle" prix="9.00"/>'
           '<plat nom="Poulet Basquaise" prix="19.00"/><chef nom="Josiane Pelletier"/></menu>')
    out = _tool_text(anon, xml, ask="Mets à jour la carte.")
    assert "Tarte Fine Mirabelle" in out and "Poulet Basquaise" in out, out
    assert "Josiane" not in out and "Pelletier" not in out, out


# ------------------------------------------------- German "im", train numbers, field labels
@pytest.mark.parametrize("text", [
    "Sturmtief Friederike: Bäume im Gleis bei Uelzen.",
    "Die Ersatzbusse halten im Hof bei der Post.",
])
def test_german_im_is_no_english_im(anon, text):
    assert user(anon, text) == text


def test_a_lower_case_english_intro_with_im_is_still_a_name(anon):
    out = user(anon, "hi im tamsin okafor, calling about my order")
    replaced_and_kept(out, ["tamsin", "okafor"], ["calling about my order"])


@pytest.mark.parametrize("text", [
    "ICE 1706 Hamburg Hbf - Leipzig Hbf fällt heute aus.",
    "Der RE 4410 Kiel fährt heute von Gleis 12 Richtung Wien.",
    "Der IC 2012 Dresden hat heute 20 Minuten Verspätung.",
])
def test_a_service_number_before_a_place_is_no_postcode(anon, text):
    assert user(anon, text) == text


def test_a_postcode_before_a_town_is_still_replaced(anon):
    out = user(anon, "Bitte liefern an: Mühlenweg 7, 20095 Hamburg.")
    replaced_and_kept(out, ["20095", "Mühlenweg 7"], ["Hamburg"])


@pytest.mark.parametrize("label,value", [
    ("Lieferadresse", "Hauptstr. 5, 20095 Hamburg"),
    ("Rechnungsanschrift", "Lindenallee 12, 50667 Köln"),
    ("Festnetztelefon", "040 1234567"),
])
def test_a_glued_field_label_stays_and_its_value_goes(anon, label, value):
    out = user(anon, f"{label}: {value}")
    assert out.startswith(label + ":"), out
    assert value not in out, out


@pytest.mark.parametrize("key,entity", [
    ("lieferadresse", "STREET_ADDRESS"), ("rechnungsanschrift", "STREET_ADDRESS"),
    ("festnetztelefon", "PHONE_NUMBER"), ("kindernachname", "LAST_NAME"),
])
def test_compound_keys_ending_in_a_key_word_name_its_entity(key, entity):
    from pipeline.anonymize.config import default_config

    assert default_config().key_entity(key)[0] == entity


@pytest.mark.parametrize("key", ["ipaddress", "macaddress", "telefonanlage_typ"])
def test_other_compounds_are_no_address_or_phone_keys(key):
    from pipeline.anonymize.config import default_config

    assert default_config().key_entity(key)[0] not in ("STREET_ADDRESS", "PHONE_NUMBER")


# ------------------------------------------------- numbers read aloud in words of many languages
@pytest.mark.parametrize("text,value", [
    ("Cliente: O código postal? Quatro zero cinco zero, traço, cento e dois.", "Quatro zero cinco zero, traço, cento e dois"),
    ("Kunde: Ähm, dann vier vier null, dreiundsechzig, zwölf, neunundneunzig.",
     "vier vier null, dreiundsechzig, zwölf, neunundneunzig"),
    ("Klient: Devět jedna dva tři, lomeno, osm sedm šest.", "Devět jedna dva tři, lomeno, osm sedm šest"),
    ("numer siedem zero jeden dwa trzy cztery piec szesc dzwoncie", "siedem zero jeden dwa trzy cztery piec szesc"),
    ("Kund: noll sjuttiotre, fyra fyra ett, femtiofem, sextiosex.", "noll sjuttiotre, fyra fyra ett, femtiofem, sextiosex"),
    ("Morgan: Beş yüz otuz iki, altı yüz kırk bir, yirmi iki.", "Beş yüz otuz iki, altı yüz kırk bir, yirmi iki"),
    ("CLIENT: five two three... forty-one... eight eight oh two", "five two three... forty-one... eight eight oh two"),
])
def test_a_number_read_aloud_in_groups_is_replaced(anon, text, value):
    out = user(anon, text)
    assert value not in out, out
    assert out.split(":")[0] == text.split(":")[0] or ":" not in text, out


@pytest.mark.parametrize("text", [
    "We need four, maybe five rooms, six or seven nights.",
    "Un, deux, trois: la réunion commence à dix heures.",
    "Ich nehme zwei Kaffee und drei Croissants, danke.",
])
def test_counting_words_in_a_sentence_stay(anon, text):
    assert user(anon, text) == text


def test_the_fake_of_a_spoken_number_is_number_words_of_its_language():
    import random

    from pipeline.anonymize.number_words import count_number_words, fake_number_words

    value = "drei drei null, zweiundsiebzig, elf"
    fake = fake_number_words(value, random.Random(3))
    assert fake != value and count_number_words(fake) == 5, fake
    assert fake.count(",") == 2, fake


# ------------------------------------------------- German texts, months, places under person keys
@pytest.mark.parametrize("text", [
    "Wegen Sturmtief Xandra ab 06:00 Uhr Ersatzverkehr zwischen Westkreuz und Spandau.",
    "Wegen Bauarbeiten Ersatzverkehr zwischen Ostkreuz und Lichtenberg ab Montag.",
])
def test_a_german_sentence_with_and_between_two_places_reads_as_german(anon, text):
    assert user(anon, text) == text


def test_a_name_between_particles_still_counts_as_a_name(anon):
    out = user(anon, "Please send the contract to Frits van den Heuvel today.")
    replaced_and_kept(out, ["Frits", "Heuvel"], ["contract"])


@pytest.mark.parametrize("text", [
    "Kick-off Sun 22 Sep 16:30 at the Etihad, or Sep 29 if it moves.",
    "Der Termin ist am 3 Okt oder 17 Dez.",
])
def test_a_months_short_name_beside_its_day_stays(anon, text):
    assert user(anon, text) == text


@pytest.mark.parametrize("text", [
    "The Jacobite runs from Fort William to Mallaig.",
    "Meet at the Scott Monument at noon.",
])
def test_forts_and_monuments_named_after_people_stay(anon, text):
    assert user(anon, text) == text


def test_a_place_under_a_person_key_stays_and_a_person_goes(anon):
    out = _tool_text(anon, json.dumps({"provided_by": {"display": "Lakeshore General Hospital"},
                                       "attending": {"display": "Marit Sundqvist"}}))
    assert "Lakeshore General Hospital" in out, out
    assert "Marit" not in out and "Sundqvist" not in out, out


# ------------------------------------------------- machine formats: address parts, SSR DOCS, PNR, XML
def test_address_parts_of_payment_and_invoice_xml_are_replaced(anon):
    xml = ("<Dbtr><Nm>Wiebke Harmsen</Nm><PstlAdr><StrtNm>Gerberstraße</StrtNm><BldgNb>217</BldgNb>"
           "<PstCd>50667</PstCd><TwnNm>Köln</TwnNm></PstlAdr></Dbtr>"
           "<enderDest><xLgr>RUA DOS PINHEIROS</xLgr><nro>918</nro><xCpl>APTO 71</xCpl></enderDest>")
    out = _tool_text(anon, xml, ask="Warum wurde die Lastschrift zurückgegeben?")
    for v in ("Wiebke", "Harmsen", "Gerberstraße", ">217<", "50667", "RUA DOS PINHEIROS", "APTO 71"):
        assert v not in out, (v, out)
    assert "Köln" in out, out


def test_an_ldap_home_postal_address_is_replaced(anon):
    out = _tool_text(anon, "dn: uid=kvale,ou=people\nhomePostalAddress: 5120 Larkspur Bend $ Tulsa, OK 74105\n",
                     ask="offboard kvale")
    assert "Larkspur" not in out, out


def test_a_pnr_travel_document_element_is_replaced(anon):
    text = ("10 SSR DOCS BA HK1 P/GBR/771204938/GBR/09MAR84/F/17AUG32/HALVORSEN/INGRID/MAREN/P1\n"
            "11 SSR DOCS BA HK1 P/NOR/650312877/NOR/21JAN79/M/02FEB30/HALVORSEN/TORBJORN/P2")
    out = _tool_text(anon, text, ask="Change the date for both travellers")
    for v in ("771204938", "09MAR84", "HALVORSEN", "INGRID", "MAREN", "650312877", "21JAN79", "TORBJORN"):
        assert v not in out, (v, out)
    assert "SSR DOCS BA HK1" in out and "/GBR/" in out, out


def test_a_title_glued_to_a_booking_name_still_makes_it_a_name(anon):
    out = _tool_text(anon, "1.HALVORSEN/INGRID MARENMRS  2.HALVORSEN/SOLVEIGMISS(CHD)",
                     ask="who is on the booking?")
    for v in ("HALVORSEN", "INGRID", "MARENMRS", "SOLVEIGMISS"):
        assert v not in out, (v, out)


def test_an_xml_element_named_by_its_name_attribute_is_read_as_that_key(anon):
    xml = ('<EventData><Data Name="TargetUserName">kjell.aasheim</Data>'
           '<Data Name="LogonType">10</Data><Data Name="IpAddress">203.0.113.77</Data></EventData>')
    out = _tool_text(anon, xml, ask="who tried to log in?")
    assert "kjell.aasheim" not in out, out
    assert ">10<" in out, out


# ------------------------------------------------- more languages of spoken numbers
@pytest.mark.parametrize("text,value", [
    ("Клієнтка: Три чотири п'ять шість, сім вісім дев'ять, нуль один два.",
     "Три чотири п'ять шість, сім вісім дев'ять, нуль один два"),
    ("מתקשר: אפס חמש שתיים, שלוש אחת אחת, ארבע ארבע חמש", "אפס חמש שתיים, שלוש אחת אחת, ארבע ארבע חמש"),
])
def test_numbers_read_aloud_in_other_scripts_are_replaced(anon, text, value):
    assert value not in user(anon, text)


# ------------------------------------------------- agents and customers introducing themselves
@pytest.mark.parametrize("text,values", [
    ("Operadora: Energia Norte, bom dia, fala a Graciete. Cliente: Bom dia.", ["Graciete"]),
    ("Handläggare: Fjällnät, du pratar med Sigrid. Kund: Hej!", ["Sigrid"]),
    ("Operátor: Dobrý den, u telefonu Radka. Klient: Dobrý den.", ["Radka"]),
    ("Agent: Magandang umaga, si Rowena po ito.", ["Rowena"]),
    ("Mhudumu: Habari, unaongea na Zawadi. Mteja: Asante.", ["Zawadi"]),
    ("Tổng đài: Xin chào, em là Thảo ạ.", ["Thảo"]),
    ("الموظف: مرحبا، معك سلمى، كيف أساعدك؟", ["سلمى"]),
    ("נציג: שלום, מדבר יוסי. במה אפשר לעזור?", ["יוסי"]),
])
def test_an_agent_introducing_themselves_in_other_languages_is_replaced(anon, text, values):
    replaced_and_kept(user(anon, text), values, [])


@pytest.mark.parametrize("text,values", [
    ("привет! заказ не привезли, я катя, где курьер?", ["катя"]),
    ("oi boa tarde aqui é a fernanda, comprei um sofá", ["fernanda"]),
])
def test_a_lower_case_name_after_a_foreign_introduction_is_replaced(anon, text, values):
    replaced_and_kept(user(anon, text), values, [])


@pytest.mark.parametrize("text", [
    "я хочу вернуть заказ, пожалуйста",
    "ich bin müde, danke",
    "je suis content, merci",
    "Si Madrid gana, vamos a celebrar.",
])
def test_ordinary_sentences_with_those_words_stay(anon, text):
    assert user(anon, text) == text


# ------------------------------------------------- teams, storms of other languages, journeys, brands
@pytest.mark.parametrize("text", [
    "Or Liverpool v Chelsea at Anfield the same weekend?",
    "Quero ver o Benfica contra o FC Porto no Estádio da Luz.",
    "Según la AEMET, la borrasca Laurence se queda al oeste de Galicia.",
    "Depressão Bert a afastar-se; aviso amarelo de agitação marítima.",
])
def test_teams_and_named_lows_of_other_languages_stay(anon, text):
    assert user(anon, text) == text


def test_a_court_case_between_people_is_no_match(anon):
    out = user(anon, "The case Harriet Okoro v Bellamy went to appeal.")
    assert "Okoro" not in out, out


def test_a_journeys_ends_and_a_camel_case_operator_stay_and_people_go(anon):
    obj = {"from": "Edinburgh Waverley", "to": "Glasgow Queen Street", "operator": "ScotRail",
           "contact": {"from": "Mairi Campbell", "to": "JohnSmith"}}
    out = _tool_text(anon, json.dumps(obj), ask="trains?")
    assert "Edinburgh Waverley" in out and "ScotRail" in out, out
    assert "Mairi" not in out and "JohnSmith" not in out, out


def test_places_under_name_keys_and_journeys_stay(anon):
    obj = {"roteiro": [{"nome": "Churrascaria Boi Preto", "tipo": "restaurante"}, {"nome": "Empório Santa Rita", "tipo": "loja"}],
           "trecho": {"from": "Edinburgh Waverley", "to": "York"}, "guia": {"nome": "Valdirene Souza"}}
    out = _tool_text(anon, json.dumps(obj, ensure_ascii=False), ask="roteiro?")
    assert "Churrascaria Boi Preto" in out and "Empório Santa Rita" in out and "Edinburgh Waverley" in out, out
    assert "Valdirene" not in out, out


@pytest.mark.parametrize("text,values", [
    ("Lista ospiti: Leah Welch + compagna Ludovica, arriviamo alle 20.", ["Ludovica"]),
    ("Prijateljica Tjaša Kranjc dolazi s nama u subotu.", ["Tjaša", "Kranjc"]),
])
def test_kin_and_friends_of_other_languages_without_my_announce_a_name(anon, text, values):
    replaced_and_kept(user(anon, text), values, [])


# ------------------------------------------------- a street and its house number said in words
@pytest.mark.parametrize("text,value", [
    ("Kunde: Wir wohnen jetzt in der Kölner Straße hundertzwölf, dritter Stock.", "Kölner Straße hundertzwölf"),
    ("Cliente: É na Rua das Flores... trezentos e doze, primeiro direito.", "Rua das Flores... trezentos e doze"),
    ("CALLER: it's number seven, um, Larch Tree Rise, near the school", "number seven, um, Larch Tree Rise"),
    ("Klient: poštou na Jugoslávská dvacet osm, Praha 2", "Jugoslávská dvacet osm"),
])
def test_a_street_and_its_number_said_in_words_are_replaced(anon, text, value):
    assert value not in user(anon, text)


@pytest.mark.parametrize("text", [
    "I live on Baker Street two doors down from the station.",
    "We walked down Main Street one evening last June.",
])
def test_a_street_then_a_counting_word_in_a_sentence_stays(anon, text):
    assert user(anon, text) == text


# ------------------------------------------------- ids with Greek / Cyrillic prefixes, order words
@pytest.mark.parametrize("text,value", [
    ('{"αίτηση": "ΑΙΤ-2024-3310", "κατάσταση": "ok"}', "ΑΙΤ-2024-3310"),
    ("Заявка ЗП-2024-4471 принята.", "ЗП-2024-4471"),
    ("привет! заказ 55-118 до сих пор не привезли", "55-118"),
    ("dobrý den, objednávka 4471-22 nedorazila", "4471-22"),
])
def test_ids_with_greek_or_cyrillic_prefixes_or_after_order_words_are_replaced(anon, text, value):
    assert value not in user(anon, text)


@pytest.mark.parametrize("text", ["Делаем по ГОСТ-12345, всё в порядке.", "I don 12 hats for the photo."])
def test_standards_and_english_don_stay(anon, text):
    assert user(anon, text) == text


# ------------------------------------------------- people whose family name is also a place's word
@pytest.mark.parametrize("text,values", [
    ("Please call Jerome Hall tomorrow.", ["Jerome", "Hall"]),
    ("Maria Mercado asked for a refund.", ["Maria", "Mercado"]),
    ("The parcel is for Sarah Koh in unit 4.", ["Sarah", "Koh"]),
])
def test_a_family_name_that_is_a_place_word_after_a_first_name_is_a_person(anon, text, values):
    out = user(anon, text)
    for v in values:
        assert v not in out, (v, out)


def test_a_person_under_from_whose_first_name_is_a_country_is_replaced(anon):
    out = _tool_text(anon, json.dumps({"from": "Jordan Whitfield", "to": "Israel Okafor", "subject": "refund"}),
                     ask="who wrote?")
    assert "Whitfield" not in out and "Okafor" not in out, out


def test_a_spoken_number_of_single_digits_and_groups_is_replaced_whole(anon):
    out = user(anon, "Kunde: meine Nummer ist null eins sieben eins, zwei drei vier, fünfundfünfzig, sechsundsechzig.")
    assert "fünfundfünfzig" not in out and "sechsundsechzig" not in out, out
    assert "null eins sieben eins" not in out, out
