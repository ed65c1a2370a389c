"""Issue 11, thirteenth round: the kinds red-team set 8 showed once it was read (it had been
measured unseen in the twelfth round) - tables with a header row (CSV, TSV, semicolon exports,
markdown, SQL results) and YAML documents read by their keys, names in Devanagari, Cyrillic,
Chinese and Vietnamese by their introductions and labels, addresses and postcodes after their
labels in other scripts, a display name before an e-mail anywhere, ids a few words after their
label, digits and dates spoken in a speech-to-text transcript, letters spelled out, Japanese era
birth dates, URL-encoded names, nicknames in quotes - each tested in sentences written here, never
the red-team values, with the sentences that must stay.

Real presidio + the spaCy package model; one analyzer for the module.
"""
from __future__ import annotations

import re

import pytest

from pipeline.anonymize import Anonymizer, build_analyzer
from pipeline.anonymize.structured_text import fixed_width_rows, html_fields, html_table_rows, table_rows, yaml_document
from tests.anon_helpers import assert_gone, one, present, tool, user


@pytest.fixture(scope="module")
def anon():
    return Anonymizer(secret="round13", analyzer=build_analyzer())


# ------------------------------------------------------------------------------------ tables
def test_table_rows_reads_csv_markdown_and_psql():
    text = ("Export:\n\nemp;achternaam;voorl;BSN;geb_datum\n"
            "7781;Verhoeven;Sanne;;1988-02-14\n7790;de Wit;Joris;123456782;1979-10-01\n\n"
            "| Rol | Naam | Geb. |\n|---|---|---|\n| VN | Ilse Mertens | 04.11.1980 |\n\n"
            " id | email           | full_name   | phone\n----+-----------------+-------------+------\n"
            " 12 | pia@example.org | Pia Lindgren |\n(1 row)")
    rows = list(table_rows(text))
    assert rows[0] == {"emp": "7781", "achternaam": "Verhoeven", "voorl": "Sanne", "geb_datum": "1988-02-14"}
    assert rows[1]["BSN"] == "123456782"
    assert rows[2] == {"Rol": "VN", "Naam": "Ilse Mertens", "Geb.": "04.11.1980"}
    # a psql row ends in an empty cell (no frame): still as many cells as the header
    assert rows[3] == {"id": "12", "email": "pia@example.org", "full_name": "Pia Lindgren"}
    # prose with commas is no table
    assert list(table_rows("Hello, I would like to, well, change it.\nThanks, bye, see you")) == []


@pytest.mark.parametrize("text,values", [
    # a semicolon payroll export: a national id, a birth date and names under abbreviated headers
    ("Loonrun maart:\n\npersnr;nm;voornaam;BSN;IBAN;gebdat\n"
     "220145;Kuijpers;Noor;111222333;NL91ABNA0417164300;1990-07-12\n"
     "220146;Brouwer;Sem;123456782;NL20INGB0001234567;1984-01-30\n",
     ["Kuijpers", "Noor", "Brouwer", "111222333", "123456782", "1990-07-12", "1984-01-30"]),
    # a TSV pasted from a spreadsheet: Colombian ids with dots, plural name headers, guardians
    ("Pendientes:\n\ntipo_doc\tnum_doc\tapellidos\tnombres\tcorreo\tcel\tacudiente\n"
     "CC\t1.032.448.120\tMolina Pardo\tLaura Sofía\tlau.molina@gmail.com\t315 220 4471\tOscar Molina\n",
     ["1.032.448.120", "Molina Pardo", "Laura Sofía", "lau.molina@gmail.com", "315 220 4471", "Oscar Molina"]),
    # a markdown table of a family's policy: names, birth dates and AHV numbers
    ("Offerte bitte:\n\n| Person | Name | Geb. | AHV-Nr. |\n|---|---|---|---|\n"
     "| VN | Beat Zimmermann | 12.03.1975 | 756.3047.5009.62 |\n| Kind | Lea Zimmermann | 01.09.2014 | 756.9217.0769.85 |\n",
     ["Beat Zimmermann", "12.03.1975", "756.3047.5009.62", "Lea", "01.09.2014"]),
    # a UK gift-aid CSV: initials, a house name, a postcode in lower case
    ("Failing rows:\n\nTitle,First name or initial,Last name,House name or number,Postcode,Amount\n"
     "Mrs,Imogen,Fairweather-Lowe,Ivy Cottage,GL7 1AB,20.00\nDr,Tobias,Ellery,12,b15 2tt,50.00\n",
     ["Imogen", "Fairweather-Lowe", "Ivy Cottage", "GL7 1AB", "Ellery", "b15 2tt"]),
    # a SQL result with a handle in the e-mail column
    ("from the replica:\n\n id | email | full_name | last_login_ip\n----+-------+-----------+--------------\n"
     " 501 | mira.k@posteo.de | Mira Kovač | 81.12.44.9\n 502 | mkovac.art | M. Kovač | 81.12.44.10\n",
     ["mira.k@posteo.de", "Mira Kovač", "mkovac.art", "81.12.44.9"]),
])
def test_tables_with_a_header_are_read_by_their_columns(anon, text, values):
    assert_gone(user(anon, text), values)


def test_a_table_of_business_facts_stays(anon):
    text = ("Stock check:\n\nsku;product;warehouse;qty;price\n"
            "HX-220;Daikin Altherma 3;Utrecht;14;4999.00\nHX-221;Vaillant aroTHERM plus;Eindhoven;3;6150.00\n")
    assert user(anon, text) == text


# -------------------------------------------------------------------------------------- YAML
def test_yaml_document_reads_nested_mappings():
    doc = yaml_document("case: C-1\napplicants:\n  - given: Hana\n    family: Mori\n    mob: \"0412 000 111\"\n")
    assert doc == {"case": "C-1", "applicants": [{"given": "Hana", "family": "Mori", "mob": "0412 000 111"}]}
    # a transcript of "Speaker: text" lines is no document
    assert yaml_document("Agent: hello\nCustomer: hi there\nAgent: your name?\nCustomer: Hana Mori") is None


def test_a_yaml_tool_result_is_read_by_its_keys(anon):
    out = one(anon, [
        {"role": "user", "content": "status of application A-77?"},
        {"role": "tool", "tool_call_id": "c1", "content":
            "application: A-77\nunit: 4/19 Ocean St\napplicants:\n  - given: Marigold\n    family: Penhaligon\n"
            "    dob: 03/02/1993\n    mob: \"0433 812 904\"\nrefund:\n  bsb: \"062-000\"\n  acct: \"1023 4455\"\n"},
    ]).messages[1]["content"]
    assert_gone(out, ["Marigold", "Penhaligon", "03/02/1993", "0433 812 904", "062-000"])
    assert out.startswith("application: A-77")


# ------------------------------------------------------------------- names in other scripts
@pytest.mark.parametrize("text,values", [
    ("नमस्ते, मेरा नाम कविता वर्मा है और मेरी पेंशन नहीं आई।", ["कविता वर्मा", "कविता"]),
    ("पिताजी श्री हरिनारायण प्रसाद मिश्रा की पेंशन रुकी है।", ["हरिनारायण"]),
    ("Добър ден, аз съм Стефан Иванов Петков и искам да сменя тарифата.", ["Стефан Иванов Петков", "Петков"]),
    ("Мене звати Оксана Мельник, у мене проблема з рахунком.", ["Оксана Мельник"]),
    ("您好，收件人李静怡，电话 139 0011 2233，请尽快派送。", ["李静怡", "139 0011 2233"]),
    ("[10:14] shipper: toi la Phạm Minh Tuấn, dang o cong", ["Phạm Minh Tuấn"]),
    ("Tài xế Nguyễn Văn Hùng đã nhận đơn.", ["Nguyễn Văn Hùng"]),
    ("Ο ασθενής παραπέμπεται στον Δρ. Νικόλαο Σταματίου για υπέρηχο.", ["Νικόλαο Σταματίου"]),
    # a display name before an e-mail anywhere (a git log, a forwarded list)
    ("3f2a9c1 Annika Solberg-Hval <asolberg@corp.example.no> Tue Feb 3 09:12:01 2026", ["Annika Solberg-Hval"]),
    # titles: Czech academic, Portuguese "Seu" / "Dona", French "c'est"
    ("Smlouvu zkontroluje MUDr. Kratochvílová zítra.", ["Kratochvílová"]),
    ("A encomenda fica com a portaria, o Seu Anselmo recebe.", ["Anselmo"]),
    ("Bonjour, c'est Marie-Hélène Bouchard-Roy, je rappelle pour la facture.", ["Marie-Hélène", "Bouchard-Roy"]),
])
def test_names_by_introductions_titles_and_labels_in_other_scripts(anon, text, values):
    assert_gone(user(anon, text), values)


@pytest.mark.parametrize("text", [
    "Nhà hàng nằm trên đường Nguyễn Huệ, gần chợ Bến Thành.",  # a street named after a person: two words
    "Тарифа Стандарт 2026 е активна от 1 януари.",
    "收件地址请填写完整。",
])
def test_sentences_without_people_stay(anon, text):
    assert user(anon, text) == text


# ----------------------------------------------------------------- addresses and postcodes
@pytest.mark.parametrize("text,values", [
    ("收货地址：浙江省杭州市西湖区文三路 90 号 东部软件园 2 号楼 501 室，邮编 310012。", ["文三路 90 号", "310012"]),
    ("पता: फ्लैट नं. 12, सेक्टर 4, द्वारका, नई दिल्ली 110075। धन्यवाद", ["सेक्टर 4", "110075"]),
    ("Адрес: ж.к. Люлин 5, бл. 512, вх. В, ап. 44, 1336 София. Благодаря!", ["Люлин 5", "1336 София"]),
    ("地址: 香港島灣仔軒尼詩道 302 號 8 樓", ["軒尼詩道 302 號"]),
])
def test_addresses_after_their_labels_in_other_scripts(anon, text, values):
    out = user(anon, text)
    assert_gone(out, values)


# --------------------------------------------------------------------------- labelled ids
@pytest.mark.parametrize("text,values", [
    ("my BVN in case you need it is 22450918376 thanks", ["22450918376"]),
    ("(het bsn stuurde ik gisteren al: 111222333)", ["111222333"]),
    ("Tenant: Dr. Kai Lorenz, passport DE C7KX2M4P1, phone on file.", ["C7KX2M4P1"]),
    ("TIN 402-118-377-000 and SSS 33-4412098-5 for the refund", ["402-118-377-000", "33-4412098-5"]),
    ("Candidat : CIN AB778120, né à Rabat.", ["AB778120"]),
    ("HKID Y482913(5), mobile 6123 4567", ["Y482913"]),
    ("Rentenversicherung, Vers.-Nr. 65 170839 F 023, bitte prüfen", ["65 170839 F 023"]),
    ("Sort code 40-11-62, account 31926819 (Mrs E Pryce)", ["40-11-62"]),
])
def test_ids_after_their_labels_with_words_between(anon, text, values):
    assert_gone(user(anon, text), values)


def test_a_date_after_an_id_label_stays(anon):
    text = "Your reservation was created on 2024-05-01, so it can still be changed."
    assert "2024-05-01" in user(anon, text)


# ----------------------------------------------------------------- speech-to-text transcripts
def test_spoken_digits_dates_and_spelled_letters(anon):
    text = ("agent may i have your mobile\ncaller seven eight two two zero one four four nine six\n"
            "agent and the date of birth\ncaller twenty-first march nineteen eighty four\n"
            "agent could you spell the surname please\ncaller o k a f o r\n"
            "caller and my pan is a b c p k one two three four z")
    out = user(anon, text)
    assert_gone(out, ["seven eight two two zero one four four nine six", "twenty-first march nineteen eighty four",
                      "o k a f o r", "one two three four"])
    # the fake number is spoken too, digit by digit
    line = out.split("\n")[1]
    assert re.fullmatch(r"caller(?: (?:zero|one|two|three|four|five|six|seven|eight|nine)){10}", line), line


def test_spoken_spanish_digits_and_birth_date(anon):
    out = user(anon, "Ciudadano: nueve dos cero cuatro uno uno siete tres. Nací el catorce de mayo del ochenta y dos.")
    assert_gone(out, ["nueve dos cero cuatro uno uno siete tres", "catorce de mayo del ochenta y dos"])


def test_counting_words_stay(anon):
    text = "I have one or two questions about the three plans, and four of my friends too."
    assert user(anon, text) == text


def test_letters_spaced_out_of_a_known_name(anon):
    out = user(anon, "My name is Devika Raman, surname raman r a m a n.")
    assert_gone(out, ["Devika", "Raman", "r a m a n"], ignore_case=True)


def test_nato_spelled_name(anon):
    out = user(anon, 'caller spelled the surname "Kilo Oscar Victor Alpha Charlie" = KOVAC for the booking')
    assert_gone(out, ["Kilo Oscar Victor Alpha Charlie", "KOVAC"])


# --------------------------------------------------------------------------------- birth dates
@pytest.mark.parametrize("text,values", [
    ("生年月日：平成3年11月20日", ["平成3年11月20日"]),
    ("本人確認書類の生年月日 昭和52年4月1日 を確認しました。", ["昭和52年4月1日"]),
    ("Mijn dochter: Fleur, °03/05/2016, zit in groep 4.", ["03/05/2016"]),
])
def test_birth_dates_of_japanese_eras_and_after_the_born_sign(anon, text, values):
    assert_gone(user(anon, text), values)


# ----------------------------------------------------------------------- keys and encodings
def test_keys_of_transliterated_names_and_identity_numbers(anon):
    out = tool(anon, {"booker": {"name": "최유진", "name_en": "CHOI YUJIN", "phone": "010-2231-4410"},
                      "transfer_to": {"name": "한지우", "phone": "010-7781-2290"},
                      "buyer": {"姓名": "周梓涵", "拼音": "ZHOU ZIHAN"},
                      "guest": {"fn": "Omar", "ln": "Haddad", "eid": "784-1990-1234567-1"},
                      "spouse": {"name": "Rosa Quispe", "itin": "912804417"},
                      "nov_titular": {"ime": "Десислава Николова", "egn": "8801014453"},
                      "customer": {"nric_masked": "S****482J"},
                      "vehiculo": {"bastidor": "WVWZZZ1KZAW000123"}})
    assert_gone(out, ["최유진", "CHOI YUJIN", "한지우", "周梓涵", "ZHOU ZIHAN", "784-1990-1234567-1", "912804417",
                      "Десислава Николова", "S****482J", "WVWZZZ1KZAW000123"])


def test_url_encoded_name_and_quoted_nickname(anon):
    out = one(anon, [
        {"role": "user", "content": "webhook: POST https://hooks.example.io/ipn?name=Sean%20O%27Leary&zip=60614"},
        {"role": "tool", "tool_call_id": "c1", "content":
            '{"billing": {"name": "Seán \\u201cJack\\u201d O\'Leary", "email": "sean.oleary@fastmail.com"}}'},
        {"role": "assistant", "content": "The server fails on O%27Leary; first name Margarita (\"Rita\") Alvarez too."},
    ])
    text = "\n".join(m["content"] for m in out.messages)
    assert_gone(text, ["Sean%20O%27Leary", "O%27Leary", "O'Leary"])


def test_quoted_nickname_in_brackets_after_a_known_name(anon):
    out = user(anon, 'My name is Lourdes Villanueva ("Lulu" to friends: Lourdes Villanueva ("Lulu"))')
    assert not present(out, "Lulu"), out


# ------------------------------------------------------------------------------------ accents
def test_a_name_with_and_without_its_accents(anon):
    out = one(anon, [
        {"role": "user", "content": "Dobrý den, jsem Radovan Dvořák, file smlouva_Dvorak_Radovan.pdf"},
        {"role": "assistant", "content": "Thanks Mr Dvorak; Radovan, we will call."},
        {"role": "user", "content": "ok, I attached kar_bejelento_Szabo_Erzsebet.pdf; a kárbejelentő: Szabó Erzsébet"},
    ])
    text = "\n".join(m["content"] for m in out.messages)
    assert_gone(text, ["Dvořák", "Dvorak", "Radovan", "Szabó", "Erzsébet", "Szabo", "Erzsebet"])
    assert "smlouva_" in text and "kar_bejelento_" in text  # the document words of the file names stay


# --------------------------------------------------------------------------- places (GeoNames)
@pytest.mark.parametrize("text", [
    "The fastest train leaves at 10:00 and arrives at Edinburgh Waverley at 14:20.",
    "We meet at Manchester Arndale by the tram stop, then walk to Deansgate.",
])
def test_places_of_geonames_cities_stay(anon, text):
    assert user(anon, text) == text


def test_a_person_beside_a_city_word_is_still_a_person(anon):
    out = user(anon, "Please call me back, my name is Paris Whitlock and I live in Leeds.")
    assert_gone(out, ["Paris Whitlock", "Whitlock"])
    assert "Leeds" in out


# ------------------------------------------------------------------------ labelled postcodes
@pytest.mark.parametrize("text,values", [
    ("ok my postcode is SW1A 1AA and the flat is upstairs", ["SW1A 1AA"]),
    ("Neue Adresse, PLZ: 80331, bitte ändern", ["80331"]),
    ("kod pocztowy 00-950, dziękuję", ["00-950"]),
    ("Postcode: m1 4bt (lower case in the form)", ["m1 4bt"]),
    ("PSČ 110 00, Praha", ["110 00"]),
])
def test_postcodes_after_their_labels(anon, text, values):
    assert_gone(user(anon, text), values)


@pytest.mark.parametrize("text", [
    "Compress the logs with zip -9 before you upload them.",
    "Our postcode checker covers 98% of addresses.",
])
def test_no_postcode_after_a_label_stays(anon, text):
    assert user(anon, text) == text


# ---------------------------------------------------------------------- fixed-width reports
def test_fixed_width_rows_by_header_columns():
    text = ("MEMBER_ID  TITLE NAME_LAST        NAME_FIRST   TOWN\n"
            "GB4471203  MS    HARGREAVES       PENELOPE     Whitby\n"
            "GB4471288  DR    OYELARAN         TOBI         Leeds\n")
    rows = list(fixed_width_rows(text))
    assert rows[0] == {"MEMBER_ID": "GB4471203", "TITLE": "MS", "NAME_LAST": "HARGREAVES",
                       "NAME_FIRST": "PENELOPE", "TOWN": "Whitby"}
    assert len(rows) == 2
    # prose with double blanks is no report
    assert list(fixed_width_rows("Thanks  for the call today\nWe will  send the form soon ok")) == []


def test_a_fixed_width_report_is_read_by_its_columns(anon):
    out = one(anon, [
        {"role": "user", "content": "find Mrs Hargreaves please"},
        {"role": "tool", "tool_call_id": "c1", "content":
            "SUPP_ID   TITLE SURNAME          FORENAME      ADDRESS1                  POSTCODE  DD_AMT\n"
            "WHT550120 MRS   HARGREAVES       PENELOPE      Ivy House, 2 Kiln Lane    YO21 3DT  12.00\n"
            "WHT550187 MR    OYELARAN         TOBI          14 Headingley Rise        LS6 2AB   5.00"},
    ]).messages[1]["content"]
    assert_gone(out, ["WHT550120", "HARGREAVES", "PENELOPE", "OYELARAN", "TOBI", "Ivy House, 2 Kiln Lane", "YO21 3DT",
                      "14 Headingley Rise", "LS6 2AB"])
    assert out.startswith("SUPP_ID   TITLE SURNAME")


# ------------------------------------------------------------------------------------- HTML
def test_html_fields_and_tables_are_read():
    form = ('<form><input type="text" name="first_name" value="Ottilie"><input name=\'phone\' value=\'0161 496 0725\'>'
            '<dl><dt>Date of birth</dt><dd><b>14/02/1987</b></dd></dl></form>')
    assert list(html_fields(form)) == [("first_name", "Ottilie"), ("phone", "0161 496 0725"),
                                       ("Date of birth", "14/02/1987")]
    table = ("<table><tr><th>Member</th><th>Email</th></tr><tr><td>Ottilie Brandt</td>"
             "<td>o.brandt@example.net</td></tr></table><table><tr><th>Phone</th><td>0161 496 0725</td></tr></table>")
    assert list(html_table_rows(table)) == [{"Member": "Ottilie Brandt", "Email": "o.brandt@example.net"},
                                            {"Phone": "0161 496 0725"}]


def test_an_html_form_and_table_pasted_in_a_ticket(anon):
    text = ('Customer pasted the form:\n<form><input name="surname" value="Brandtmeier"><input name="dob" '
            'value="1987-02-14"><input name="postcode" value="M14 5TQ"></form>\n<table><tr><th>Name</th>'
            '<th>Mobile</th><th>Plan</th></tr><tr><td>Ottilie Brandtmeier</td><td>07700 900 461</td><td>Gold</td></tr>'
            '</table>')
    out = user(anon, text)
    assert_gone(out, ["Brandtmeier", "1987-02-14", "M14 5TQ", "Ottilie", "07700 900 461"])
    assert "<td>Gold</td>" in out


def test_a_german_form_and_table_in_html(anon):
    text = ('Formular:\n<input name="nachname" value="Tjadenhorst"><input name="geburtsdatum" value="14.02.87">\n'
            '<table><tr><th>Kundennr</th><th>Vorname</th><th>Ort</th></tr><tr><td>KD-88120</td><td>Wiebke</td>'
            '<td>Oldenburg</td></tr></table>')
    out = user(anon, text)
    assert_gone(out, ["Tjadenhorst", "14.02.87", "KD-88120", "Wiebke"])
    assert "<td>Oldenburg</td>" in out  # a town alone stays


# -------------------------------------------------------------------------------- precision
def test_conditions_named_after_people_and_drug_brands_stay(anon):
    text = ("My GP mentioned Hashimoto's and Addison's; is Parkinson's related? "
            "They suggested Humira (adalimumab) or Stelara.")
    assert user(anon, text) == text


def test_a_person_with_an_eponymous_name_is_still_a_person(anon):
    out = user(anon, "Please check Mr Addison's refund, his email is j.addison@example.org")
    assert not present(out, "Addison"), out


# ------------------------------------------------------------------------------------ handles
@pytest.mark.parametrize("text,values", [
    ("add me on snap: mira_k22, thanks", ["mira_k22"]),
    ("Reported for spam; alt account nightowl2009 as well", ["nightowl2009"]),
    ('Player "FrostyLynx77" (ID 5512093) was banned; his friend MoonPie_88 too', ["FrostyLynx77", "MoonPie_88"]),
    ("Forum post by u/throwaway_4471 about the refund", ["throwaway_4471"]),
    ("Xbox gamertag: Gr8Gabe 42, reviewed by kdvorak-dev", ["Gr8Gabe", "kdvorak-dev"]),
])
def test_handles_after_player_friend_and_network_words(anon, text, values):
    assert_gone(user(anon, text), values)


@pytest.mark.parametrize("text", [
    "My friend will call back tomorrow about the player settings.",
    "The Xbox gamertag field is empty in the form.",
])
def test_sentences_with_handle_words_stay(anon, text):
    assert user(anon, text) == text


# ---------------------------------------------------------------------------------- addresses
@pytest.mark.parametrize("text,values", [
    ("my home is Flat 7C, Tower 3, Sobha Dewflower, Whitefield, Bengaluru 560066", ["Flat 7C", "Sobha Dewflower"]),
    ("condo 88/12 Moo 4, Sukhumvit Rd, Bangkok 10110", ["88/12 Moo 4", "Sukhumvit Rd"]),
    ("moved to 3 Chome-14-2 Ebisu, Shibuya-ku, Tokyo 150-0013", ["Chome-14-2 Ebisu", "150-0013"]),
])
def test_flats_towers_moo_and_chome_addresses(anon, text, values):
    assert_gone(user(anon, text), values)


def test_a_phone_fragment_is_no_japanese_postcode(anon):
    text = "Our Tokyo office hours are 9-17; the line 555-0199 is for the US desk."
    assert "Tokyo" in user(anon, text)


def test_companies_in_a_customer_column_and_products_of_other_languages_stay(anon):
    text = ("Ritten morgen:\n\nRIT     VERTREK  KLANT                 PALLETS\n"
            "R-7712  05:30    Tata Steel            22\nR-7713  06:15    Jumbo Groep DC        18\n\n"
            "| SKU | Prodotto | Giacenza |\n|---|---|---|\n| 034012 | Bepanthenol Pasta Lenitiva | 4 |\n")
    assert user(anon, text) == text


# ------------------------------------------------------------- the fresh-clone check's kinds
def test_fresh_clone_kinds_spoken_postcode_twitch_key_and_tax_code(anon):
    out = one(anon, [
        {"role": "user", "content": "caller yeah the post code is m k nine four d w and that's it\n"
                                    "Il mio codice fiscale, quello aggiornato, è FRRGLI92C45F205X"},
        {"role": "tool", "tool_call_id": "c1", "content": '{"linked": true, "twitch": "zoe_rk_plays"}'},
    ])
    text = "\n".join(m["content"] for m in out.messages)
    assert_gone(text, ["m k nine four d w", "FRRGLI92C45F205X", "zoe_rk_plays"])


# ------------------------------------------------------------------- Cyrillic names and patronymics
@pytest.mark.parametrize("text,values", [
    ("Гость: Соколова Ирина Павловна, паспорт 4510 123456", ["Соколова", "Ирина", "Павловна"]),
    ("Здравствуйте, Ирина Павловна! Ваш номер готов.", ["Ирина Павловна"]),
    ("Клиент Громов Денис Олегович просит вернуть деньги", ["Громов Денис Олегович"]),
    ("Шановний Тарасе Бондаренко, ваше замовлення готове.", ["Бондаренко"]),
])
def test_cyrillic_names_with_patronymics_and_salutations(anon, text, values):
    assert_gone(user(anon, text), values)


@pytest.mark.parametrize("text", [
    "Отель находится на Московском проспекте, рядом с метро Парк Победы.",
    "Добрый день! Тариф Стандарт действует до конца месяца.",
])
def test_cyrillic_sentences_without_people_stay(anon, text):
    assert user(anon, text) == text


# ----------------------------------------------------------------- chat exports and labels
def test_chat_nicks_quoted_surname_first_senders_and_names_in_capitals(anon):
    out = user(anon, '[10:02] <kwheelerx> can you reset the MFA?\nFrom: "Okafor, Chidinma" <c.okafor@corp-example.com>\n'
                     "Cardholder: JANE A DOEWORTH, exp 09/27")
    assert_gone(out, ["kwheelerx", "Okafor", "Chidinma", "JANE", "DOEWORTH"])


@pytest.mark.parametrize("text", [
    "Contact: IT SUPPORT for the VPN, @channel please read the notice.",
    "Owner: N/A (the asset is in storage)",
])
def test_labels_before_vocabulary_in_capitals_stay(anon, text):
    assert user(anon, text) == text


@pytest.mark.parametrize("text,values", [
    ("RRN 900101-1234567 for the ticket", ["900101-1234567"]),
    ("teudat zehut 123456782", ["123456782"]),
    ("code meli 0013542419 lotfan", ["0013542419"]),
    ("身份证号码 110101199003074514，谢谢", ["110101199003074514"]),
])
def test_national_numbers_after_their_labels(anon, text, values):
    assert_gone(user(anon, text), values)
