"""Planted personal data: distinctive fictional personas written into airline-style logs.

Used by the canary test (``tests/test_anonymize_canary.py``: none of these values may reach
any output of the full pipeline) and by the ``planted`` evaluation set of
:mod:`pipeline.anonymize.eval` (the tau-bench logs hold no phone numbers, card numbers or
secrets; these records do). Each persona's values are planted in free text, in JSON tool
results and tool-call arguments, in metadata, split across turns, in UPPER case and inside URLs
(also percent-encoded). No planted name is in Faker's en_US name lists, so no pseudonym can
coincide with one by chance.
"""
from __future__ import annotations

import datetime as _dt
import json
import re
from urllib.parse import quote

FIRST = ["Ottoline", "Peregrine", "Isolde", "Cassius", "Leopoldine", "Evander", "Seraphina",
         "Lysander", "Wilhelmina", "Barnaby", "Clementine", "Ignatius", "Thaddeus", "Percival"]
LAST = ["Wexworth", "Brackenridge", "Falkenrath", "Varnavides", "Quillfeather", "Ormsbury",
        "Thistlewood", "Marchbanks", "Pendergrast", "Ravensworth", "Stirlingshaw", "Blackwoodley",
        "Aldermoor", "Fenwickshire"]
COMPANION_FIRST = ["Florizel", "Ambrosine", "Hieronymus", "Aldous", "Octavia", "Zorblax",
                   "Quintessa", "Marigold", "Bartholomew", "Euphemia", "Cornelius", "Philippa",
                   "Tiberius", "Rosamund"]
COMPANION_LAST = ["Quintavelle", "Larkspurrow", "Hollingbrooke", "Merriweather", "Dunmorrow",
                  "Ashcombe", "Farthingale", "Greystoke", "Winterbourne", "Crestwood",
                  "Pemberley", "Thornbury", "Wolfenden", "Kingsleigh"]
#: issue 11: a friend named only in free text, with no context word and no key ("the parcel for
#: Wojsława Kettelbrück"), and a payee named by a label alone ("Beneficiary: Drąsutis")
FRIEND_FIRST = ["Wojsława", "Ørjanvild", "Gunnvåra", "Radosława", "Thorvaldine", "Jaroslavka",
                "Eskilda", "Bożysław", "Ingridunn", "Władysia", "Sigvalde", "Dobromira",
                "Hallbjørna", "Przemysława"]
FRIEND_LAST = ["Kettelbrück", "Mjøsvangen", "Brzęczyk", "Hallvardsøy", "Szczepkowiak", "Drąsutis",
               "Vollertsen", "Żmijewska", "Gjerstadhaug", "Wróblewiczka", "Kvernmoen", "Ołdakowska",
               "Rønnestadli", "Kędzierzawa"]
#: issue 11, sixth round: a neighbour named in a lower-case message (a names-dataset first name,
#: a surname no dictionary knows) and a signature whose surname is an English word
LOWER_FIRST = ["wiesława", "radomir", "teodozja", "bogumiła", "sławomira", "zdzisława", "lechosław",
               "bronisława", "czesława", "wiesława", "radomir", "teodozja", "bogumiła", "sławomira"]
LOWER_LAST = ["kettelwąs", "brzozowiak", "mjøsbakken", "hallgrimsøy", "szczerbinka", "drąsowicz",
              "vollerud", "żmijowska", "gjerdrumli", "wróbelczyk", "kvernstad", "ołdaczyk",
              "rønnevik", "kędzierka"]
SIGN_FIRST = ["Ysoldine", "Aurelian", "Marisande", "Corvinus", "Elowenna", "Tristram", "Gwendolyth",
              "Peregrina", "Lucasta", "Fabrizius", "Honorine", "Ambrosius", "Severina", "Leocadio"]
SIGN_LAST = ["Thimble", "Lantern", "Kettle", "Saddle", "Quiver", "Tinder", "Bramble", "Ladle",
             "Spindle", "Trellis", "Mortar", "Pennant", "Satchel", "Gable"]
#: issue 11, seventh round: the speaker of a quote, named by no other context (a word no
#: dictionary or gazetteer knows)
QUOTE_LAST = ["Brannholtz", "Quistrebbe", "Vellacourt", "Dromsgaard", "Ostervilde", "Kranzebeck",
              "Yarrowfield", "Thorsgrimm", "Pellinore", "Zaborsky", "Ulvestadt", "Merrimont", "Havelbrock",
              "Istvanek"]
#: issue 11, eighth round: a name in brackets after a role, an introduction in German, a
#: booking record's SURNAME/GIVEN name in capitals, keys of a German CRM
BRACKET_FIRST = ["Henrietta", "Rhiannon", "Tiberius", "Ottoline", "Leontyne", "Cordelius", "Isolde",
                 "Maximinus", "Euphrasia", "Lysander", "Philippa", "Evander", "Clementine", "Aurelio"]
INTRO_FIRST = ["Wendeline", "Gotthilde", "Ermentrud", "Hildegunde", "Liutgard", "Adalwine", "Irmengard",
               "Brunhilda", "Sieglinde", "Walburga", "Kunigunde", "Rotraut", "Edeltraud", "Gertrudis"]
INTRO_LAST = ["Dittrichsen", "Oberhausler", "Kleinschmidtke", "Wendelbrecht", "Faltermeyerl", "Grunewaldt",
              "Schimmelpfeng", "Rauschenbachl", "Zwirnmann", "Hollerbachs", "Eichelkrautt", "Sonnleitnerr",
              "Weidenhoferl", "Birkenstamm"]
PNR_LAST = ["QUILLFEATHER", "MARROWDALE", "STORMWICKE", "PENHALIGAN", "ASHCOMBRE", "TREVANIONN",
            "KILBRANNOCH", "WYNDHAMSLEY", "DUNSTERVALE", "HARROWGATE", "MORWENSTOW", "BRACKENBURY",
            "FELLWATHER", "GLASTONLEIGH"]
#: issue 11, ninth round: a name answered in a Spanish transcript written in one message, a
#: person object of a system trajpipe has no keys for ("applicants": [{"fn": .., "ln": ..}]), a
#: lower-case name in an agent's note
TRANSCRIPT_FIRST = ["Eulalina", "Maitane", "Ainhize", "Begoñita", "Itxasne", "Garazine", "Nekane",
                    "Zuriñe", "Arantxeta", "Edurnea", "Igotza", "Leirea", "Miren", "Oihana"]
TRANSCRIPT_LAST = ["Urquizaberri", "Etxegoienea", "Arrizabalogui", "Olaizolatza", "Berasategiz",
                   "Zubizarretta", "Goikoetxeaz", "Larrañagaz", "Mendizabalez", "Aranburuz",
                   "Iturraldez", "Agirregabiriaz", "Lasarteguiz", "Sarasolaz"]
APPLICANT_FIRST = ["Gwenllian", "Angharadh", "Bleddynn", "Cerridwenn", "Dilysia", "Eluneda", "Ffionna",
                   "Gwawrith", "Heddwynn", "Iolanthae", "Llinosa", "Meinirr", "Nestaith", "Olwenna"]
APPLICANT_LAST = ["Prytherchau", "Llewelydd", "Gruffyddon", "Cadwaladrys", "Vaughanydd", "Rhydderchon",
                  "Meredyddau", "Trefforest", "Penrhynog", "Glyndyfrdwy", "Aberdaronn", "Caerwysog",
                  "Bodfarion", "Llanrwstan"]
NOTE_FIRST = ["ignatia", "perpetua", "rosamunda", "eudoxia", "filomena", "gaudencia", "hermelinda",
              "inocencia", "jacinta", "leocadia", "macrina", "nicanora", "olimpia", "prudencia"]
NOTE_LAST = ["featherstonehaugh", "cholmondeleigh", "marjoribankes", "dalziellan", "menziesworth",
             "colquhounie", "urquhartson", "farquharsen", "auchinleckie", "drummondale", "buchananby",
             "galbraithen", "mackintoshire", "lamontagne"]
#: issue 11, tenth round: a name after chained titles ("Frau Dr."), a nickname in brackets, a
#: record id in a "PREFIX-digits" shape after "donor ID", a PESEL with no label, a Discord tag, a
#: French plate, a phone as a CSV field
TITLED_FIRST = ["Hannelorea", "Gottfrieda", "Irmtraudis", "Waltrudis", "Adelgunda", "Brunhildis",
                "Kunigundea", "Mechthildis", "Notburgae", "Roswithae", "Sieglindea", "Theodelinda",
                "Ulrikea", "Walburgis"]
TITLED_LAST = ["Zwickauer-Brandt", "Rauschenbach-Moller", "Tiefenbrunnerl", "Lammerskotten",
               "Muckenhauptl", "Wohlfahrter", "Spiessbacherl", "Dietzenbacher", "Ebersbergerl",
               "Pfistererl", "Sauerwaldt", "Brommelkampf", "Kuhnelts", "Hohenlohr"]
NICK = ["Gerrita", "Hennie", "Joostje", "Marloesa", "Sietskea", "Wietske", "Femkea", "Anoukje",
        "Lieke", "Roosje", "Tessae", "Noortje", "Fleurtje", "Ilseke"]
#: issue 11, eleventh round: a name in capitals with particles under an owner object, a subscriber
#: number under "msisdn", a codice fiscale and a UPI handle with no label, a lower-case name in an
#: e-mail header, a plot-number street, a year-like Australian postcode, a router's MAC address
CAPS_FIRST = ["ESMERALDINA", "FILOMENIA", "GUMERSINDA", "HERMENEGILDA", "IRMENGARDA", "JUSTINIANA",
              "LEOVIGILDA", "MAXIMILIANA", "NEPOMUCENA", "OTILDEA", "PRISCILIANA", "QUITERIANA",
              "ROSENDINA", "SATURNINA"]
CAPS_LAST = ["QUINTANILLAZ", "VILLASECARRA", "BARRIONUEVOZ", "CASTRILLONES", "ALBARRACINEZ",
             "MONTESDEOCAS", "PEÑALOSARES", "VALDERRAMOZ", "ZORRILLAGAS", "ARRIZABALAGO",
             "ECHEVERRITZ", "GOICOECHEAS", "LIZARRAGOITI", "URQUIZABALD"]
HDR_FIRST = ["ottolinde", "wilhelmeen", "geertruida", "hendrikje", "jacomijntje", "aaltjemien",
             "reinoutje", "sjoerdina", "tjitskea", "wobbelina", "fokeltje", "hiltjemien", "jeltsjea",
             "trijntjea"]
HDR_LAST = ["vandermeulenbergh", "oostenbrinckx", "wijngaardenhove", "kortenhoevel", "zuidervaartje",
            "hoogstratenus", "lanckhorstink", "rietveldtsma", "boekhorstinga", "dijkhuizenius",
            "spijkerboerma", "woltersumink", "haverkampsma", "stellingwerfa"]
PLOT_STREET = ["Adetokunboh", "Olumuyiwah", "Babatundeh", "Oluwaseyih", "Ayodejih", "Chukwuemekah",
               "Ikechukwuh", "Nnamdikah", "Obafemih", "Temitopeh", "Oluwadamih", "Akinwandeh",
               "Ifeanyichukh", "Abiodunh"]
#: issue 11, twelfth round: an XML waybill's recipient and postcode, an HL7 PID segment (family and
#: given name, compact birth date, record number), a person in an attachment's file name, a name
#: in kanji before 様, a 17-digit game account id with no label
XML_LAST = ["MUNTEANUSCU", "POPOVICESCU", "DRAGOMIRESCU", "IONASCUTEL", "VLADUTESCU", "CONSTANTINIU",
            "MARINESCOVA", "STANCULESCA", "BALANESCUL", "ENACHESCUS", "GHEORGHITAS", "TANASESCUR",
            "RADULESCUTA", "NEAGOESCUM"]
HL7_FIRST = ["QUENTILLA", "ROSAMUNDE", "EGLANTINA", "FLORIZELLE", "GWENDOLYNE", "HYACINTHA", "ISOLDINE",
             "JESSAMINA", "LAVINIANE", "MIRABELLIA", "NERISSANE", "OPHELINDA", "PERPETUINA", "ROSALINDEA"]
HL7_LAST = ["ABERNATHYS", "BLACKADDERS", "CRICHTONSON", "DALRYMPLES", "ELPHINSTONE", "FOTHERINGAM",
            "GILLESPIEZ", "HALDANESON", "INGLISBURN", "JARDINESON", "KINNAIRDS", "LIVINGSTOUN",
            "MONCRIEFFE", "NAPIERTON"]
FILE_FIRST = ["tobiasz", "radoslaw", "przemyslaw", "wojciech", "grzegorz", "zbigniew", "miroslaw", "boguslaw",
              "jaroslaw", "wieslaw", "slawomir", "mieczyslaw", "czeslaw", "bronislaw"]
FILE_LAST = ["wrzesniewskik", "brzeczyszczyk", "szczepankiewiczl", "grzybowskiew", "chrzanowskiex",
             "wojciechowskiey", "przybylskiez", "zdziebkowskia", "kwiatkowskieb", "pietrzykowskic",
             "szymanowskied", "jablonowskief", "sobieszczanskig", "lewandowskieh"]
KANJI = ["山本 健一", "中村 美咲", "小林 翔太", "加藤 陽菜", "吉田 大輔", "山田 結愛", "佐々木 蓮", "松本 葵",
         "井上 颯", "木村 凛", "林 悠真", "清水 芽依", "山崎 湊", "森 紬"]
TABLE_FIRST = ["Wietske", "Gerlof", "Hiltje", "Sjoerdtje", "Jildou", "Durkje", "Tjitske", "Wopke", "Ysbrand",
               "Oepke", "Lolkje", "Tsjalling", "Rinske", "Wybren"]
TABLE_LAST = ["Hoekstraat", "Dijkstraan", "Bergsmaar", "Postmaen", "Wiersmaat", "Zijlstrael", "Kuipersma",
              "Veenstrao", "Bosmaeren", "Terpstraal", "Hiemstrae", "Nautaer", "Faberstra", "Jellemaar"]
HINDI = ["कविता वर्मा", "सुनील यादव", "अनीता मिश्रा", "राजेश गुप्ता", "पूजा तिवारी", "मनोज पाण्डेय", "रेखा चौहान",
         "विकास ठाकुर", "सीमा दुबे", "अजय सक्सेना", "नेहा श्रीवास्तव", "दीपक जोशी", "ममता रस्तोगी", "संजय भार्गव"]
#: Names in their own script for the fourteenth round (Arabic after "my name is", Hebrew after
#: "I am": first and family names of the names-dataset lists)
ARABIC = ["سلمى فؤاد الحربي", "ليان ماجد العمري", "رنا سامي الدوسري", "هند وليد الشمري", "دانة فهد القرشي",
          "ريم عادل الزهراني", "جود خالد الغامدي", "لمى ناصر العتيبي", "نوف طارق المالكي", "شهد زياد القحطاني",
          "غادة باسم الشهري", "مها رائد الحارثي", "سارة هشام البلوي", "عبير سعد الجهني"]
HEBREW = ["נועה פרידמן", "תמר אזולאי", "מיכל ביטון", "שירה אוחיון", "רוני מזרחי", "ליאור פרץ", "נטע דהן",
          "הדר כץ", "עדי אברהם", "יעל עמר", "דניאל יוסף", "עומר כהן", "אורי לוי", "יוסף דוד"]
TR_MONTHS = ["Ocak", "Şubat", "Mart", "Nisan", "Mayıs", "Haziran", "Temmuz", "Ağustos", "Eylül", "Ekim", "Kasım", "Aralık"]
#: the fourteenth round's kinds are planted from this persona on (names in Arabic and Hebrew
#: script, a British plate, a VIN, a Turkish birth date, a Latvian address after its label)
FOURTEENTH_FROM = 8
#: the fifteenth round's kinds are planted from this persona on (a SQL INSERT row and the same
#: names in their genitive, a Polish birth date, a vCard address, an HTML label cell)
FIFTEENTH_FROM = 10
#: the sixteenth round's kinds are planted from this persona on (an ASC X12 claim's person, a home's
#: coordinates, an e-mail address with letters beyond ASCII, a Marathi introduction after a
#: greeting, a Hindi name before "ji", a Singapore postcode glued to its "S")
SIXTEENTH_FROM = 12
X12_LAST = ["OKONKWOBI", "ADEYEMIRO", "NWACHUKWAN", "OLUWASEGUNE", "EZEKWESILIO", "AKINTOLAYE", "OBIORAHEN",
            "UCHENDUMA", "IHEANACHOR", "ONYEKACHIE", "ADEBAYORIN", "CHIKWENDUL", "OKAFORIEDE", "NNAMDIKWE"]
X12_FIRST = ["ADAEZEN", "CHIDINMAH", "IFEOMARA", "NGOZIEKE", "AMARACHIN", "OBIAGELIA", "UZOAMAKE", "CHIOMARIA",
             "EBERECHIN", "NNEKAWU", "OLUCHINMA", "KAMSIYOCHI", "ZIKORALE", "SOMTOCHUK"]
MR_NAME = ["अनुजा देशमुखे", "सायली कुलकर्णेकर", "प्राजक्ता गोखलेकर", "मृणाल पाटणकरे", "शर्वरी जोगळेकर",
           "ऋतुजा भावसारे", "केतकी दातारकर", "गौरी ओकवडेकर", "मधुरा लेलेकर", "स्नेहल रानडेकर", "पल्लवी आपटेकर",
           "वैदेही करंदीकरे", "रसिका गाडगीळकर", "तेजस्विनी बापटकर"]
HI_JI = ["रोहिताश", "विनयेंद्र", "कुलदीपेश", "हरिवंशेश", "सत्यव्रतेश", "देवव्रतम", "यशवर्धनेश", "ज्ञानेन्द्रम",
         "वीरभद्रेश", "चन्द्रकेतुम", "भूपेन्द्रम", "नरेन्द्रेश", "शैलेन्द्रम", "धीरेन्द्रेश"]
PL_FIRST = ["Tomasz", "Łukasz", "Mateusz", "Janusz", "Dariusz", "Grzegorz", "Bartosz", "Tadeusz", "Ireneusz",
            "Mariusz", "Jakub", "Szymon", "Filip", "Dawid"]
PL_LAST = ["Wierzbicki", "Zieliński", "Lewandowski", "Wiśniewski", "Kamiński", "Dąbrowski", "Kozłowski",
           "Jankowski", "Wojciechowski", "Kwiatkowski", "Piotrowski", "Grabowski", "Pawłowski", "Michalski"]
PL_MONTHS_GEN = ["stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia", "września",
                 "października", "listopada", "grudnia"]
#: the nineteenth round's kinds are planted from this persona on (a ticket number under a key that
#: says nothing, a UK National Insurance number in text and under a key)
NINETEENTH_FROM = 9
#: the twentieth round's kinds are planted from this persona on (a call record's CSV row with a
#: number after a time, an agent's lower-case introduction, a surname spelled letter by letter, a
#: chat nick in brackets, a masked card's end, a Chinese repairman's name after the role, initials
#: and a family name)
TWENTIETH_FROM = 9
TW_AGENT = ["rosalind", "desmond", "ottilie", "cornelius", "philippa", "leopold", "henrietta", "augustin",
            "bartholomew", "wilhelmina", "georgiana", "evangeline", "maximilian", "rosalind"]
TW_SPELLED = ["q u a r s h i e", "o y e d e p o", "z b i n d e n", "k w a r t e n g", "f e i t o s a",
              "m b u g u a", "t s h a b a", "h u y g e n s", "a d j e i k u m", "w o j n a r",
              "b o a t e n g", "n j o r o g e", "g y a s i", "l e k g o t h"]
TW_CJK = ["王建平", "李国栋", "张志远", "刘德胜", "陈立新", "杨振华", "黄海涛", "赵永刚", "吴建军", "周晓东",
          "徐国庆", "孙立平", "马卫东", "朱建华"]
TW_INITIAL = ["K. Oyelaran", "T. Achterberg", "M. Szczepanik", "R. Vandermolen", "J. Abernethy", "P. Okonkwo",
              "S. Lindqvist", "L. Tremblay", "D. Kowalczyk", "H. Nakashima", "A. Fitzwilliam", "E. Oyelowo",
              "C. Whitcombe", "B. Okonkwo"]
#: the twenty-first round's kinds are planted from this persona on (a porting export's rows with no
#: header - names in capitals, a ZIP after the state -, a nickname in quotes, a phone read in
#: Korean digits, a SWIFT payment's beneficiary, a letter's address block, a chat speaker's dotted
#: handle, a doctor's name before his title in Chinese)
TWENTY_FIRST_FROM = 9
#: the twenty-second round's kinds are planted from this persona on (a directory printout's aligned
#: fields with a login, a help desk requester's id as a JSON number, a front desk's visitor in a log
#: line, a rider's number and name in brackets)
TWENTY_SECOND_FROM = 9
TW2_VISITOR = ["ROSALBA QUINTAVALLE", "EDELTRAUD OBERMAIER", "PRISCILLIANO DUARTE", "WALBURGA NIEDERMEIER",
               "GUMERSINDO ALBARRACIN", "ERMENEGILDA PASCUAL", "THEODORIC ASHCOMBE", "SIGISMUND VOLLRATH",
               "AURELIANA BETTANCOURT", "FLORENTYNA WIERZBICKA", "CASILDA ECHEVERRIA", "LEOPOLDINE HAUSWIRTH",
               "BALDOMERO IRIGOYEN", "HROSWITHA KELLERMANN"]
TW2_RIDER = ["Wendelin Q.", "Ottokar P.", "Radegund S.", "Eberhard T.", "Gotthold V.", "Irmingard W.", "Reinhold Z.",
             "Walpurga K.", "Ludger H.", "Hedwig M.", "Bertram N.", "Adelheid R.", "Siegfried B.", "Mechthild D."]
#: the twenty-third round's kinds are planted from this persona on (a Russian name with its
#: patronymic in a lower-case transcript, a "SURNAME, GIVEN" cell under an Armenian header, a plate
#: spelled in Lithuanian letters and digit words, a donor's key, a birth date said in Turkish words)
TWENTY_THIRD_FROM = 9
TW3_RU = ["доронин", "гаврилов", "ширяев", "колесников", "тарасов", "евдокимов", "аксенов", "фомичев", "лыткин",
          "мартынов", "селиванов", "грибоедов", "ершов", "прохоров"]
TW3_HY = ["KHACHATRYAN", "SARGSYAN", "GRIGORYAN", "HOVHANNISYAN", "MKRTCHYAN", "ABRAHAMYAN", "AVETISYAN",
          "MELIKYAN", "GASPARYAN", "HARUTYUNYAN", "KARAPETYAN", "MANUKYAN", "TER-PETROSYAN", "SIMONYAN"]
TW3_DONOR = ["Hermenegild Oyelaran", "Cunegonde Ashdown", "Wilfried Okparaeke", "Brunhilde Castellane",
             "Athanasius Merriwether", "Gwendolyn Ugochukwu", "Leopold Fairbrass", "Ottilie Nwachukwu",
             "Sebastiano Quickenden", "Mechtild Adebayo-Ross", "Florian Wetherspoon", "Philippa Oduya",
             "Crispin Abernathy-Okoro", "Rosamund Eberhardt"]
#: the twenty-fourth round's kinds are planted from this persona on (a "name_en: ..." line beside
#: lines of other keys, a Greek surname in a two-column table, a Malayalam name after a kin word, a
#: claim number after the Hindi word "number", a Korean name before "씨", a Chinese client key)
TWENTY_FOURTH_FROM = 9
TW4_EN = ["QUDSIYA FARRAH ALZUBAIDI", "TAMEEM NIZAR HADDADIN", "RAWAN SUHAIL QATAMIN", "ZAIDOUN AMER KHREISAT",
          "LUBNA HASSAN ALTARAWNEH", "NIDAL FAWWAZ ALSHDAIFAT", "HIBA MUNTHER ALRAWASHDEH", "OSAID ZIYAD OBEIDAT",
          "SUHAD IYAD ALMAAYTAH", "FARIS RABEE ALQUDAH", "DUHA TAYSEER BANIHANI", "MOAYAD KAMAL ALZYOUD",
          "RAHAF NABEEL ALHIYARI", "YAZAN SAMER ALKHALAILEH"]
TW4_GR = ["ΣΤΑΥΡΟΠΟΥΛΟΥ", "ΚΑΡΑΜΑΝΛΙΔΟΥ", "ΠΑΠΑΔΗΜΗΤΡΙΟΥ", "ΧΑΤΖΗΔΑΚΗ", "ΜΠΟΥΡΝΙΑΔΟΥ", "ΞΑΝΘΟΠΟΥΛΟΥ", "ΔΡΑΓΟΥΜΑΝΟΥ",
          "ΚΟΥΤΣΟΥΡΙΔΟΥ", "ΛΙΑΚΟΠΟΥΛΟΥ", "ΜΑΥΡΟΓΙΑΝΝΗ", "ΝΙΚΟΛΑΪΔΟΥ", "ΠΕΤΡΟΠΟΥΛΟΥ", "ΡΟΥΣΣΟΠΟΥΛΟΥ", "ΤΣΑΚΑΛΩΤΟΥ"]
TW4_ML = ["അനുപമ", "ശ്രീലക്ഷ്മി", "ഗോപിക", "അഭിരാമി", "നിവേദിത", "ദേവിക", "അരുന്ധതി", "കീർത്തന", "മീനാക്ഷി", "അനഘ",
          "ആതിര", "ഐശ്വര്യ", "ഗായത്രി", "സൗപർണിക"]
TW4_KO = ["한지훈", "노은채", "도승우", "변서연", "석민준", "설하린", "탁지안", "편도윤", "길서아", "표하준", "위예린", "남궁민",
          "제시우", "방채원"]
TW4_CN = ["赵文博", "钱雨桐", "孙立军", "周慧敏", "吴俊杰", "郑雅琳", "冯志远", "陈思彤", "褚建华", "卫晓东", "蒋丽华",
          "沈浩然", "韩梦琪", "杨振宇"]
_LT_DIGITS = "nulis vienas du trys keturi penki šeši septyni aštuoni devyni".split()
_TR_DAYS = "bir iki üç dört beş altı yedi sekiz dokuz on".split()
_TR_MONTHS = "ocak şubat mart nisan mayıs haziran temmuz ağustos eylül ekim kasım aralık".split()
TW1_FIRST = ["PERPETUA", "EUSEBIO", "CASIMIR", "LEOCADIA", "IGNATIUS", "EULALIA", "JOLANDA", "TEODORA", "ANSELMO",
             "BENEDIKTA", "COSIMA", "EMERIC", "FULVIA", "HILDEGARD"]
TW1_OTHER = ["ISIDORA", "JOVITA", "KONSTANTIN", "LUDMILA", "PERPETUA", "EUSEBIO", "CASIMIR", "LEOCADIA", "IGNATIUS",
             "EULALIA", "JOLANDA", "TEODORA", "ANSELMO", "BENEDIKTA"]
TW1_LAST = ["THISTLEWOOD", "PENNEFATHER", "VOSSBERG", "QUARSHIE", "HAVERTY", "OKONJO", "FAIRWEATHER", "ABERNATHY",
            "FERRANTE", "LINDGREN", "THISTLEWOOD", "PENNEFATHER", "VOSSBERG", "QUARSHIE"]
TW1_CJK = ["林志明", "郭建宏", "何文彬", "罗振宇", "梁思远", "宋立群", "谢宏伟", "韩志刚", "唐国平", "冯建民",
           "曹永明", "彭德华", "曾国伟", "肖振东"]
_KO_DIGITS = "공일이삼사오육칠팔구"
#: the thirteenth round's kinds are planted from this persona on (a table, a Hindi introduction,
#: digits spoken in a transcript, an id a few words after its label)
THIRTEENTH_FROM = 6
#: the twelfth round's kinds are planted from this persona on: personas 0-2 keep their earlier
#: records, whose name words have no first-fake collision across records (the consistency test
#: in tests/test_anonymize_structure.py needs that; more name words per record make collisions
#: likely)
TWELFTH_FROM = 3
N_PERSONAS = 12  # personas in the canary test
MAX_PERSONAS = len(FIRST)
POLICY = ("# Airline support policy (sample)\nConfirm the customer's user id before any change. "
          "Ask for explicit confirmation (yes) before any booking change.")


def _luhn(prefix: str, n: int = 16) -> str:
    digits = [int(c) for c in prefix]
    while len(digits) < n - 1:
        digits.append((len(digits) * 7 + 3) % 10)
    total = 0
    for i, d in enumerate(reversed(digits)):
        d2 = d * 2 if i % 2 == 0 else d
        total += d2 - 9 if d2 > 9 else d2
    return "".join(map(str, digits)) + str((10 - total % 10) % 10)


def _iban(i: int) -> str:
    """A valid GB IBAN (check digits from python-stdnum) unique to persona ``i``."""
    from stdnum import iban as std_iban

    bban = f"QAXB{404040 + i:06d}{90817263 + i * 7919:08d}"
    return "GB" + std_iban.calc_check_digits("GB00" + bban) + bban


def persona(i: int) -> dict:
    """The ``i``-th planted persona (``0 <= i < N_PERSONAS``): every value distinctive."""
    first, last = FIRST[i], LAST[i]
    cf, cl = COMPANION_FIRST[i], COMPANION_LAST[i]
    card = _luhn(f"45391{i:02d}")
    return {
        "first": first, "last": last, "companion_first": cf, "companion_last": cl,
        "email": f"{first.lower()}.{last.lower()}{31 + i}@canary-mail.example.org",
        "user_id": f"{first.lower()}_{last.lower()}_{7301 + i * 13}",
        "reservation": f"Z{i % 10}QK{chr(65 + i)}7",
        "payment_id": f"credit_card_{9137011 + i * 1009}",
        "gift_card": f"gift_card_{8246013 + i * 2003}",
        # (a leading zero: a bare four-digit number is also a process id or a count in a log line -
        # "9285" in a full suite's stderr was one: fifteenth round)
        "last_four": f"0{(317 + i * 61) % 1000:03d}",
        "card": " ".join(card[j:j + 4] for j in range(0, 16, 4)),
        "street": f"{4417 + i} {last}mere Lane",
        "unit": f"Suite {613 + i}",
        "zip": f"{90817 + i * 3}",
        "city": f"{cf}ville",
        "dob": f"19{61 + i}-0{1 + i % 9}-1{i % 10}",
        "companion_dob": f"19{40 + i}-1{i % 3}-2{i % 8}",
        "phone": f"(415) 738-{4100 + i * 7}",
        "password": f"Hunter{i}-Qz!{731 + i}",
        "api_key": f"sk-canary{i:02d}Zq8LmX3vB7nT2wKp9R",
        "session_id": f"sess{i:02d}c4n4ry9f8e7d6c5b",
        "token": f"tok{i:02d}Xc4n4ryQw7Er5Ty",
        "jwt": f"eyJhbGciOiJIUzI1NiJ9.eyJjYW5hcnkiOiJ{i:02d}xyzw.c4n4ry{i:02d}SigNaTuReAbc",
        "order_id": f"#W{7731001 + i * 97}",
        # issue 11: kinds no JSON key names in the free text
        "iban": _iban(i),
        "ssn": f"{521 + i}-{44 + i}-{7893 + i}",
        "uk_phone": f"020 7946 {321 + i * 11:04d}",
        "handle": f"{first[0].lower()}{last.lower()}{482 + i}",
        "account": f"{7302918845 + i * 1013}",
        "friend_first": FRIEND_FIRST[i], "friend_last": FRIEND_LAST[i],
        "payee": FRIEND_LAST[(i + 5) % len(FRIEND_LAST)] + "ski",
        "card2": " ".join(_luhn(f"2221{i:02d}")[j:j + 4] for j in range(0, 16, 4)),  # Mastercard 2-series
        "intl_phone": f"67 818 {65 + i} 32",
        "eu_street": f"{last}gatan {44 + i}",
        "postcode": f"{66651 + i * 7}",
        # issue 11, fifth round: a grouped national phone with no phone word right before it,
        # and an address block whose street has no street noun and whose place no gazetteer knows
        "grouped_phone": f"71 6{i:02d} 3{38 + i}",
        "block_street": f"{last}moen {17 + i}",
        "block_postcode": f"{38512 + i * 11}",
        # issue 11, sixth round: a lower-case name, a signature whose surname is a word, a phone
        # number alone on a line, a 3-digit postcode after a street
        "lower_first": LOWER_FIRST[i], "lower_last": LOWER_LAST[i],
        "sign_first": SIGN_FIRST[i], "sign_last": SIGN_LAST[i],
        "line_phone": f"44{i % 10} 62{71 + i}",
        "street3": f"{last}vegur {21 + i}",
        "postcode3": f"{680 + i * 3}",
        # issue 11, seventh round: the speaker of a quote, the two streets of a corner, a number
        # before its line's label in a contact block, a street line above an apartment line
        "quote_last": QUOTE_LAST[i],
        "corner_a": f"{cf}wick Knoll", "corner_b": f"{last}strand Spur",
        "fax": f"004{i % 10}1198{i:03d}36",
        "block_street2": f"{88120 + i} {last}gränd {30 + i}",
        # issue 11, eighth round: a name in brackets after a role, a German introduction and CRM
        # keys, a booking record's name element, a date of birth day first, digits said one by
        # one after "social", an id after "claim #"
        "bracket_first": BRACKET_FIRST[i],
        "intro_first": INTRO_FIRST[i], "intro_last": INTRO_LAST[i],
        "pnr_last": PNR_LAST[i], "pnr_first": SIGN_FIRST[(i + 4) % len(SIGN_FIRST)].upper() + "E",
        "crm_plz": f"{79098 + i * 13}", "crm_kunde": f"K-{448120 + i * 31}",
        "eu_dob": f"{10 + i}.0{1 + i % 9}.19{52 + i}",
        "spaced_ssn": " ".join(f"{611 + i}") + " - " + " ".join(f"{52 + i}") + " - " + " ".join(f"{3904 + i}"),
        "claim": f"WC-{88123 + i * 17}",
        # issue 11, ninth round: a Spanish DNI and a UK plate answered in a transcript, a person
        # object by its structure, a lower-case name in an agent's note, a driving licence number
        # inside its document object
        "tr_first": TRANSCRIPT_FIRST[i], "tr_last": TRANSCRIPT_LAST[i],
        "dni": f"{30927418 + i * 1013}{'TRWAGMYFPDXBNJZSQVHLCKE'[(30927418 + i * 1013) % 23]}",
        "plate": f"KX{10 + i} B{chr(65 + i)}Z",
        "appl_first": APPLICANT_FIRST[i], "appl_last": APPLICANT_LAST[i],
        "note_first": NOTE_FIRST[i], "note_last": NOTE_LAST[i],
        "licence": f"K{88204130 + i * 37}",
        # issue 11, tenth round
        "titled_first": TITLED_FIRST[i], "titled_last": TITLED_LAST[i], "nick": NICK[i],
        "donor_id": f"BD-{'UKESNL'[i % 3 * 2:i % 3 * 2 + 2]}-{3381920 + i * 911}",
        "pesel": _pesel(i), "discord": f"{LAST[i].lower()[:6]}#{4471 + i}",
        "fr_plate": f"G{'ABCDEFGHJKLMNPQRSTVWXYZ'[i % 23]}-{418 + i}-T{'ABCDEFGHJKLMNPQRSTVWXYZ'[i % 23]}",
        "csv_phone": f"07555 {284 + i:03d} {190 + i:03d}",
        # issue 11, eleventh round
        "caps_first": CAPS_FIRST[i], "caps_last": CAPS_LAST[i], "msisdn": f"447700900{310 + i * 7:03d}",
        "codice_fiscale": _codice_fiscale(i), "upi": f"98450{32117 + i * 113}@okaxis",
        "hdr_first": HDR_FIRST[i], "hdr_last": HDR_LAST[i],
        "plot_street": f"Plot {14 + i}, {PLOT_STREET[i]} Way", "au_postcode": f"NSW {2010 + i}",
        "mac": f"a4:5e:{60 + i:02d}:d2:1f:{10 + i:02d}",
        # issue 11, twelfth round
        "xml_last": XML_LAST[i], "xml_zip": f"{400301 + i * 7}", "hl7_first": HL7_FIRST[i], "hl7_last": HL7_LAST[i],
        "hl7_dob": f"19{60 + i}0{1 + i % 9}{10 + i}", "mrn": f"MRN{55120 + i * 13}",
        "file_first": FILE_FIRST[i], "file_last": FILE_LAST[i], "kanji": KANJI[i],
        "steam": f"7656119820{4417733 + i * 1013:07d}", "twelfth": i >= TWELFTH_FROM,
        # issue 11, thirteenth round
        "tbl_first": TABLE_FIRST[i], "tbl_last": TABLE_LAST[i], "tbl_bsn": f"{311402115 + i * 97}",
        "tbl_persnr": f"{700120 + i}",
        "tbl_dob": f"19{70 + i}-0{1 + i % 9}-{12 + i}", "hindi": HINDI[i], "bvn": f"{22150918376 + i * 10103}",
        "spoken": " ".join(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")[int(d)]
                           for d in f"07{700 + i * 13}9{31 + i:02d}08"),
        "thirteenth": i >= THIRTEENTH_FROM,
        # issue 11, fourteenth round
        "arabic": ARABIC[i], "hebrew": HEBREW[i], "uk_plate": f"LK{21 + i} X{'ABCDEFGHJKLMNPRSTUVWXY'[i]}Z",
        "vin": f"WVWZZZ1KZ{'ABCDEFGHJ'[i % 9]}M{412583 + i * 17:06d}",
        "tr_dob": f"{3 + i} {TR_MONTHS[i % 12]} 19{70 + i}", "lv_street": f"Brīvības iela {118 + i}-{20 + i}",
        "lv_zip": f"LV-{1001 + i * 7}",
        "fourteenth": i >= FOURTEENTH_FROM,
        # issue 11, fifteenth round
        "pl_first": PL_FIRST[i], "pl_last": PL_LAST[i], "pl_first_gen": PL_FIRST[i] + "a",
        "pl_last_gen": PL_LAST[i][:-1] + "iego", "pl_zip": f"{31 + i}-{140 + i * 3:03d}",
        "pl_dob": f"{4 + i} {PL_MONTHS_GEN[i % 12]} 19{71 + i}", "pl_client": f"KL-{7120448 + i * 89}",
        "vcard_street": f"{4250 + i} rue Saint-Denis app. {6 + i}", "vcard_zip": f"H2J {2 + i % 7}K{8 - i % 7}",
        "fifteenth": i >= FIFTEENTH_FROM,
        # issue 11, sixteenth round
        "x12_last": X12_LAST[i], "x12_first": X12_FIRST[i], "x12_street": f"{1187 + i * 31} W ARMITAGE AVE APT {2 + i}R",
        "x12_zip": f"{60614 + i * 3}", "x12_dob": f"19{72 + i}0{1 + i % 9}{11 + i}",
        "geo": f"{51.4937 + i * 0.0113:.4f},{-0.1196 - i * 0.0071:.4f}",
        "idn_email": f"zoë.ødegård{i:02d}@fjordpost.example", "mr_name": MR_NAME[i], "hi_ji": HI_JI[i],
        "sg_zip": f"S{520211 + i * 17}", "sg_street": f"Blk {212 + i} Tampines St {23 + i}",
        "sixteenth": i >= SIXTEENTH_FROM,
        # issue 11, nineteenth round
        "tkt": _ticket(i), "nino": f"J{'ABCEGHJKLMNPRSTW'[i]} {10 + i:02d} {20 + i:02d} {30 + i:02d} {'ABCD'[i % 4]}",
        "nineteenth": i >= NINETEENTH_FROM,
        # issue 11, twentieth round
        "tw_msisdn": f"4479112{30017 + i * 37:05d}", "tw_agent": TW_AGENT[i], "tw_spelled": TW_SPELLED[i],
        "tw_nick": f"kasia_w{i:02d}r", "tw_mask": f"{7781 + i * 11}", "tw_cjk": TW_CJK[i], "tw_initial": TW_INITIAL[i],
        "twentieth": i >= TWENTIETH_FROM,
        # issue 11, twenty-first round
        "tw1_last": TW1_LAST[i], "tw1_first": TW1_FIRST[i], "tw1_last2": TW1_LAST[(i + 3) % 14],
        "tw1_first2": TW1_OTHER[i], "tw1_street": f"{14 + i} Birch Ct", "tw1_street2": f"{9 + i} Lake Rd",
        "tw1_swift_street": f"{88 + i} Verity Lane", "tw1_block_zip": f"DY{4 + i % 5} {7 - i % 5}QE",
        "tw1_port_acct": f"88-1221-0{i:02d}", "tw1_port_acct2": f"88-1221-1{i:02d}",
        "tw1_zip": f"{97301 + i * 11}", "tw1_zip2": f"{97701 + i * 13}",
        "tw1_nick": f"{NICK[i]}", "tw1_ko": " ".join("".join(_KO_DIGITS[int(d)] for d in g)
                                                   for g in ("010", f"{4821 + i * 7:04d}", f"{7735 + i * 3:04d}")),
        "tw1_acct": f"0044{19920387 + i * 131:08d}", "tw1_block_street": f"{19 + i} Ferry Bank",
        "tw1_handle": f"{FIRST[i][0].lower()}.{LAST[i].lower()}{i}", "tw1_cjk": TW1_CJK[i],
        "twenty_first": i >= TWENTY_FIRST_FROM,
        # issue 11, twenty-second round
        "tw2_login": f"zq{4410 + i * 17}u", "tw2_req_id": 48120937716 + i * 1013, "tw2_visitor": TW2_VISITOR[i],
        "tw2_rider_id": f"B-KR-{417 + i * 7:04d}", "tw2_rider": TW2_RIDER[i],
        # (the parts, as the anonymizer replaces a name in capitals word by word)
        "tw2_vis_first": TW2_VISITOR[i].split()[0], "tw2_vis_last": TW2_VISITOR[i].split()[1],
        "tw2_rider_first": TW2_RIDER[i].split()[0],
        "twenty_second": i >= TWENTY_SECOND_FROM,
        # issue 11, twenty-third round
        "tw3_patr": f"{TW3_RU[i]} игорь леонидович", "tw3_ru_last": TW3_RU[i], "tw3_hy": TW3_HY[i],
        "tw3_cell": f"{TW3_HY[i]}, ARMEN",
        "tw3_plate": "k m " + " ".join(_LT_DIGITS[int(d)] for d in f"{417 + i * 23:03d}"),
        "tw3_donor": TW3_DONOR[i], "tw3_donor_first": TW3_DONOR[i].split()[0], "tw3_donor_last": TW3_DONOR[i].split()[1],
        # (the name parts, as the anonymizer registers a name word by word, and the next row's name)
        "tw3_given": "игорь", "tw3_patronymic": "леонидович", "tw3_hy_given": "ARMEN", "tw3_hy_given2": "TIGRAN",
        "tw3_hy_next": TW3_HY[(i + 1) % N_PERSONAS] if (i + 1) % N_PERSONAS >= TWENTY_THIRD_FROM else TW3_HY[i],
        # (not "on", Turkish ten, alone before the month: "on may twenty" is English - a known limit)
        "tw3_dob": f"{_TR_DAYS[i % 9]} {_TR_MONTHS[i % 12]} doksan {_TR_DAYS[(i + 3) % 9]}",
        "twenty_third": i >= TWENTY_THIRD_FROM,
        # issue 11, twenty-fourth round
        # (the parts too, as the anonymizer replaces a name in capitals word by word)
        "tw4_en": TW4_EN[i], "tw4_en_first": TW4_EN[i].split()[0], "tw4_en_mid": TW4_EN[i].split()[1],
        "tw4_en_last": TW4_EN[i].split()[-1], "tw4_gr": TW4_GR[i], "tw4_ml": TW4_ML[i],
        "tw4_claim": f"HB/PNQ/24/{71234 + i * 37:07d}", "tw4_ko": TW4_KO[i], "tw4_cn": TW4_CN[i],
        "twenty_fourth": i >= TWENTY_FOURTH_FROM,
    }


def _ticket(i: int) -> str:
    """A 13-digit ticket number unique to persona ``i`` that is no valid EAN-13 (python-stdnum):
    an EAN's check digit would make it a product's barcode, which stays."""
    from stdnum import ean

    n = f"{2209381746551 + i * 7919}"
    return n if not ean.is_valid(n) else n[:-1] + str((int(n[-1]) + 1) % 10)


def _codice_fiscale(i: int) -> str:
    """A valid Italian codice fiscale (check letter by python-stdnum) unique to persona ``i``."""
    from stdnum.it import codicefiscale

    body = f"{'BCDFGLMNPRSTVZ'[i % 14]}RSMRA{80 + i % 10:02d}T{10 + i:02d}A562"
    return body + codicefiscale.calc_check_digit(body)


def _pesel(i: int) -> str:
    """A valid PESEL (date 19YY-MM-DD, check digit by the official weights 1 3 7 9)."""
    body = f"{80 + i % 10:02d}0{1 + i % 9}{10 + i:02d}{1234 + i * 7:04d}"
    check = (10 - sum(int(d) * w for d, w in zip(body, (1, 3, 7, 9, 1, 3, 7, 9, 1, 3))) % 10) % 10
    return body + str(check)


def _twelfth(p: dict, *keys: str) -> list[str]:
    """The twelfth round's values of persona ``p`` (planted from :data:`TWELFTH_FROM` on)."""
    return [p[k] for k in keys] if p["twelfth"] else []


def _thirteenth(p: dict, *keys: str) -> list[str]:
    """The thirteenth round's values of persona ``p`` (planted from :data:`THIRTEENTH_FROM` on)."""
    return [p[k] for k in keys] if p["thirteenth"] else []


def _fourteenth(p: dict, *keys: str) -> list[str]:
    """The fourteenth round's values of persona ``p`` (planted from :data:`FOURTEENTH_FROM` on)."""
    return [p[k] for k in keys] if p["fourteenth"] else []


def _fifteenth(p: dict, *keys: str) -> list[str]:
    """The fifteenth round's values of persona ``p`` (planted from :data:`FIFTEENTH_FROM` on)."""
    return [p[k] for k in keys] if p["fifteenth"] else []


def _sixteenth(p: dict, *keys: str) -> list[str]:
    """The sixteenth round's values of persona ``p`` (planted from :data:`SIXTEENTH_FROM` on)."""
    return [p[k] for k in keys] if p["sixteenth"] else []


def _nineteenth(p: dict, *keys: str) -> list[str]:
    """The nineteenth round's values of persona ``p`` (planted from :data:`NINETEENTH_FROM` on)."""
    return [p[k] for k in keys] if p["nineteenth"] else []


def _twentieth(p: dict, *keys: str) -> list[str]:
    """The twentieth round's values of persona ``p`` (planted from :data:`TWENTIETH_FROM` on)."""
    return [p[k] for k in keys] if p["twentieth"] else []


def _twenty_first(p: dict, *keys: str) -> list[str]:
    """The twenty-first round's values of persona ``p`` (planted from :data:`TWENTY_FIRST_FROM` on)."""
    return [p[k] for k in keys] if p["twenty_first"] else []


def _twenty_second(p: dict, *keys: str) -> list[str]:
    """The twenty-second round's values of persona ``p`` (planted from :data:`TWENTY_SECOND_FROM` on)."""
    return [str(p[k]) for k in keys] if p["twenty_second"] else []


def _twenty_third(p: dict, *keys: str) -> list[str]:
    """The twenty-third round's values of persona ``p`` (planted from :data:`TWENTY_THIRD_FROM` on)."""
    return [str(p[k]) for k in keys] if p["twenty_third"] else []


def _twenty_fourth(p: dict, *keys: str) -> list[str]:
    """The twenty-fourth round's values of persona ``p`` (planted from :data:`TWENTY_FOURTH_FROM` on)."""
    return [str(p[k]) for k in keys] if p["twenty_fourth"] else []


def typed_values(p: dict) -> dict[str, list[str]]:
    """A persona's planted values per evaluation type (see :data:`pipeline.anonymize.eval.CATEGORIES`)."""
    return {
        "NAME": [p["first"], p["last"], p["companion_first"], p["companion_last"], p["friend_first"],
                 p["friend_last"], p["payee"], p["lower_first"], p["lower_last"], p["sign_first"], p["sign_last"],
                 p["quote_last"], p["bracket_first"], p["intro_first"], p["intro_last"], p["pnr_last"],
                 p["pnr_first"], p["tr_first"], p["tr_last"], p["appl_first"], p["appl_last"],
                 p["note_first"], p["note_last"], p["titled_first"], p["titled_last"], p["nick"],
                 p["caps_first"], p["caps_last"], p["hdr_first"], p["hdr_last"],
                 *_twelfth(p, "xml_last", "hl7_first", "hl7_last", "file_first", "file_last", "kanji"),
                 *_thirteenth(p, "tbl_first", "tbl_last", "hindi"), *_fourteenth(p, "arabic", "hebrew"),
                 *_fifteenth(p, "pl_first", "pl_last", "pl_first_gen", "pl_last_gen"),
                 *_sixteenth(p, "x12_last", "x12_first", "mr_name", "hi_ji"),
                 *_twentieth(p, "tw_agent", "tw_cjk", "tw_initial"),
                 *_twenty_first(p, "tw1_last", "tw1_first", "tw1_last2", "tw1_first2", "tw1_nick", "tw1_cjk"),
                 *_twenty_second(p, "tw2_vis_first", "tw2_vis_last", "tw2_rider_first"),
                 *_twenty_third(p, "tw3_patr", "tw3_ru_last", "tw3_given", "tw3_patronymic", "tw3_cell", "tw3_hy",
                                "tw3_hy_given", "tw3_hy_given2", "tw3_hy_next", "tw3_donor", "tw3_donor_first",
                                "tw3_donor_last"),
                 *_twenty_fourth(p, "tw4_en", "tw4_en_first", "tw4_en_mid", "tw4_en_last", "tw4_gr", "tw4_ml",
                                 "tw4_ko", "tw4_cn")],
        "EMAIL": [p["email"], *_sixteenth(p, "idn_email")], "RESERVATION_ID": [p["reservation"]],
        "PAYMENT_ID": [p["payment_id"], p["gift_card"]], "LAST_FOUR": [p["last_four"], *_twentieth(p, "tw_mask")],
        "CARD_NUMBER": [p["card"], p["card"].replace(" ", ""), p["card2"]],
        "ADDRESS": [p["street"], p["unit"], p["eu_street"], p["block_street"], p["street3"], p["corner_a"],
                    p["corner_b"], p["block_street2"], p["plot_street"], *_fourteenth(p, "lv_street"),
                    # the whole labelled address as written (the anonymizer replaces it as one value)
                    *([f"{p['lv_street']}, Rīga, {p['lv_zip']}"] if p["fourteenth"] else []),
                    *_fifteenth(p, "vcard_street"), *_sixteenth(p, "x12_street", "sg_street"),
                    *_twenty_first(p, "tw1_block_street", "tw1_street", "tw1_street2", "tw1_swift_street")],
        "ZIP": [p["zip"], p["postcode"], p["block_postcode"], p["postcode3"], p["crm_plz"], p["au_postcode"][4:],
                *_twelfth(p, "xml_zip"), *_fourteenth(p, "lv_zip"), *_fifteenth(p, "pl_zip", "vcard_zip"),
                *_sixteenth(p, "x12_zip", "sg_zip"), *_twenty_first(p, "tw1_zip", "tw1_zip2", "tw1_block_zip")],
        "CITY": [p["city"]],
        "DOB": [p["dob"], p["companion_dob"], p["eu_dob"], *_twelfth(p, "hl7_dob"), *_thirteenth(p, "tbl_dob"),
                *_fourteenth(p, "tr_dob"), *_fifteenth(p, "pl_dob"), *_sixteenth(p, "x12_dob"),
                *_twenty_third(p, "tw3_dob")],
        "PHONE": [p["phone"], re.sub(r"\D", "", p["phone"]), p["uk_phone"], p["intl_phone"], p["grouped_phone"],
                  p["line_phone"], p["fax"], p["csv_phone"], p["msisdn"], *_twentieth(p, "tw_msisdn"),
                  *_twenty_first(p, "tw1_ko")],
        "SECRET": [p["password"], p["api_key"], p["session_id"], p["token"], p["jwt"]],
        "ORDER_ID": [p["order_id"]],
        "IBAN": [p["iban"]], "SSN": [p["ssn"], p["spaced_ssn"]],
        "ACCOUNT_ID": [p["account"], p["crm_kunde"], p["claim"], p["dni"], p["licence"], p["donor_id"], p["pesel"],
                       p["codice_fiscale"], p["mac"], *_twelfth(p, "mrn", "steam"),
                       *_thirteenth(p, "tbl_persnr", "tbl_bsn", "bvn", "spoken"), *_fifteenth(p, "pl_client"),
                       *_sixteenth(p, "geo"), *_nineteenth(p, "tkt", "nino"), *_twentieth(p, "tw_spelled"),
                       *_twenty_first(p, "tw1_acct", "tw1_port_acct", "tw1_port_acct2"),
                       *_twenty_second(p, "tw2_req_id", "tw2_rider_id"), *_twenty_fourth(p, "tw4_claim")],
        "USER_ID": [p["user_id"], p["handle"], p["discord"], p["upi"], *_twentieth(p, "tw_nick"),
                    *_twenty_first(p, "tw1_handle"), *_twenty_second(p, "tw2_login")],
        "VEHICLE_ID": [p["plate"], p["fr_plate"], *_fourteenth(p, "uk_plate", "vin"), *_twenty_third(p, "tw3_plate")],
    }


def canary_values(p: dict) -> list[str]:
    """Every planted personal value of a persona, as planted (plus bare numbers of ids)."""
    vals = [p[k] for k in ("first", "last", "companion_first", "companion_last", "email", "user_id",
                           "reservation", "payment_id", "gift_card", "last_four", "card", "street",
                           "unit", "zip", "city", "dob", "companion_dob", "phone", "password",
                           "api_key", "session_id", "token", "jwt", "order_id", "iban", "ssn",
                           "uk_phone", "handle", "account", "friend_first", "friend_last", "payee",
                           "card2", "intl_phone", "eu_street", "postcode", "grouped_phone", "block_street",
                           "lower_first", "lower_last", "sign_first", "sign_last",
                           "line_phone", "street3", "quote_last", "corner_a", "corner_b", "fax",
                           "block_street2", "bracket_first", "intro_first", "intro_last", "pnr_last",
                           "pnr_first", "crm_plz", "crm_kunde", "eu_dob", "spaced_ssn", "claim",
                           "tr_first", "tr_last", "dni", "plate", "appl_first", "appl_last", "note_first",
                           "note_last", "licence", "titled_first", "titled_last", "nick", "donor_id", "pesel",
                           "discord", "fr_plate", "csv_phone", "caps_first", "caps_last", "msisdn",
                           "codice_fiscale", "upi", "hdr_first", "hdr_last", "plot_street", "mac")]
    vals += _twelfth(p, "xml_last", "xml_zip", "hl7_first", "hl7_last", "hl7_dob", "mrn", "file_first", "file_last",
                     "kanji", "steam")
    vals += _thirteenth(p, "tbl_first", "tbl_last", "tbl_bsn", "tbl_dob", "hindi", "bvn", "spoken")
    vals += _fourteenth(p, "arabic", "hebrew", "uk_plate", "vin", "tr_dob", "lv_street", "lv_zip")
    vals += _fifteenth(p, "pl_first", "pl_last", "pl_first_gen", "pl_last_gen", "pl_zip", "pl_dob", "pl_client",
                       "vcard_street", "vcard_zip")
    vals += _sixteenth(p, "x12_last", "x12_first", "x12_street", "x12_zip", "x12_dob", "geo", "idn_email", "mr_name",
                       "hi_ji", "sg_zip", "sg_street")
    vals += _nineteenth(p, "tkt", "nino")
    vals += _twentieth(p, "tw_msisdn", "tw_agent", "tw_spelled", "tw_nick", "tw_cjk", "tw_initial")
    vals += _twenty_first(p, "tw1_last", "tw1_first", "tw1_last2", "tw1_first2", "tw1_zip", "tw1_zip2", "tw1_nick",
                          "tw1_ko", "tw1_acct", "tw1_block_street", "tw1_street", "tw1_street2", "tw1_swift_street",
                          "tw1_block_zip", "tw1_handle", "tw1_cjk", "tw1_port_acct", "tw1_port_acct2")
    vals += _twenty_second(p, "tw2_login", "tw2_req_id", "tw2_vis_first", "tw2_vis_last", "tw2_rider_id",
                           "tw2_rider_first")
    vals += _twenty_third(p, "tw3_patr", "tw3_ru_last", "tw3_hy", "tw3_plate", "tw3_donor", "tw3_dob")
    vals += _twenty_fourth(p, "tw4_en", "tw4_gr", "tw4_ml", "tw4_claim", "tw4_ko", "tw4_cn")
    if p["twentieth"]:
        vals.append(f"••{p['tw_mask']}")  # the masked card's end, checked with its mask
    # a year-like postcode alone is no distinctive string: checked with the state before it
    vals.append(p["au_postcode"])
    # a 3-digit postcode alone is no distinctive string (a log line's "692 ms"): it is checked
    # with the town that stays beside it
    vals.append(f"Þórshöfn {p['postcode3']}")
    # the block's postcode (38512-38633) lies in the range of the ephemeral TCP ports a local
    # server prints in its logs ("38523" was a Prefect server's port in a full-suite run): it is
    # checked with the town that stays beside it
    vals.append(f"{p['block_postcode']} Ulvsundmyra")
    vals.append(p["card"].replace(" ", ""))
    vals.append(re.sub(r"\D", "", p["phone"]))
    vals.append(p["order_id"][2:])  # the bare order number
    vals.append(p["payment_id"].rsplit("_", 1)[1])
    return vals


def _call(cid: str, name: str, args: dict) -> dict:
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": cid, "type": "function",
                            "function": {"name": name, "arguments": json.dumps(args)}}]}


def _tool(cid: str, name: str, obj: dict) -> dict:
    return {"role": "tool", "tool_call_id": cid, "name": name, "content": json.dumps(obj)}


def record(i: int) -> dict:
    """The ``i``-th planted log record (canonical format), persona ``i``: a cancellation (even
    ``i``) or a baggage update (odd ``i``) as in ``data/sample_airline_logs.jsonl``."""
    p = persona(i)
    cancel = i % 2 == 0
    profile = {
        "name": {"first_name": p["first"], "last_name": p["last"]},
        "address": {"address1": p["street"], "address2": p["unit"], "city": p["city"],
                    "country": "USA", "state": "CA", "zip": p["zip"]},
        "email": p["email"], "dob": p["dob"], "phone": p["phone"],
        "payment_methods": {
            p["payment_id"]: {"source": "credit_card", "brand": "visa", "last_four": p["last_four"],
                              "id": p["payment_id"]},
            p["gift_card"]: {"source": "gift_card", "amount": 40, "id": p["gift_card"]}},
        "saved_passengers": [{"first_name": p["companion_first"], "last_name": p["companion_last"],
                              "dob": p["companion_dob"]}],
        "membership": "silver", "reservations": [p["reservation"]],
    }
    reservation = {
        "reservation_id": p["reservation"], "user_id": p["user_id"], "origin": "SFO",
        "destination": "DEN", "flight_type": "one_way", "cabin": "economy",
        "flights": [{"flight_number": "HAT412", "date": "2024-05-20", "price": 300,
                     "origin": "SFO", "destination": "DEN"}],
        "passengers": [{"first_name": p["first"], "last_name": p["last"], "dob": p["dob"]},
                       {"first_name": p["companion_first"], "last_name": p["companion_last"],
                        "dob": p["companion_dob"]}],
        "payment_history": [{"payment_id": p["payment_id"], "amount": 300}],
        "created_at": "2024-05-15T09:10:00", "total_baggages": 1, "nonfree_baggages": 0,
        "insurance": "no",
    }
    url = (f"https://portal.example.com/account?email={quote(p['email'], safe='')}"
           f"&session_id={p['session_id']}&token={p['token']}")
    d = _dt.date.fromisoformat(p["dob"])
    dob_text = f"{d:%B} {d.day}, {d.year}"
    msgs = [
        {"role": "system", "content": POLICY},
        {"role": "user", "content": (
            f"Hi, this is {p['first']} {p['last']}. I need to "
            + (f"cancel reservation {p['reservation']}, my plans changed."
               if cancel else f"add two checked bags to booking {p['reservation']}.")
            + f" My user id is {p['user_id']}.")},
        _call(f"c{i}a", "get_user_details", {"user_id": p["user_id"]}),
        _tool(f"c{i}a", "get_user_details", profile),
        _call(f"c{i}b", "get_reservation_details", {"reservation_id": p["reservation"]}),
        _tool(f"c{i}b", "get_reservation_details", reservation),
        {"role": "user", "content": (
            f"MY NAME IS {p['first'].upper()} {p['last'].upper()}, EMAIL {p['email'].upper()}, "
            f"USER ID {p['user_id'].upper()}. I travel with {p['companion_first']} "
            f"{p['companion_last']} (born {p['companion_dob']}).")},
        {"role": "user", "content": f"My first name is {p['first']}, born {dob_text}."},
        {"role": "user", "content": (
            f"And the last name is {p['last']}. I live at {p['street']}, {p['unit']}, zip code "
            f"{p['zip']}. Call me at {p['phone']} or {re.sub(r'[^0-9]', '', p['phone'])}.")},
        {"role": "user", "content": (
            f"My password is {p['password']} and my api key: {p['api_key']}. Session id: "
            f"{p['session_id']}. Authorization: Bearer {p['jwt']}. Card number {p['card']} or "
            f"{p['card'].replace(' ', '')}, or the gift card {p['gift_card']}. See {url} and "
            f"https://portal.example.com/users/{p['user_id']}/trips/{p['reservation']}. "
            f"Also my retail order {p['order_id']} (order number {p['order_id'][2:]}).")},
        {"role": "assistant", "content": (
            f"Thank you, {p['first']}. Reservation {p['reservation']} "
            + ("can be cancelled with a full refund" if cancel else "gets two more bags")
            + f" to the card ending in {p['last_four']}. Shall I proceed (yes/no)?")},
        {"role": "user", "content": "yes"},
    ]
    # issue 11: a bare answer to "your full name?", labelled ids, a handle derived from the name,
    # national phone / IBAN / SSN in free text, camelCase keys and a person key
    msgs += [
        {"role": "assistant", "content": "Could I get your full name, please?"},
        {"role": "user", "content": f"{p['first']} {p['last']}"},
        {"role": "user", "content": (
            f"Username: {p['handle']}. Account {p['account']}. My UK mobile is {p['uk_phone']}, "
            f"refund to IBAN {p['iban']}, social security number {p['ssn']}.")},
        {"role": "assistant", "content": f"thanks {p['first'].lower()}, noted."},
        # names with no context word and no key, a payee by a label alone, a Mastercard of the
        # 2-series (presidio's card recognizer does not know it), a phone number in a national
        # layout after a phone word, a street and a postcode written the European way
        {"role": "user", "content": (
            f"The parcel for {p['friend_first']} {p['friend_last']} goes to {p['eu_street']}, "
            f"SKUTSKÄR, Sweden {p['postcode']}. Beneficiary: {p['payee']}. Charge {p['card2']}; "
            f"my mobile: {p['intl_phone']}.")},
        {"role": "user", "content": (
            f"My number changed to {p['grouped_phone']} last week. The cabin is at\n"
            f"{p['block_street']}\n{p['block_postcode']} Ulvsundmyra\nNorway")},
        {"role": "user", "content": (
            f"ps: i met {p['lower_first']} {p['lower_last']} at the airport, she says hi. new numbers:\n"
            f"{p['line_phone']}\nsend the spare key to {p['street3']}, Þórshöfn {p['postcode3']}.\n"
            f"Kind regards,\n{p['sign_first']} {p['sign_last']}")},
        {"role": "user", "content": (
            f'"The seat was broken," says {p["quote_last"]}. Pick me up at the corner of '
            f"{p['corner_a']} and {p['corner_b']}. The office:\n{p['fax']} fax\n"
            + "}}" + p["block_street2"] + "\n}}Apt. " + str(300 + i) + "\n}}Karlskoga")},
        {"role": "user", "content": (
            f"Guten Tag, hier ist {p['intro_first']} {p['intro_last']}, geboren am {p['eu_dob']}. "
            f"Spoke to wife ({p['bracket_first']}) about warranty claim #{p['claim']}; "
            f"my social is {p['spaced_ssn']}.")},
        {"role": "user", "content": (
            "AGENTE: Buenas tardes, ¿con quién hablo?\n"
            f"CLIENTE: {p['tr_first']} {p['tr_last']}.\nAGENTE: ¿Me confirma su DNI?\n"
            f"CLIENTE: {p['dni']}\nAGENTE: ¿Y la matrícula del coche?\nCLIENTE: {p['plate']}\n"
            "AGENTE: Gracias.")},
        {"role": "assistant", "content": (
            f"note: acct holder {p['note_first']} {p['note_last']} verified by phone.")},
        {"role": "user", "content": (
            f"Die Steuer-ID von Frau Dr. {p['titled_first']} {p['titled_last']} fehlt noch. Ihr Vater "
            f"{p['titled_first']} ({p['nick']}) {p['titled_last']}, donor ID {p['donor_id']}, tata ma {p['pesel']}. "
            f"Discord {p['discord']}, la Clio immatriculée {p['fr_plate']}.\n"
            f"D-0{i % 10},{p['titled_first']} {p['titled_last']},Kittiwake,{p['csv_phone']},paid")},
        {"role": "user", "content": (
            f"From: {p['hdr_first']} {p['hdr_last']} <{p['hdr_first'][:4]}.{i}@mailbox.example.org>\n"
            f"Subject: refund\n\nCodice fiscale {p['codice_fiscale']}, paid by UPI {p['upi']}. I'm at "
            f"{p['plot_street']}, Lekki; the flat is in Surry Hills {p['au_postcode']}. Router mac {p['mac']}.")},
    ]
    if i >= TWELFTH_FROM:
        msgs += [{"role": "user", "content": (
            f"<awb><destinatar><nume>{p['xml_last']}</nume><cod_postal>{p['xml_zip']}</cod_postal></destinatar></awb>\n"
            f"PID|1||{p['mrn']}^^^HOSP^MR||{p['hl7_last']}^{p['hl7_first']}||{p['hl7_dob']}|F\n"
            f"attached scan_passport_{p['file_first']}_{p['file_last']}.pdf; {p['kanji']}様の件です. "
            f"my old account was {p['steam']} before the ban")}]
    if i >= THIRTEENTH_FROM:
        msgs += [{"role": "user", "content": (
            f"payroll export:\n\npersnr;nm;voornaam;BSN;gebdat\n{p['tbl_persnr']};{p['tbl_last']};{p['tbl_first']};"
            f"{p['tbl_bsn']};{p['tbl_dob']}\n\nनमस्ते, मेरा नाम {p['hindi']} है। my BVN in case you need it is "
            f"{p['bvn']}\nagent may i have your mobile\ncaller {p['spoken']}")}]
    if i >= FOURTEENTH_FROM:
        msgs += [{"role": "user", "content": (
            f"مساء الخير، اسمي {p['arabic']}، عندي سؤال عن الحجز.\nשלום, שמי {p['hebrew']}, רציתי לבדוק.\n"
            f"resident parking permit for {p['uk_plate']}; the rental's FIN {p['vin']}. Doğum tarihim "
            f"{p['tr_dob']}. Adrese: {p['lv_street']}, Rīga, {p['lv_zip']}. Paldies!")}]
    if i >= FIFTEENTH_FROM:
        msgs += [{"role": "user", "content": (
            f"INSERT INTO klienci (id, imie, nazwisko, kod_pocztowy) VALUES ('{p['pl_client']}', '{p['pl_first']}', "
            f"'{p['pl_last']}', '{p['pl_zip']}');\nRecepta od {p['pl_first_gen']} {p['pl_last_gen']} jest gotowa, "
            f"urodził się {p['pl_dob']}.\nBEGIN:VCARD\nADR;TYPE=HOME:;;{p['vcard_street']};Montréal;QC;{p['vcard_zip']};"
            f"Canada\nEND:VCARD\n<table><tr><th>Kundennummer</th><td>{p['pl_client']}</td></tr></table>")}]
    if i >= SIXTEENTH_FROM:
        msgs += [{"role": "user", "content": (
            f"NM1*IL*1*{p['x12_last']}*{p['x12_first']}~\nN3*{p['x12_street']}~\nN4*CHICAGO*IL*{p['x12_zip']}~\n"
            f"DMG*D8*{p['x12_dob']}*F~\nmy home is at {p['geo']} and my other mail {p['idn_email']}.\n"
            f"नमस्कार, मी {p['mr_name']}. {p['hi_ji']} जी, पार्सल भेजिए. deliver to {p['sg_street']}, "
            f"#05-118, {p['sg_zip']} pls")}]
    if i >= NINETEENTH_FROM:
        msgs += [{"role": "user", "content": (
            f"the airline sent {json.dumps({'ok': True, 'reissued_tkts': [p['tkt']], 'ni': p['nino']})} - and "
            f"NI no. on file: {p['nino']}, ticket {p['tkt']}")}]
    if i >= TWENTIETH_FROM:
        msgs += [{"role": "user", "content": (
            f"ts,caller,secs\n2025-01-04 10:02:11,{p['tw_msisdn']},63\n"
            f"agent: northwind air this is {p['tw_agent']} how can i help\ncaller: my surname is spelled "
            f"{p['tw_spelled']}\n> [{p['tw_nick']}] card on file ••{p['tw_mask']}\n维修工:{p['tw_cjk']}, 会联系您\n"
            f"Surveyor: {p['tw_initial']} (PropCheck)")}]
    if i >= TWENTY_FIRST_FROM:
        msgs += [{"role": "user", "content": (
            f"PORT|2025-02-03|ACCT {p['tw1_port_acct']}|{p['tw1_last']} {p['tw1_first']}|{p['tw1_street']}|Salem|OR|"
            f"{p['tw1_zip']}|PENDING\nPORT|2025-02-04|ACCT {p['tw1_port_acct2']}|{p['tw1_last2']} {p['tw1_first2']}|"
            f"{p['tw1_street2']}|Bend|OR|{p['tw1_zip2']}|FOC\n"
            f"my cousin {p['titled_first']} '{p['tw1_nick']}' {p['titled_last']} called; 연락처 {p['tw1_ko']} 맞으신가요\n"
            f"{{4:\n:20:PAYREF{250301 + i}-0117\n:59:/{p['tw1_acct']}\n{p['caps_first']} {p['caps_last']}\n"
            f"{p['tw1_swift_street']}\nSEATTLE WA\n:71A:SHA\n-}}\n\nMrs {p['intro_first']} {p['intro_last']}\n"
            f"{p['tw1_block_street']}\nTipton\n{p['tw1_block_zip']}\n\n[21:04] {p['tw1_handle']}: bed 4 needs obs\n"
            f"主治醫師: {p['tw1_cjk']}醫師。")}]
    if i >= TWENTY_SECOND_FROM:
        msgs += [{"role": "user", "content": (
            f"the directory says:\nName              : {p['companion_first']} {p['companion_last']}\n"
            f"SamAccountName    : {p['tw2_login']}\nDepartment        : Sales\n\n"
            f"2025-02-01 09:05:44 evento=ALTA visitante=\"{p['tw2_visitor']}\" empresa=particular tarjeta=VIS-{118 + i}\n"
            f"2025-02-01 09:12:03 rider.assigned rider={p['tw2_rider_id']} ({p['tw2_rider']}) vehicle=E-Bike")}]
    if i >= TWENTY_THIRD_FROM:
        nxt = persona((i + 1) % N_PERSONAS) if (i + 1) % N_PERSONAS >= TWENTY_THIRD_FROM else None
        msgs += [{"role": "user", "content": (
            f"звонящий: мой куратор {p['tw3_patr']}, она в курсе\n"
            f"temsilci: doğum tarihiniz\nmüşteri: {p['tw3_dob']}\n"
            f"vairuotojas: numeris {p['tw3_plate']}\noperatorė: ačiū\n\n"
            # (phones in groups of two: a fake's group of three could be another persona's postcode)
            f"ժամ;հաճախորդ;հեռախոս\n10:00;{p['tw3_cell']};+374 91 10 20 {i:02d}\n"
            f"12:30;{(nxt or p)['tw3_hy']}, TIGRAN;+374 91 30 40 {i:02d}\n\n"
            f'{{"donor": "{p["tw3_donor"]}", "amount": {500 + i}}}')}]
    if i >= TWENTY_FOURTH_FROM:
        msgs += [{"role": "user", "content": (
            f"रिकॉर्ड {9100 + i}\nname_en: {p['tw4_en']}\nस्थिति: सक्रिय\n\n"
            f"| Πεδίο | Τιμή |\n|---|---|\n| Επώνυμο | {p['tw4_gr']} |\n| Πρόγραμμα | ΠΜΣ |\n\n"
            f"നാളെ മകൻ {p['tw4_ml']} വന്ന് വാങ്ങും.\nक्लेम नंबर {p['tw4_claim']} दर्ज है।\n"
            f"집주인은 {p['tw4_ko']} 씨고 연락 주세요\n"
            f'{{"委托人": "{p["tw4_cn"]}", "案由": "合同纠纷"}}')}]
    if cancel:
        msgs += [_call(f"c{i}c", "cancel_reservation", {"reservation_id": p["reservation"]}),
                 _tool(f"c{i}c", "cancel_reservation", {**reservation, "status": "cancelled"}),
                 {"role": "assistant", "content": f"Done, {p['first']} {p['last']}. Cancelled."}]
    else:
        args = {"reservation_id": p["reservation"], "total_baggages": 3, "nonfree_baggages": 1,
                "payment_id": p["payment_id"]}
        msgs += [_call(f"c{i}c", "update_reservation_baggages", args),
                 _tool(f"c{i}c", "update_reservation_baggages",
                       {**reservation, "total_baggages": 3, "nonfree_baggages": 1}),
                 {"role": "assistant", "content": f"Your bags are added, {p['first']}."}]
    return {"id": f"canary-{i:03d}", "messages": msgs,
            "metadata": {"reward": 1.0, "domain": "airline",
                         "crm": {"email": p["email"], "phone": p["phone"], "password": p["password"],
                                 "notes": f"VIP: {p['first']} {p['last']}, {p['street']}"},
                         # camelCase keys and a person key from a system trajpipe has no domain for:
                         # in metadata, since a call to an unknown tool sets the record aside at
                         # ingest (INGEST_NO_DOMAIN) before anonymization
                         "contact": {"organizer": p["handle"], "homePhone": p["uk_phone"], "billingZip": p["zip"],
                                     "cardLast4": p["last_four"], "fullName": f"{p['first']} {p['last']}"},
                         # a German CRM's keys and a booking record's name element
                         "kunde": {"vorname": p["intro_first"], "nachname": p["intro_last"], "plz": p["crm_plz"],
                                   "kundennummer": p["crm_kunde"]},
                         "pnr": {"nm": f"{p['pnr_last']}/{p['pnr_first']} MS"},
                         # a help desk's requester: the id a JSON number (twenty-second round)
                         **({"helpdesk": {"requester": {"id": p["tw2_req_id"], "name": f"{p['friend_first']} "
                                                                                       f"{p['friend_last']}"}}}
                            if p["twenty_second"] else {}),
                         # a telecom's line: its owner's name in capitals, the subscriber number
                         "line": {"owner": {"name": f"{p['caps_first']} DE LA {p['caps_last']}"},
                                  "msisdn": p["msisdn"]},
                         # a loan system's person object and a document object
                         "application": {"applicants": [{"fn": p["appl_first"], "ln": p["appl_last"],
                                                         "licence": {"no": p["licence"], "state": "WA"}}]}}}
