"""Issue 11, sixteenth round: the kinds red-team set 14 showed once it was read (it was measured
unseen three times in the fifteenth round). Each is tested in sentences and records written here,
never the red-team values.

Real presidio + the spaCy package model; one analyzer for the module.
"""
from __future__ import annotations

import json
import re

import pytest

from pipeline.anonymize import Anonymizer, build_analyzer
from pipeline.anonymize.config import default_config, normalize_key
from pipeline.anonymize.structured_text import x12_values
from tests.anon_helpers import assert_gone, one, present, replaced_and_kept, tool, user


@pytest.fixture(scope="module")
def anon():
    return Anonymizer(secret="round16", analyzer=build_analyzer())


# ------------------------------------------------------- keys: abbreviations, kin, scripts, messengers
@pytest.mark.parametrize("key,entity", [
    ("gvn", "FIRST_NAME"), ("fam", "LAST_NAME"), ("sloinne", "LAST_NAME"), ("sin", "SSN"),
    ("psid", "USER_ID"), ("hndl", "USER_ID"), ("ani", "PHONE_NUMBER"), ("sms", "PHONE_NUMBER"),
    ("viber_uid", "USER_ID"), ("line_uid", "USER_ID"), ("abha_no", "ACCOUNT_ID"), ("claim_icn", "ACCOUNT_ID"),
    ("保険者番号", "ACCOUNT_ID"), ("運転免許証番号", "ACCOUNT_ID"), ("注文番号", "ACCOUNT_ID"),
    ("회원번호", "ACCOUNT_ID"), ("電話番号", "PHONE_NUMBER"), ("郵便番号", "ZIP"),
])
def test_keys_of_this_round_name_their_entity(key, entity):
    assert default_config().key_entity(normalize_key(key))[0] == entity


def test_a_name_objects_kin_parts_are_people(anon):
    out = tool(anon, {"candidate": {"id": "EX-C-11873", "name": {"given": "Meseret", "father": "Alemayehu",
                                                                  "grandfather": "Wondimagegn"}}})
    assert_gone(out, ["Meseret", "Alemayehu", "Wondimagegn"])


@pytest.mark.parametrize("obj,values", [
    ({"payout": {"hndl": "kofi_builds", "legal": {"gvn": "Kofi", "fam": "Asante-Mensah"}}},
     ["kofi_builds", "Kofi", "Asante-Mensah"]),
    ({"applicant": "Renée Fortin-Nakamura", "sin": "046454286", "consent": True}, ["046454286"]),
    ({"保険証": {"保険者番号": "31130419", "記号・番号": "5520・8813"}}, ["31130419", "5520・8813"]),
])
def test_values_under_this_rounds_keys_are_replaced(anon, obj, values):
    assert_gone(tool(anon, obj, with_user=False), values)


def test_metadata_ids_of_messengers_and_callers_are_replaced(anon):
    from pipeline.records import LogRecord

    (out,) = anon.anonymize([LogRecord(id="m", messages=[{"role": "user", "content": "hello"}],
                                       metadata={"channel": "viber", "viber_uid": "vb_5521904417",
                                                 "psid": "6614083329175", "ani": "4915229310477"})])
    meta = json.dumps(out.metadata)
    assert_gone(meta, ["vb_5521904417", "6614083329175", "4915229310477"])
    assert "viber" in meta


# ------------------------------------------------------- e-mail addresses with letters beyond ASCII
@pytest.mark.parametrize("text,address", [
    ("Betroffen: `björn.größer@kuehltransport.example` seit gestern.", "björn.größer@kuehltransport.example"),
    ("Escriba a begoña.ibáñez@correo.example por favor", "begoña.ibáñez@correo.example"),
    ("пишите на светлана@почта.рф", "светлана@почта.рф"),
    ("Kontakt: zoë.ødegård@fjord.example.", "zoë.ødegård@fjord.example"),
])
def test_an_email_address_with_letters_beyond_ascii_is_replaced(anon, text, address):
    out = user(anon, text)
    assert address not in out, out
    assert "@" in out


def test_an_email_glued_to_chinese_text_keeps_the_text():
    from pipeline.anonymize.engine import EMAIL_RE

    assert [m.group("v") for m in EMAIL_RE.finditer("请发邮件到liwei88@qq.example谢谢")] == ["liwei88@qq.example"]


# ------------------------------------------------------- ASC X12 claim segments
X12_CLAIM = ("ST*837*0001*005010X222A1~\nNM1*IL*1*OKONKWO*ADAEZE*N***MI*QWP771203945~\nN3*1187 W ARMITAGE AVE APT 2R~\n"
             "N4*CHICAGO*IL*60614~\nDMG*D8*19790214*F~\nREF*SY*321-54-9876~\nNM1*QC*1*OKONKWO*CHIDERA~\n"
             "DMG*D8*20120930*F~\nNM1*85*2*NORTHSIDE FAMILY CLINIC*****XX*1093817264~\nN3*400 N MICHIGAN AVE~\n"
             "N4*CHICAGO*IL*60611~\nCLM*PA7731094*240.00***11:B:1~\nREF*EA*CHART0098812~\nSE*14*0001~")


def test_x12_segments_give_a_persons_fields_not_an_organizations():
    got = {(v, e) for v, e, _src in x12_values(X12_CLAIM)}
    for pair in [("OKONKWO", "LAST_NAME"), ("ADAEZE", "FIRST_NAME"), ("CHIDERA", "FIRST_NAME"),
                 ("QWP771203945", "ACCOUNT_ID"), ("1187 W ARMITAGE AVE APT 2R", "STREET_ADDRESS"),
                 ("60614", "ZIP"), ("19790214", "DATE_OF_BIRTH"), ("20120930", "DATE_OF_BIRTH"),
                 ("321-54-9876", "SSN"), ("PA7731094", "ACCOUNT_ID"), ("CHART0098812", "ACCOUNT_ID")]:
        assert pair in got, pair
    values = {v for v, _e in got}
    # the clinic's (an organization's, NM102 "2") name, address and postcode are no person's
    assert not values & {"NORTHSIDE FAMILY CLINIC", "400 N MICHIGAN AVE", "60611"}
    assert not list(x12_values("no segments here * only a star"))


def test_an_x12_claim_in_a_tool_result_is_anonymized(anon):
    out = one(anon, [{"role": "user", "content": "Why was this pended?"},
                     {"role": "tool", "tool_call_id": "c1", "content": X12_CLAIM}]).messages[1]["content"]
    replaced_and_kept(out, ["OKONKWO", "ADAEZE", "CHIDERA", "QWP771203945", "1187 W ARMITAGE AVE APT 2R",
                            "60614", "19790214", "20120930", "321-54-9876", "PA7731094", "CHART0098812"],
                      ["NM1*IL*1*", "N4*CHICAGO*IL*", "DMG*D8*", "NORTHSIDE FAMILY CLINIC", "005010X222A1"])


# ------------------------------------------------------- a point's coordinates
@pytest.mark.parametrize("text,point", [
    ('trip,start_gps,end_gps\nRT-88120,"51.5033,-0.1196","51.5079,-0.0877"', "51.5033,-0.1196"),
    ('{"privacy_zone": {"center": "-33.8731, 151.2065", "radius_m": 400}}', "-33.8731, 151.2065"),
    ("Rider pinned 59.32932,18.06858 as home.", "59.32932,18.06858"),
])
def test_a_points_coordinates_are_replaced_by_another_point(anon, text, point):
    out = one(anon, [{"role": "user", "content": "my trips"},
                     {"role": "tool", "tool_call_id": "c1", "content": text}]).messages[1]["content"]
    assert point not in out, out
    lat_dec = len(point.split(",")[0].split(".")[1])
    fakes = re.findall(r"-?\d{1,2}\.\d{%d},\s?-?\d{1,3}\.\d+" % lat_dec, out)
    assert fakes, out
    lat, lon = (float(x) for x in fakes[0].split(","))
    assert abs(lat) <= 90 and abs(lon) <= 180


@pytest.mark.parametrize("text", [
    "Totals: 1234.50,99.10 EUR",  # amounts with two decimals
    "rates 123.4567,200.1234",  # out of range for a latitude
    "version 10.2031,11.4401.7",
])
def test_numbers_that_are_no_point_stay(anon, text):
    out = user(anon, text)
    for num in re.findall(r"\d+\.\d+", text)[:2]:
        assert present(out, num), out


# ------------------------------------------------------- names after introductions of more scripts
@pytest.mark.parametrize("text,names,kept", [
    ("నమస్కారం, నా పేరు సురేఖ రామిరెడ్డి. నిన్న order చేశాను", ["సురేఖ", "రామిరెడ్డి"], ["నమస్కారం", "నిన్న"]),
    ("ආයුබෝවන්, මගේ නම කමල් ජයසූරිය. NIC අංකය", ["කමල්", "ජයසූරිය"], ["ආයුබෝවන්", "NIC"]),
    ("Καλησπέρα, ο Νίκος είμαι από το κατάστημα", ["Νίκος"], ["Καλησπέρα", "είμαι", "κατάστημα"]),
    ("Γεια σας, με λένε Ελένη Παππά.", ["Ελένη", "Παππά"], ["Γεια σας"]),
    ("我老婆很忙。他叫王建国，电话是这个。", ["王建国"], ["我老婆很忙", "电话是这个"]),
    ("სახელი: თამარი\nგვარი: კაპანაძე\nპირადი ნომერი", ["თამარი", "კაპანაძე"], ["სახელი", "გვარი", "პირადი"]),
    ("Բաժանորդ՝ Գայանե Մկրտչյան, համար 12", ["Գայանե", "Մկրտչյան"], ["Բաժանորդ", "համար"]),
])
def test_a_name_after_an_introduction_of_another_script_is_replaced(anon, text, names, kept):
    replaced_and_kept(user(anon, text), names, kept)


@pytest.mark.parametrize("text", [
    "Καλησπέρα, είμαι από την Αθήνα και θέλω βοήθεια.",  # "I am from Athens": no name after "είμαι"
    "他是我们的老客户，请优先处理。",  # "he is our old customer": no family name after 他是
])
def test_an_introductions_words_without_a_name_stay(anon, text):
    assert user(anon, text) == text


# ------------------------------------------------------- identity documents after their labels
@pytest.mark.parametrize("text,value,label", [
    ("Pasaport: P22817365", "P22817365", "Pasaport"),
    ("여권번호: K73920155 입니다", "K73920155", "여권번호"),
    ("Документ: ID-картка 007318924, дата видачі", "007318924", "ID-картка"),
    ("เลขประจำตัวประชาชน: 3-2201-00981-44-7 | โทร", "3-2201-00981-44-7", "เลขประจำตัวประชาชน"),
    ("Nº de utente do SNS 551029384.", "551029384", "utente"),
    ("ABHA 14-2231-8890-1177 on file", "14-2231-8890-1177", "ABHA"),
])
def test_an_identity_document_after_its_label_is_replaced(anon, text, value, label):
    replaced_and_kept(user(anon, text), [value], [label])


# ------------------------------------------------------- streets, units and postcodes of more countries
@pytest.mark.parametrize("text,values,kept", [
    ("Zmieniono adres korespondencyjny na Lipową 12 m. 4, 02-133 Warszawa.", ["Lipową 12 m. 4", "02-133"], ["Warszawa"]),
    ("Proszę dostarczyć przy Ogrodowej 14/3 w Łodzi", ["Ogrodowej 14/3"], ["Proszę", "Łodzi"]),
    ('remark="customer not available, Flat 1102 Sai Krupa CHS locked"', ["1102 Sai Krupa"], ["remark", "locked"]),
    ('remark="Plot 44 Sector 21 not found"', ["Plot 44 Sector 21"], ["remark", "not found"]),
    ("address House 9-C, Block 6-A, Gulberg III. Phone later", ["House 9-C, Block 6-A"], ["address", "Phone"]),
    ('"pickup": "٢٧ شارع الثورة، مصر الجديدة"', ["٢٧ شارع الثورة"], ["pickup", "مصر الجديدة"]),
    ('"rotulo": "casa – R. Itapeva, 412"', ["Itapeva, 412"], ["rotulo", "casa"]),
    # (the key was "aadress" until the twenty-third round made it an address key, which replaces the
    # whole value, the town too; a key the config does not know keeps testing the street's shape)
    ('"elukoht": "Pärnu mnt 31b-6, 10119 Tallinn"', ["Pärnu mnt 31b-6", "10119"], ["Tallinn"]),
    ('{"ship_to": "No. 8, Jalan PJU 1A/3, 47301 Petaling Jaya"}', ["Jalan PJU 1A/3", "47301"], ["Petaling Jaya"]),
    ("deliver to Blk 212 Tampines St 23, #05-118, S520212 pls", ["S520212"], ["deliver"]),
    ("서초대로 77길 14, 501호 (06611). 문 앞에 놔주세요", ["06611", "77길 14"], ["문 앞에 놔주세요"]),
])
def test_streets_units_and_postcodes_of_more_countries_are_replaced(anon, text, values, kept):
    replaced_and_kept(user(anon, text), values, kept)


@pytest.mark.parametrize("text", [
    "Our warehouses are in Kota Bharu, Shah Alam and Petaling Jaya.",
    "Kirim ke gudang di Petaling Jaya ya",
])
def test_a_city_of_several_words_is_no_name(anon, text):
    assert user(anon, text) == text


def test_a_namespaced_xml_elements_key_is_its_local_name(anon):
    xml = ("<inv:patient><inv:familyname>Wüthrich-Baumann</inv:familyname><inv:givenname>Seraina</inv:givenname>"
           "<inv:postal><inv:street>Route de la Gare 14</inv:street><inv:zip>1018</inv:zip>"
           "<inv:city>Lausanne</inv:city></inv:postal></inv:patient>")
    out = one(anon, [{"role": "user", "content": "invoice please"},
                     {"role": "tool", "tool_call_id": "c1", "content": xml}]).messages[1]["content"]
    replaced_and_kept(out, ["Wüthrich-Baumann", "Seraina", "Route de la Gare 14", ">1018<"],
                      ["<inv:zip>", "<inv:givenname>", "Lausanne"])


# ------------------------------------------------------- precision: streets, storms, venues, products, talks
@pytest.mark.parametrize("text", [
    "Скажите, будут ли отключения по улице Шевченко и проспекту Бандеры завтра?",
    "4.2;просп. Степана Бандери, вул. Івана Франка, вул. Пушкінська;12:00–16:00",
    '03:30Z Storm "Herminia" gusts 48kt forecast. Storm Herminia may affect Bilbao.',
    "| 14:00 | Ambedkar Room | Workshop | and Tata Hall at 08:00; Caffè Canova for lunch",
    "Vin : Château Margaux 2015 (x6), Champagne Veuve Clicquot (x24).",
    "Hurricane Ida and Typhoon Haiyan were in the slides.",
])
def test_streets_storms_venues_and_wines_named_after_people_stay(anon, text):
    assert user(anon, text) == text


def test_a_persons_name_beside_a_street_named_after_another_stays_replaced(anon):
    out = user(anon, "Мой сосед Пётр Васильевич Кравченко живёт на улице Шевченко.")
    assert "Кравченко" not in out and "улице Шевченко" in out, out


def test_product_objects_names_and_conference_sessions_are_no_people(anon):
    menu = {"menu": [{"sku": "PT-01", "name_th": "ผัดไทยกุ้งสด", "name_en": "Pad Thai with Fresh Prawns", "price": 119},
                     {"sku": "KM-02", "name_th": "ข้าวมันไก่", "name_en": "Hainanese Chicken Rice", "price": 89}],
            "agenda": [{"time": "10:00", "session": "Keynote: Payments at scale", "hall": "Nehru Centre"}]}
    out = tool(anon, menu, with_user=False)
    assert json.loads(out) == menu
    # a person's object keeps its names replaced
    guest = {"guest": {"name_en": "Somchai Rattanakosin", "name_th": "สมชาย รัตนโกสินทร์"}, "sku": None}
    out = tool(anon, guest, with_user=False)
    assert "Somchai" not in out and "สมชาย" not in out, out


def test_a_key_rules_word_that_is_a_first_name_is_no_vocabulary(anon):
    # "nino" (a UK National Insurance number's key) and "ani" (a caller's number) must not keep
    # the first names Nino and Ani
    out = tool(anon, {"student": {"first": "Nino", "last": "Kvaratskhelia"}, "contact": "Ani Grigoryan"},
               with_user=False)
    assert_gone(out, ["Nino", "Kvaratskhelia", "Ani", "Grigoryan"])


# ------------------------------------------------------- case forms and introductions (red-team 15 read)
@pytest.mark.parametrize("first,later,form", [
    ("A számla Kovács Bence nevére szól.", "Valaki átverte Bencét, Bencének szóljanak.", ["Bencét", "Bencének"]),
    ("Omistaja: Heikkilä Sanna, puh. 040 123 4567", "Soitamme Heikkilälle huomenna.", ["Heikkilälle"]),
    ("მომხმარებელი: ლევანი ბერიძე", "ლევანს შეუძლია მოვიდეს ხვალ.", ["ლევანს"]),
    ("שמי עומר לוי, תודה", "ההודעה תישלח אלייך ולעומר.", ["ולעומר"]),
])
def test_a_known_names_case_form_is_replaced(anon, first, later, form):
    out = one(anon, [{"role": "user", "content": first}, {"role": "assistant", "content": later}]).messages[1]["content"]
    replaced_and_kept(out, form, [])


@pytest.mark.parametrize("text,names,kept", [
    ("ሰላም፣ እኔ መቅደስ አበበ እባላለሁ። መኪናዬ ተገጭታለች", ["መቅደስ", "አበበ"], ["እኔ", "እባላለሁ"]),
    ("የገጨኝ ሹፌር ዳዊት ታደሰ ይባላል፣ ስልኩ አለኝ", ["ዳዊት", "ታደሰ"], ["ሹፌር", "ይባላል"]),
    ("Guten Tag, hier Hannelore Weißkopf-Brandt. Ich rufe an wegen der Rechnung.", ["Hannelore", "Weißkopf-Brandt"],
     ["Guten Tag", "Rechnung"]),
    ("Hej! Det är Pelle på lagret. Jag har bytt bank.", ["Pelle"], ["Hej", "lagret"]),
    ("Mteja Achieng Odhiambo, ID 31904472, ameomba mkopo.", ["Achieng", "Odhiambo"], ["Mteja", "ameomba"]),
    ("வணக்கம், நான் செல்வராஜ் முருகேசன். எங்கள் தெருவில் தண்ணீர் இல்லை", ["செல்வராஜ்", "முருகேசன்"], ["வணக்கம்"]),
    ("ԲԱԺԱՆՈՐԴ: Սարգսյան Լիլիթ Արամի\nՀԱՄԱՐ: 12", ["Սարգսյան", "Լիլիթ"], ["ԲԱԺԱՆՈՐԴ", "ՀԱՄԱՐ"]),
])
def test_introductions_of_more_languages_are_read(anon, text, names, kept):
    replaced_and_kept(user(anon, text), names, kept)


@pytest.mark.parametrize("text", [
    "Hier klicken, um fortzufahren. Det är bra att veta.",
    "Mteja ameomba kupunguza rejesho.",
])
def test_those_introductions_words_alone_stay(anon, text):
    assert user(anon, text) == text


def test_a_labels_number_sign_before_the_value(anon):
    replaced_and_kept(user(anon, "Vi allego foto. Patente n. RM7710294K, grazie."), ["RM7710294K"], ["Patente n."])


# ------------------------------------------------------- keys and labels of red-team 15's kinds
@pytest.mark.parametrize("obj,values", [
    ({"sender": {"name": "OKAFOR NNAMDI C", "nuban": "0193847265"}}, ["0193847265"]),
    ({"barn": "Sofie Lunde", "fnr": "02071845123"}, ["02071845123"]),
    ({"titulaire": "MARCHAND CLAIRE", "nir_declare": "2 91 03 69 388 114 27"}, ["2 91 03 69 388 114 27"]),
    ({"ni_number_for_dd": "QZ 82 41 73 B", "postcode": "LS6 2QE"}, ["QZ 82 41 73 B"]),
    ({"მკითხველი": "ბერიძე ნინო", "პირადი_ნომერი": "01027734415",
      "მისამართი": "ჭავჭავაძის გამზირი 12, ბ. 3", "ინდექსი": "0179"}, ["01027734415", '"0179"']),
    ({"ผู้จำนำ": "นายสมชาย ใจดี", "เลขบัตรประชาชน": "3-1008-00291-47-2"}, ["3-1008-00291-47-2"]),
    ({"nafn": "Ásta Jónsdóttir", "simi": "6617723"}, ["6617723"]),
    ({"aadress": "Narva mnt 7-14", "postiindeks": "10117"}, ["10117"]),
    ({"adresa": "Улица Његошева 21, стан 4", "pb": "11000"}, ['"11000"']),
])
def test_red_team_15_keys_are_read(anon, obj, values):
    out = tool(anon, obj, with_user=False)
    for v in values:
        assert v not in out, (v, out)


@pytest.mark.parametrize("text,value,label", [
    ("Omistaja: Laine Marja (htun 211284-118X), puh.", "211284-118X", "htun"),
    ("My ID-nommer vir die aansoek is 8106025044081.", "8106025044081", "ID-nommer"),
    ("Personas kods 311290-12841. Paldies", "311290-12841", "Personas kods"),
    ("иргэний үнэмлэх байгаа, регистр УЕ88112305.", "УЕ88112305", "регистр"),
])
def test_red_team_15_labels_are_read(anon, text, value, label):
    replaced_and_kept(user(anon, text), [value], [label])


def test_a_sentence_under_a_business_key_gets_the_records_known_values_replaced(anon):
    from pipeline.records import LogRecord

    skip = sorted(anon.skip_keys)[0]  # any business key: its enum values are never analyzed
    rec = LogRecord(id="s", messages=[
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"linked_accounts": ["mara_k_ldn", "zz.flyboy"]})},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c2", "type": "function", "function": {
            "name": "ban_user", "arguments": json.dumps({skip: "romance scam; linked: mara_k_ldn, zz.flyboy"})}}]}])
    (out,) = anon.anonymize([rec])
    args = out.messages[1]["tool_calls"][0]["function"]["arguments"]
    assert "mara_k_ldn" not in args and "zz.flyboy" not in args and "romance scam" in args, args


# ------------------------------------------------------- a self-introduction after a greeting (scripts without a name list)
@pytest.mark.parametrize("text,names,kept", [
    ("नमस्कार, मी अनुजा देशमुख. माझं लग्न पुढच्या महिन्यात आहे", ["अनुजा", "देशमुख"], ["नमस्कार"]),
    ("નમસ્તે, હું કિંજલ શાહ. ફરીથી રક્તદાન કરવું છે.", ["કિંજલ", "શાહ"], ["નમસ્તે"]),
    ("ਸਤ ਸ੍ਰੀ ਅਕਾਲ ਜੀ, ਮੈਂ ਮਨਦੀਪ ਕੌਰ। ਮੇਰਾ ਟੈਸਟ", ["ਮਨਦੀਪ", "ਕੌਰ"], ["ਸਤ ਸ੍ਰੀ ਅਕਾਲ"]),
    ("ನಮಸ್ಕಾರ, ನಾನು ಪ್ರಿಯಾ ಹೆಗ್ಡೆ. ನನ್ನ ಕನ್ನಡಕ ರೆಡಿ", ["ಪ್ರಿಯಾ", "ಹೆಗ್ಡೆ"], ["ನಮಸ್ಕಾರ"]),
    ("നമസ്കാരം, ഞാൻ ബിജു. സമ്മാനം അടിച്ചു!", ["ബിജു"], ["നമസ്കാരം"]),
    ("ආයුබෝවන්, මම නදීකා පෙරේරා. ඉන්ටර්නෙට් එක නැහැ", ["නදීකා"], ["ආයුබෝවන්"]),
    ("សួស្តី ខ្ញុំឈ្មោះ សុខ វណ្ណា។ ខ្ញុំបានសម្រាក", ["សុខ", "វណ្ណា"], ["សួស្តី"]),
    ("ສະບາຍດີ, ຂ້ອຍຊື່ ບຸນມີ ພົມມະຈັນ. ຢາກຍ້າຍເບີ", ["ບຸນມີ", "ພົມມະຈັນ"], ["ສະບາຍດີ"]),
    ("မင်္ဂလာပါ၊ ကျွန်တော် ဇော်မင်းထွန်း ပါ။ ခရီးစဉ်", ["ဇော်မင်းထွန်း"], ["မင်္ဂလာပါ", "ပါ။"]),
    ("Сайн байна уу, би Дорждэрэмийн Сарантуяа. Өчигдөр", ["Сарантуяа"], ["Сайн байна уу"]),
    ("मैं सुनीता शर्मा हूँ और मेरा ऑर्डर नहीं आया", ["सुनीता", "शर्मा"], ["हूँ और मेरा ऑर्डर"]),
])
def test_a_self_introduction_after_a_greeting_is_read(anon, text, names, kept):
    out = user(anon, text)
    replaced_and_kept(out, names, kept)
    # the fake is whole words: no vowel sign of the real name left glued to Latin letters
    marks = r"[\u0900-\u0963\u0966-\u0DFF\u0E80-\u0EFF\u1000-\u1049\u104C-\u109F\u1780-\u17D3]"
    assert not re.search(r"[A-Za-z]" + marks + "|" + marks + "[A-Za-z]", out), out


@pytest.mark.parametrize("text", [
    "नमस्ते, मैं घर पर हूँ। कल आइए",  # "I am at home": stop words, no name
    "नमस्कार, मी घरी आहे.",
])
def test_a_greeting_and_i_am_before_ordinary_words_stays(anon, text):
    assert user(anon, text) == text


# ------------------------------------------------------- a name before an honorific or courtesy word
@pytest.mark.parametrize("text,names,kept", [
    ("सुरेश जी, आपका पार्सल आज आएगा", ["सुरेश"], ["जी", "पार्सल"]),
    ("عمران صاحب، آپ کا پارسل آ گیا ہے۔", ["عمران"], ["صاحب"]),
    ("ডা. নাসরিন আক্তার (শিশু) আজ বসবেন।", ["নাসরিন", "আক্তার"], ["ডা.", "শিশু"]),
    ("આભાર, કિંજલબેન!", ["કિંજલ"], ["આભાર", "બેન"]),
    ("ස්තූතියි ගුණසේකර මහත්මයා.", ["ගුණසේකර"], ["ස්තූතියි", "මහත්මයා"]),
    ("Delivery 5-7 pm. Raghunandan sir can receive it.", ["Raghunandan"], ["sir can receive"]),
])
def test_a_name_before_an_honorific_is_replaced(anon, text, names, kept):
    replaced_and_kept(user(anon, text), names, kept)


@pytest.mark.parametrize("text", [
    "धन्यवाद जी, हाँ जी ठीक है जी।",
    "Yes sir, thank you madam. Good morning sir.",
])
def test_courtesy_words_after_ordinary_words_stay(anon, text):
    assert user(anon, text) == text


@pytest.mark.parametrize("text", [
    "Venue: NCPA, Nariman Point; parking at Senapati Bapat Marg.",
    "Mød os ved Bryggernes Plads i Carlsberg Byen.",
    "Book Superfast Ferries or Star Cruises for the islands.",
    "الموقع: طريق الملك فهد، الرياض",
])
def test_roads_squares_carriers_and_districts_named_after_people_stay(anon, text):
    assert user(anon, text) == text


# ------------------------------------------------------- red-team 15: CJK kin, kana names, HL7 doctors, person keys
@pytest.mark.parametrize("text,names,kept", [
    ("好吧。我老公刘建华也可能下楼拿，他电话在这。", ["刘建华"], ["我老公", "也可能下楼拿"]),
    ("您好，我兒子黃子軒才14歲，用我的信用卡。", ["黃子軒"], ["我兒子", "才14歲"]),
    ("山本様（田中キヨ様の娘さん）から電話。", ["田中キヨ"], ["様の娘さん", "から電話"]),
    ("【介護記録】利用者：鈴木 ハナ 様（スズキ ハナ）\n担当ケアマネ：小野\n入浴", ["鈴木", "ハナ", "スズキ", "小野"],
     ["利用者", "担当ケアマネ", "入浴"]),
])
def test_cjk_kin_and_kana_names_are_replaced(anon, text, names, kept):
    replaced_and_kept(user(anon, text), names, kept)


def test_an_hl7_visits_doctor_is_replaced():
    from pipeline.anonymize.structured_text import hl7_values

    got = {(v, e) for v, e, _s in hl7_values("PV1|1|O|OPD^^^KLINIK||||TAN^MEI LING^^^DR|10293^CHUA^BOON KIAT^^^DR\n")}
    assert {("TAN", "LAST_NAME"), ("MEI LING", "FIRST_NAME"), ("CHUA", "LAST_NAME"), ("BOON KIAT", "FIRST_NAME")} <= got
    assert not {v for v, _e in got} & {"OPD", "KLINIK", "DR"}
    # the doctor's own number beside the replaced name identifies the doctor as well (twenty-first
    # round: it was kept; a provider's id of 4+ characters is now an ACCOUNT_ID)
    assert ("10293", "ACCOUNT_ID") in got


@pytest.mark.parametrize("obj,values,kept", [
    ({"buyer": {"shimei": "佐々木 美咲", "furigana": "ササキ ミサキ"}}, ["ササキ", "ミサキ"], ["furigana"]),
    ({"contact": "ササキ ケンタ 080-6127-9043"}, ["ササキ", "ケンタ", "080-6127-9043"], ["contact"]),
    ({"driver": "Jenalyn Ramos / +63 917 845 2213"}, ["Jenalyn", "Ramos", "917 845 2213"], ["driver"]),
])
def test_a_person_keys_name_with_its_number_or_reading(anon, obj, values, kept):
    replaced_and_kept(tool(anon, obj, with_user=False), values, kept)


def test_xml_of_another_script_is_read_by_its_tags_and_attributes(anon):
    xml = ('<Убыток><Страхователь><ФИО>Белоусова Ирина Петровна</ФИО><Паспорт>45 19 338201</Паспорт>'
           '<Полис>ХХХ 0287146391</Полис><ТС госномер="Н482ОР799">Kia Rio, 2019</ТС>'
           '<Адрес индекс="117485">г. Москва, ул. Профсоюзная, д. 104, кв. 58</Адрес></Страхователь></Убыток>')
    out = one(anon, [{"role": "user", "content": "claim"},
                     {"role": "tool", "tool_call_id": "c1", "content": xml}]).messages[1]["content"]
    replaced_and_kept(out, ["Белоусова", "45 19 338201", "0287146391", "Н482ОР799", '"117485"'],
                      ["<Паспорт>", "госномер=", "Kia Rio", "<Адрес индекс="])


@pytest.mark.parametrize("meta,values", [
    ({"operador_id": "carla.m.ops", "medewerker": "mw.jansen.p", "agent_id": "jmorrow7"}, ["carla.m.ops", "mw.jansen.p", "jmorrow7"]),
    ({"wx": "wxid_zq8823kk", "line_name": "Som.Chaiyaporn"}, ["wxid_zq8823kk", "Som.Chaiyaporn"]),
])
def test_staff_logins_and_messenger_ids_in_metadata_are_replaced(anon, meta, values):
    from pipeline.records import LogRecord

    (out,) = anon.anonymize([LogRecord(id="m", messages=[{"role": "user", "content": "hello"}], metadata=meta)])
    assert_gone(json.dumps(out.metadata, ensure_ascii=False), values)


@pytest.mark.parametrize("text,names,kept", [
    ("Good morning Adébáyọ̀, let me check the transfer.", ["Adébáyọ̀"], ["Good morning", "let me check"]),
    ("Bonjour Maëlys, votre colis arrive.", ["Maëlys"], ["Bonjour", "votre colis"]),
    ("Buenos días Itziar! Su pedido llegó.", ["Itziar"], ["Buenos días", "Su pedido"]),
])
def test_a_name_after_a_greeting_of_several_words(anon, text, names, kept):
    replaced_and_kept(user(anon, text), names, kept)


def test_a_greeting_before_a_team_stays(anon):
    text = "Hello Team, Good morning Support! Buenos días Equipo."
    out = user(anon, text)
    assert "Support" in out and "Team" in out, out


@pytest.mark.parametrize("text,names,kept", [
    ("ಹೆಸರು: ಶ್ವೇತಾ ರಾವ್\nಫೋನ್: 98450 12345", ["ಶ್ವೇತಾ", "ರಾವ್"], ["ಹೆಸರು:"]),
    ("ឈ្មោះ៖ សុខ វណ្ណា", ["សុខ", "វណ្ណា"], ["ឈ្មោះ៖"]),
    ("guest,தமிழ் பெயர்,relation\nSundar Krishnan,சுந்தர் கிருஷ்ணன்,uncle", ["சுந்தர்", "கிருஷ்ணன்", "Sundar"],
     ["தமிழ் பெயர்", "uncle"]),
])
def test_a_name_label_or_column_of_another_script(anon, text, names, kept):
    replaced_and_kept(user(anon, text), names, kept)


@pytest.mark.parametrize("text,names,kept", [
    ("मैंने अपनी बहन रश्मि खुराना को पार्सल भेजा था", ["रश्मि", "खुराना"], ["अपनी बहन", "को पार्सल"]),
    ("ನನ್ನ ಗಂಡ ಪ್ರಶಾಂತ ಮನೆಯಲ್ಲಿ ಇರ್ತಾರೆ.", ["ಪ್ರಶಾಂತ"], ["ನನ್ನ ಗಂಡ", "ಮನೆಯಲ್ಲಿ"]),
])
def test_a_name_after_my_and_a_kin_word_of_another_script(anon, text, names, kept):
    replaced_and_kept(user(anon, text), names, kept)


def test_kin_words_before_ordinary_words_stay(anon):
    text = "मेरी बहन भी आएगी और मेरा भाई घर पर है।"
    assert user(anon, text) == text


# ------------------------------------------------------- the round's fresh-clone check (a helper's own logs)
def test_hl7_segments_ended_by_carriage_returns_are_read(anon):
    msg = ("MSH|^~\\&|VET|CLINIC|||20240101||ADT^A01|17|P|2.5\rPID|1||OW-50233^^^PAWS||Καραγιάννης^Στέλιος||19790312|M|||"
           "Πατησίων 41^^Αθήνα^^11257^GR||6937712345\rOBX|1|TX|NOTE||ok")
    out = one(anon, [{"role": "user", "content": "record"},
                     {"role": "tool", "tool_call_id": "c1", "content": msg}]).messages[1]["content"]
    replaced_and_kept(out, ["Καραγιάννης", "19790312", "Πατησίων 41", "11257", "6937712345"], ["\rPID|1||", "\rOBX|1|TX|NOTE"])


def test_coordinates_as_two_fields_of_a_csv_row(anon):
    csv = "addr,lat,lon,user\nSố 7 ngõ 12 phố Hàng Gai,21.0312,105.8491,thu.tran.1990"
    out = one(anon, [{"role": "user", "content": "hi"},
                     {"role": "tool", "tool_call_id": "c1", "content": csv}]).messages[1]["content"]
    assert "21.0312" not in out and "105.8491" not in out and out.startswith("addr,lat,lon,user\n"), out


def test_a_known_key_is_never_renamed_and_a_social_network_is_no_name(anon):
    out = one(anon, [{"role": "user", "content": "Escríbeme por Instagram o WhatsApp, soy Inmaculada Rivas Gordillo."},
                     {"role": "tool", "tool_call_id": "c1",
                      "content": json.dumps({"name": "Inmaculada Rivas Gordillo", "instagram": "@inma_rg77"})}])
    doc = json.loads(out.messages[1]["content"])
    assert set(doc) == {"name", "instagram"} and doc["instagram"] != "@inma_rg77", doc
    assert "por Instagram o WhatsApp" in out.messages[0]["content"], out.messages[0]["content"]


@pytest.mark.parametrize("first,later,forms", [
    ("Ιδιοκτήτης: Σταύρος Αναστασίου", "Σταύρο, το ιστορικό στάλθηκε στο όνομα του Αναστασίου.", ["Σταύρο"]),
    ("ΙΔ: Παπαδόπουλος Νίκος", "Ευχαριστούμε τον κ. Παπαδόπουλου.", ["Παπαδόπουλου"]),
    ("მეპატრონე: ნინო ბერიძე", "ნინოს ვიზიტი დაჯავშნილია.", ["ნინოს"]),
    ("المالك: محمد العتيبي", "أرسلنا الإيصال لمحمد على الرقم.", ["لمحمد"]),
])
def test_case_forms_and_prefixes_of_known_names_in_more_scripts(anon, first, later, forms):
    out = one(anon, [{"role": "user", "content": first}, {"role": "assistant", "content": later}]).messages[1]["content"]
    replaced_and_kept(out, forms, [])


def test_an_arabic_street_with_its_number_after_the_name(anon):
    replaced_and_kept(user(anon, "lives at حي الياسمين، شارع الأمير محمد 27، الرياض. Pet ok"), ["شارع الأمير محمد 27"],
                      ["lives at", "الرياض"])
