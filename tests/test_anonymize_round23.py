"""Issue 11, twenty-third round: the kinds red-team 38 and 39 (read this round) showed; red-team
37 is never read. Each kind is tested in sentences and records written here, never the red-team
values. Also: the staff labels are one section of the PII config (``staff_labels``), read both in
user / tool text and in a system prompt.

Real presidio + the spaCy package model; one analyzer for the module.
"""
from __future__ import annotations

from functools import partial

import pytest

from pipeline.anonymize import Anonymizer, build_analyzer
from pipeline.anonymize.config import PiiConfig, PiiConfigError
from tests.anon_helpers import called_tool_text, one, user, assert_gone, assert_kept


@pytest.fixture(scope="module")
def analyzer():
    return build_analyzer()


@pytest.fixture(scope="module")
def anon(analyzer):
    return Anonymizer(secret="round23", analyzer=analyzer)


_tool_text = partial(called_tool_text, ask="Can you pull the record?")
_gone = partial(assert_gone, ignore_case=True)
_kept = assert_kept


def _system(anon, prompt: str) -> str:
    """``prompt`` anonymized as a system prompt (before a user's greeting)."""
    out = one(anon, [{"role": "system", "content": prompt}, {"role": "user", "content": "Hello, I need help."}])
    return out.messages[0]["content"]


# ---------------------------------------- staff labels: one config section, two readers
@pytest.mark.parametrize("prompt,name", [
    ("You are the Parcelo assistant. Supervisor: Radomir Kowalczyk. Never share tracking logs.", "Radomir Kowalczyk"),
    ("Support console of Brightline. Specialist: Anneliese Brandt. Refunds need approval.", "Anneliese Brandt"),
    ("Asistente de Viajes Sol. Escalar a: Maite Goikoetxea. Responde en español.", "Maite Goikoetxea"),
    ("Kundenservice. Eskalation an: Frieda Hollmann (Team Retouren).", "Frieda Hollmann"),
])
def test_staff_named_in_a_system_prompt(anon, prompt, name):
    out = _system(anon, prompt)
    _gone(out, [name])
    _kept(out, ["Never share" if "Never" in prompt else prompt.split(".")[0]])


@pytest.mark.parametrize("text,name", [
    ("Thanks for waiting, I checked it. Supervisor: Radomir Kowalczyk approved the refund.", "Radomir Kowalczyk"),
    ("The parcel was returned. Specialist: Anneliese Brandt will call you.", "Anneliese Brandt"),
])
def test_staff_labels_are_person_labels_in_user_text(anon, text, name):
    _gone(user(anon, text), [name])


def test_a_policy_line_after_a_staff_label_without_a_name_stays(anon):
    prompt = "You help customers of Brightline. Supervisor: Approval Needed For Refunds over 200 EUR."
    _kept(_system(anon, prompt), ["Approval Needed For Refunds"])


def test_a_company_adds_its_own_staff_label(analyzer):
    cfg = PiiConfig.load()
    cfg.extend({"staff_labels": ["kundenbetreuer(?:in)?"]}, "company.yaml")
    anon = Anonymizer(secret="round23", analyzer=analyzer, pii_config=cfg)
    prompt = "Assistent der Stadtwerke. Kundenbetreuerin: Hannelore Vogelsang. Tarife nur laut Liste."
    out = _system(anon, prompt)
    _gone(out, ["Hannelore Vogelsang"])
    # without the company's label the shipped config does not read it
    _kept(_system(Anonymizer(secret="round23", analyzer=analyzer), prompt), ["Hannelore Vogelsang"])


def test_a_bad_staff_label_is_a_config_error():
    with pytest.raises(PiiConfigError, match="staff_labels"):
        PiiConfig().extend({"staff_labels": ["agent(("]}, "bad.yaml")


def test_staff_labels_are_among_the_person_labels_once():
    cfg = PiiConfig.load()
    labels = cfg.text_labels()
    assert labels["PERSON"][-1] == cfg.staff_label_regex()
    assert cfg.staff_label_regex() not in cfg.id_labels["PERSON"]  # the config itself keeps one copy


# ---------------------------------------- keys of more languages
@pytest.mark.parametrize("obj,values", [
    ({"pata": "मकान 22, गली 4, लाजपत नगर", "naam": "Ritu Bansal"}, ["मकान 22, गली 4"]),
    ({"thegana": "ललितपुर-५, पुल्चोक", "naam": "Bishal Thapa"}, ["ललितपुर-५, पुल्चोक"]),
    ({"helbidea": "Iparraguirre kalea 12, 3. A", "izena": "Miren"}, ["Iparraguirre kalea 12"]),
    ({"ikheli": "22 Sivananda Road, Umlazi", "igama": "Sipho"}, ["22 Sivananda Road"]),
    ({"citizenship": "12-03-71-04466", "nibedak": "Sita"}, ["12-03-71-04466"]),
    ({"ecv": "KE-214HB", "model": "Octavia"}, ["KE-214HB"]),
    ({"donor_name": "Harpreet Gill", "amount": 2100}, ["Harpreet Gill"]),
    ({"donor": "Oyelaran Temitope", "amount": 5000}, ["Oyelaran Temitope"]),
    ({"худалдан_авагч": "Батбаярын Энхтуяа", "үнэ": 1200}, ["Батбаярын Энхтуяа"]),
    ({"pati": "Gurpreet Sandhu", "patni": "Manjit Kaur"}, ["Gurpreet Sandhu", "Manjit Kaur"]),
    ({"卡号尾号": "4821", "金额": 300}, ["4821"]),
])
def test_keys_of_more_languages(anon, obj, values):
    import json
    out = _tool_text(anon, json.dumps(obj, ensure_ascii=False))
    _gone(out, values)


def test_a_title_before_a_name_under_a_person_key_stays(anon):
    import json
    out = _tool_text(anon, json.dumps({"doctor": "डॉ. सुरेश पाण्डेय", "vet": "Dt. Okan Yüce"}, ensure_ascii=False))
    _gone(out, ["सुरेश पाण्डेय", "Okan Yüce"])
    _kept(out, ["डॉ.", "Dt."])


def test_name_roman_is_a_name_key(anon):
    out = _tool_text(anon, "<guest><name_roman>SASAKI MIDORI</name_roman><room>1204</room></guest>")
    _gone(out, ["SASAKI MIDORI"])


# ---------------------------------------- text formats
def test_semicolon_fields_are_read_to_the_separator(anon):
    out = _tool_text(anon, "REF=PRP-0032918;OWNER=RAJESH KUMAR VERMA;WARD=7;STATUS=DUE")
    _gone(out, ["RAJESH KUMAR VERMA"])
    _kept(out, ["WARD=7", "STATUS=DUE"])


@pytest.mark.parametrize("table,values,kept", [
    ("id;klient;tel\n1;VARDANYAN, HOVHANNES;+374 91 100 200\n2;Petrosyan, Anahit;+374 91 300 400",
     ["VARDANYAN, HOVHANNES", "Petrosyan, Anahit"], []),
    ("ref,kliënt,status\nQ-1,\"van der Merwe, Johannes\",open\nQ-2,\"Botha, Annelie\",closed",
     ["van der Merwe, Johannes", "Botha, Annelie"], ["open", "closed"]),
    # places and firms written so stay
    ("city,country,stores\n\"Leeds, UK\",GB,4\n\"Paris, France\",FR,9\n\"Springfield, Illinois\",US,2",
     [], ["Leeds, UK", "Paris, France", "Springfield, Illinois"]),
])
def test_a_cell_written_surname_comma_given_is_a_name(anon, table, values, kept):
    out = _tool_text(anon, table)
    _gone(out, values)
    _kept(out, kept)


# ---------------------------------------- glued postpositions, introductions of more languages
@pytest.mark.parametrize("text,values", [
    ("मेरो नाम: सुनिता श्रेष्ठ। सुनिताको फोन बन्द छ।", ["सुनिता", "सुनिताको"]),
    ("नाम: राजेश वर्मा। राजेशने कल फोन किया था।", ["राजेश", "राजेशने"]),
])
def test_postpositions_glued_to_a_name_end_it(anon, text, values):
    out = user(anon, text)
    assert not any(v in out for v in values), out


@pytest.mark.parametrize("text,name", [
    ("agent: hei det er torunn du kan jeg få kundenummeret\nkunde: ja", "torunn"),
    ("agent: goeiemiddag jy praat met thandiwe\nbeller: middag", "thandiwe"),
    ("ejen: selamat pagi saya aisyah boleh saya bantu\npemanggil: ya", "aisyah"),
    ("operators: labdien elektrum runā jānis\nzvanītājs: labdien", "jānis"),
    ("agent: hej du pratar med linnea\nkund: hej", "linnea"),
    ("एजेंट: नमस्कार मैं सरिता बोल रही हूँ\nकॉलर: जी", "सरिता"),
    ("नमस्ते। मैं उनकी बेटी अंजलि हूँ, पापा अस्पताल में हैं", "अंजलि"),
    ("ایجنٹ: السلام علیکم، میں عائشہ بات کر رہی ہوں\nکالر: جی", "عائشہ"),
    ("আমি উনার মেয়ে তানিয়া, আমার নাম্বার দিচ্ছি", "তানিয়া"),
])
def test_introductions_of_more_languages(anon, text, name):
    assert name not in user(anon, text)


@pytest.mark.parametrize("text", [
    "client: oui c'est ça, c'est parfait, c'est bon merci",
    "det er bra, det er greit. du pratar med kundtjänst",
])
def test_plain_phrases_are_no_introductions(anon, text):
    assert user(anon, text) == text


# ---------------------------------------- Cyrillic names
@pytest.mark.parametrize("text,values", [
    ("звонящий: мой куратор смирнова ольга петровна, она в курсе", ["смирнова ольга петровна"]),
    ("иесі=ӘБДІРАХМАНОВ ЕРЛАН САПАРҰЛЫ | ЖСН=880315300123", ["ӘБДІРАХМАНОВ ЕРЛАН САПАРҰЛЫ"]),
    ("Гэрээ байгуулсан: Батсүхийн Нарантуяа, утас 9911 2233.", ["Батсүхийн Нарантуяа"]),
    ("Сайн байна уу, Д.Болормаа байна, хүний нөөц.", ["Болормаа"]),
])
def test_patronymics_and_mongolian_names(anon, text, values):
    out = _tool_text(anon, text)
    _gone(out, values)


@pytest.mark.parametrize("text", ["ситуация типична, работа отлична.", "Мы едем в С.Петербург завтра."])
def test_cyrillic_words_that_look_like_names_stay(anon, text):
    assert user(anon, text) == text


# ---------------------------------------- spelled, spoken
@pytest.mark.parametrize("text,value", [
    ("caller: my surname is novák n o v á k with the accent", "n o v á k"),
    ("оператор: ок\nклиент: фамилия ж у к о в а", "ж у к о в а"),
    ("kund: regnumret är p l t fem fyra sju\nagent: tack", "p l t fem fyra sju"),
    ("vairuotojas: numeris k t m du nulis vienas\noperatorė: ačiū", "k t m du nulis vienas"),
])
def test_spelled_values_of_any_alphabet(anon, text, value):
    assert value not in user(anon, text)


@pytest.mark.parametrize("text,value", [
    ("beller: my nommer is nul agt twee vyf ses sewe een nege", "nul agt twee vyf ses sewe een nege"),
    ("कॉलर: मोबाइल नौ आठ सात शून्य पाँच चार तीन दो एक एक", "नौ आठ सात शून्य पाँच चार तीन दो एक एक"),
    ("kunde: nummeret er ni to to fire åtte én null seks", "ni to to fire åtte én null seks"),
    ("heather: bi zortzi hiru lau bost sei zazpi", "bi zortzi hiru lau bost sei zazpi"),
])
def test_numbers_read_aloud_in_more_languages(anon, text, value):
    assert value not in user(anon, text)


def test_plain_text_with_letters_and_numbers_is_no_spelled_id(anon):
    text = "a one a two a three, and v roce dva tisíce, I have a 2 and a 3 and B 5 rooms."
    assert user(anon, text) == text


# ---------------------------------------- last four, plates, streets, surnames
@pytest.mark.parametrize("text,value", [
    ("the debit comes from the account ending seven two two five", "seven two two five"),
    ("le prélèvement sur votre compte qui se termine par neuf un quatre deux", "neuf un quatre deux"),
    ("Remboursement sur le RIB se terminant 7741.", "7741"),
    ("款项将打入尾号 5520 的工商银行卡。", "5520"),
    ("CC MC XXXXXXXXXXXX9031 EXP 11/28", "9031"),
])
def test_last_four_in_more_forms(anon, text, value):
    assert value not in user(anon, text)


@pytest.mark.parametrize("text,values,kept", [
    ("Booked: Aino Laine, Volvo XC40 (ZKP-518), tyre change.", ["ZKP-518"], ["Volvo XC40"]),
    ("Service for 4412 LMN (Seat Leon) tomorrow.", ["4412 LMN"], ["Seat Leon"]),
    ("The Toyota Corolla (E210) and the Ford Fiesta (2019) are on offer.", [], ["E210", "2019"]),
])
def test_plates_beside_a_car(anon, text, values, kept):
    out = user(anon, text)
    _gone(out, values)
    _kept(out, kept)


@pytest.mark.parametrize("text,values", [
    ("Samþykkt af Guðrúnar Magnúsdóttur í gær.", ["Guðrúnar Magnúsdóttur"]),
    ("Laišką persiuntėme Ingai Kazlauskaitei.", ["Ingai Kazlauskaitei"]),
    ("Doručenie na Záhradnej 14 v piatok.", ["Záhradnej 14"]),
    ("Stan je na adresi Vukovarska 118, Split.", ["Vukovarska 118"]),
    ("Dzīvoklis ir Ganību ielā 34, Rīgā. Sūtām uz Ganību ielu 34.", ["Ganību ielā 34", "Ganību ielu 34"]),
    ("Helbidea: Urdaneta kalea 9, Donostia.", ["Urdaneta kalea 9"]),
])
def test_surnames_and_streets_by_their_endings(anon, text, values):
    _gone(user(anon, text), values)


def test_a_golf_tee_and_a_round_are_no_streets(anon):
    text = "The tee 12 was fine. Ronda 3 of the tournament starts at 9."
    assert user(anon, text) == text


# ---------------------------------------- a second batch: labels, keys, titles, rows
@pytest.mark.parametrize("text,values,kept", [
    ("La tesi è seguita dal prof. Brambillasca.", ["Brambillasca"], ["prof."]),
    ("conseiller: la vétérinaire c'est docteur vandamme-rossel à lyon\nclient: oui", ["vandamme-rossel"], ["docteur"]),
    ("Isikukood 38001085718, telefon 5123 4567, leping 44120987.", ["5123 4567", "44120987"], ["telefon", "leping"]),
    ("Сайн байна уу, утас 8811 2244, би захиалга өгсөн.", ["8811 2244"], ["утас"]),
    ("Pakomāts Rīgā, LV-1050; paštomatas LT-44280.", ["LV-1050", "LT-44280"], ["Rīgā", "paštomatas"]),
    ("TC 10000000146, doğum 14.03.2012, kontrol randevusu.", ["14.03.2012"], ["kontrol"]),
    ("El venedor és l'usuari marcfont_bcn, usuari marcfont_bcn.", ["marcfont_bcn"], []),
    ("Ho perso la carta: la vecchia CIE è CB77120QZ.", ["CB77120QZ"], ["CIE"]),
])
def test_labels_and_titles_of_more_languages(anon, text, values, kept):
    out = user(anon, text)
    _gone(out, values)
    _kept(out, kept)


def test_a_person_keys_name_with_a_note_in_brackets(anon):
    import json
    out = _tool_text(anon, json.dumps({"rider": "Azlan Hashim (Shah Alam Hub)", "status": "failed"}))
    _gone(out, ["Azlan Hashim"])
    _kept(out, ["Shah Alam Hub"])


@pytest.mark.parametrize("obj,values", [
    ({"nom_usage": "LE GOFF-RIVIERE", "prenom": "Maelle"}, ["LE GOFF-RIVIERE"]),
    ({"roll": "55120", "tiket": "INC0042117", "pasaport": "U12345678"}, ["55120", "INC0042117", "U12345678"]),
    ({"دندانپزشک": "فرهاد کریمی", "بیمه": "تکمیلی"}, ["فرهاد کریمی"]),
])
def test_more_keys(anon, obj, values):
    import json
    _gone(_tool_text(anon, json.dumps(obj, ensure_ascii=False)), values)


def test_a_generic_name_column_beside_a_persons_columns(anon):
    out = _tool_text(anon, "no_pekerja,nama,no_kp,bank\nKL-0101,LIM MEI LING,850912-10-5522,MBB\n"
                           "KL-0102,AHMAD FAUZI BIN OMAR,790203-08-1133,CIMB")
    _gone(out, ["LIM MEI LING", "AHMAD FAUZI"])


def test_a_product_name_column_stays(anon):
    table = "sku,name,price,stock\nKB-220,Ergo Keyboard Pro,49.90,12\nMS-110,Silent Mouse,19.90,40"
    _kept(_tool_text(anon, table), ["Ergo Keyboard Pro", "Silent Mouse"])


# ---------------------------------------- a JSON text keeps its own layout around the fakes
def test_a_json_layout_no_dumps_setting_writes_survives(anon):
    import json
    text = '[ { "client": "Radomir Kowalczyk", "room": 12, "note": "Room 12" }, { "client": "Radomir Kowalczyk" } ]'
    out = _tool_text(anon, text)
    _gone(out, ["Radomir Kowalczyk"])
    assert out.startswith('[ { "client": "') and '"room": 12, "note": "Room 12" }, { "client": "' in out, out
    assert json.loads(out)[0]["room"] == 12


def test_a_json_text_without_a_personal_value_is_untouched(anon):
    text = '[ { "negozio": "Bottega Centrale", "orari": "9-19" } ]'
    assert _tool_text(anon, text) == text


# ---------------------------------------- "I am" after the name; more "my name is"
@pytest.mark.parametrize("text,values,kept", [
    ("Jó napot, Horváth Eszter vagyok, a számlámról telefonálok.", ["Horváth Eszter"], ["számlámról"]),
    ("Kaixo, Miren Zubizarreta naiz. Gaur ez naiz etorriko.", ["Miren Zubizarreta"], ["Gaur ez naiz etorriko"]),
    ("Itt vagyok a boltban, Pozik naiz.", [], ["Itt vagyok", "Pozik naiz"]),
])
def test_a_name_before_i_am(anon, text, values, kept):
    out = user(anon, text)
    _gone(out, values)
    _kept(out, kept)


@pytest.mark.parametrize("text,kept", [
    ("Our gym is on the 3rd floor of Akasya AVM, next to the cinema.", ["Akasya AVM"]),
    ("The branch at Mall Phnom Penh opens at 9.", ["Mall Phnom Penh"]),
])
def test_shopping_centres_are_places(anon, text, kept):
    _kept(user(anon, text), kept)


@pytest.mark.parametrize("text,values,kept", [
    ("Прикладываю файл счет_Коваленко_ИП_03032025.pdf к заявке.", ["Коваленко"], ["счет_", ".pdf"]),
    ("Receipt attached: receipt_Wisniewska_2024-11.pdf", ["Wisniewska"], ["receipt_", ".pdf"]),
    ("See invoice_march_2024.pdf and receipt_Biscuit_2024.pdf", [], ["invoice_march_2024.pdf", "receipt_Biscuit_2024.pdf"]),
])
def test_one_family_name_beside_a_document_word_in_a_file_name(anon, text, values, kept):
    out = user(anon, text)
    assert not any(v in out for v in values), out
    _kept(out, kept)


def test_people_columns_of_a_chinese_table(anon):
    out = _tool_text(anon, "订单|顾客|地址|骑手|状态\nMT-100|刘子涵|朝阳路8号|赵大勇|已送达\nMT-101|王小明|建国路2号|李强|配送中")
    assert not any(v in out for v in ("刘子涵", "赵大勇", "王小明", "李强")), out
    _kept(out, ["已送达", "配送中"])


def test_persian_family_name_and_referrer_keys(anon):
    import json
    out = _tool_text(anon, json.dumps({"نام": "Jesus", "نام_خانوادگی": "کریم‌پور", "معرف": "مهندس نیلوفر صدری"},
                                      ensure_ascii=False))
    assert "کریم‌پور" not in out and "نیلوفر صدری" not in out, out
    _kept(out, ["مهندس"])


@pytest.mark.parametrize("text,value", [
    ("cliente: avenida revolución mil doscientos tres, departamento ocho, colonia centro", "revolución mil doscientos tres"),
    ("оператор: адрес\nклиент: ленинский проспект сорок два квартира семь москва", "ленинский проспект сорок два"),
    ("agent: lieferadresse?\nkunde: birkenstraße zwölf b in köln", "birkenstraße zwölf"),
    ("agent: og adressen?\nkunde: thorvald meyers gate tretti, oslo", "thorvald meyers gate tretti"),
])
def test_streets_said_in_words_in_lower_case(anon, text, value):
    assert value not in user(anon, text)


@pytest.mark.parametrize("text", ["I drove on the road two, then left.", "we walked down the street one day"])
def test_a_road_and_a_number_word_in_a_sentence_stay(anon, text):
    assert user(anon, text) == text


@pytest.mark.parametrize("text,value", [
    ("temsilci: doğum tarihiniz\nmüşteri: on yedi mart doksan iki", "on yedi mart doksan iki"),
    ("agent: fødselsdato?\nkunde: tjuefemte mai åttiseks", "tjuefemte mai åttiseks"),
    ("haley: dátum narodenia\nalan: dvadsiateho apríla deväťdesiatjeden", "dvadsiateho apríla deväťdesiatjeden"),
    ("agent: geburtsdatum bitte\nkunde: dritter märz neunzehnhundertvierundachtzig", "dritter märz neunzehnhundertvierundachtzig"),
])
def test_dates_of_birth_said_in_words_in_more_languages(anon, text, value):
    assert value not in user(anon, text)


@pytest.mark.parametrize("text", ["see you on may twenty", "June is fine for the two of us",
                                  "We opened 3 stores in March 2024 and two in April."])
def test_months_beside_numbers_in_a_sentence_stay(anon, text):
    assert user(anon, text) == text


@pytest.mark.parametrize("text,values,kept", [
    ("از: سارا محمدی‌نژاد <sara.m@example.com>\nبه: آموزش <edu@uni.example>\nموضوع: مرخصی", ["سارا"], ["آموزش"]),
    ("От: Ирина Соколова <irina.s@example.ru>\nКому: Поддержка <help@example.ru>", ["Ирина Соколова"], ["Поддержка"]),
])
def test_mail_headers_of_other_languages(anon, text, values, kept):
    out = user(anon, text)
    assert not any(v in out for v in values), out
    _kept(out, kept)


def test_a_phone_never_runs_across_a_line_break():
    from pipeline.anonymize.engine import PHONE_RE

    text = "10:00;KHACHATRYAN, ARMEN;+374 91 100 211\n12:30;SARGSYAN, TIGRAN;+374 91 300 411"
    assert [m.group("v") for m in PHONE_RE.finditer(text)] == ["+374 91 100 211", "+374 91 300 411"]
