"""What kind of value a field holds, and reading a value of that kind out of a piece of text.

A field's kind comes from its name (`invoice_date` is a date, `amount_tax` an amount, `partner_email`
an email). Reading is strict: text that does not hold a value of the kind gives None, so a label
next to the wrong neighbour ("DATE:" beside "CASHIER:") yields nothing rather than a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from extraction.fields.reading.amounts import find_amounts
from extraction.fields.reading.date_text import DEFAULT_DATE_ORDER, DateOrder, find_dates
from extraction.fields.reading.normalize import concept_of, label_tokens, vocabulary_words

Kind = Literal[
    "date",
    "amount",
    "email",
    "url",
    "phone",
    "iban",
    "bic",
    "currency",
    "currency_symbol",
    "identifier",
    "incoterm",
    "text",
]

_DATE_CONCEPTS = frozenset(
    {"date", "due_date", "start_date", "end_date", "effective_date", "date_of_birth", "order_date"}
)
_AMOUNT_CONCEPTS = frozenset({"total", "subtotal", "tax", "discount", "rounding"})
_AMOUNT_WORDS = frozenset(
    {
        "amount",
        "total",
        "subtotal",
        "price",
        "cost",
        "fee",
        "fees",
        "balance",
        "sum",
        "tax",
        "charge",
        "charges",
    }
)
_IDENTIFIER_WORDS = frozenset({"number", "no", "nr", "num", "id", "ref", "reference", "siren", "siret"})
_KIND_OF_CONCEPT: dict[str, Kind] = {
    "email": "email",
    "website": "url",
    "phone": "phone",
    "mobile": "phone",
    "fax": "phone",
    "iban": "iban",
    "bic": "bic",
    "currency": "currency",
    "incoterm": "incoterm",
    "invoice_number": "identifier",
    "order_number": "identifier",
    "account_number": "identifier",
    "ssn": "identifier",
}


def kind_of(field_name: str) -> Kind:
    tokens = set(label_tokens(field_name))
    concept = concept_of(field_name)
    if "symbol" in tokens and concept == "currency":
        return "currency_symbol"
    if concept in _DATE_CONCEPTS or "date" in tokens or "dob" in tokens:
        return "date"
    if tokens & _IDENTIFIER_WORDS and concept not in _AMOUNT_CONCEPTS | {"phone", "mobile", "fax"}:
        return "identifier"
    if concept in _KIND_OF_CONCEPT:
        return _KIND_OF_CONCEPT[concept]
    if concept in _AMOUNT_CONCEPTS or tokens & _AMOUNT_WORDS:
        return "amount"
    return "text"


@dataclass(frozen=True)
class Reading:
    """A value read out of a text, with the characters it was read from."""

    value: str
    raw: str
    #: A numeric date whose day and month could be read the other way round.
    ambiguous: bool = False


#: Longer free text is prose, not a field's value.
MAX_TEXT_WORDS = 15

#: An email address as OCR may space it: around its "@" ("washington.wei @yahoo.com"), or beside an
#: underscore ("annemarie_ robinson@yahoo.com"), which never ends or starts a word of running text.
_SPACED_EMAIL_RE = re.compile(r"[\w.+-]+(?:(?<=_)\s+[\w.+-]+|\s+_[\w.+-]*)*\s*@\s*[\w-]+(?:\.[\w-]+)+")
#: A capitalised word glued to the end of an address's domain ("example.comAddress", "...COMCity").
_GLUED_WORD_RE = re.compile(r"(?<=[A-Za-z])[A-Z][a-z]{2,}$")


def _without_glued_label(email: str) -> str:
    """`email` without the next label glued to it, where a value runs into the next column."""
    glued = _GLUED_WORD_RE.search(email)
    if glued is None or glued.group(0).lower() not in vocabulary_words():
        return email
    return email[: glued.start()]


_URL_RE = re.compile(
    r"(?<![@\w.])(?:https?://[^\s,;]+|www\.[^\s,;]+|[a-z0-9-]+(?:\.[a-z0-9-]+)*"
    r"\.(?:com|org|net|io|de|fr|co|uk|in|my|gov|edu|info|biz|eu|us|ch|at|nl|es|it)(?:/[^\s,;]*)?)(?![\w@])",
    re.IGNORECASE,
)
_PHONE_RE = re.compile(r"(?<![\w])\+?\(?\d[\d\s().\-/]{5,}\d(?![\w])")
_NUMBER_MARKS = frozenset({("no",), ("nr",), ("n",), ("number",), ("num",), ()})
_AMOUNT_TOKEN_RE = re.compile(r"^\d+[.,]\d{2}$")
_URL_PATH_RE = re.compile(r"(?<=[^/:])/.*$")
_IBAN_RE = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){8,30}\b")
_BIC_RE = re.compile(r"\b[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?\b")
#: ISO 4217 codes common on invoices and receipts.
CURRENCY_CODES = frozenset(
    [
        "USD",
        "EUR",
        "GBP",
        "JPY",
        "CNY",
        "INR",
        "MYR",
        "SGD",
        "AUD",
        "CAD",
        "CHF",
        "HKD",
        "NZD",
        "SEK",
        "NOK",
        "DKK",
        "PLN",
        "CZK",
        "HUF",
        "ZAR",
        "BRL",
        "MXN",
        "IDR",
        "THB",
        "PHP",
        "VND",
        "KRW",
        "AED",
        "SAR",
        "TRY",
        "RUB",
    ]
)
_CURRENCY_CODE_RE = re.compile(r"\b(" + "|".join(sorted(CURRENCY_CODES)) + r")\b")
#: Symbols and local abbreviations that name one currency without doubt in practice.
CURRENCY_SYMBOLS: dict[str, str] = {
    "$": "USD",
    "US$": "USD",
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "₹": "INR",
    "Rs": "INR",
    "Rs.": "INR",
    "RM": "MYR",
    "S$": "SGD",
    "A$": "AUD",
    "C$": "CAD",
    "CHF": "CHF",
    "₩": "KRW",
    "฿": "THB",
}
#: The Incoterms rules (ICC, 2020 and the 2010 and 2000 ones still printed): a delivery term is one
#: of these codes, whatever words follow it ("DPU - Delivered at Place Unloaded").
INCOTERMS = frozenset(
    [
        "EXW",
        "FCA",
        "FAS",
        "FOB",
        "CFR",
        "CIF",
        "CPT",
        "CIP",
        "DAP",
        "DPU",
        "DDP",
        "DAT",
        "DAF",
        "DES",
        "DEQ",
        "DDU",
    ]
)
_INCOTERM_RE = re.compile(r"\b(" + "|".join(sorted(INCOTERMS)) + r")\b")
#: Words that number a document's pages: "Seite 1" or "Page 1 / 2" is no reference of anything.
_PAGE_WORDS = frozenset({"page", "pages", "pg", "seite", "blatt", "pagina", "página", "feuille"})
_SYMBOL_RE = re.compile(r"(US\$|S\$|A\$|C\$|[$€£¥₹₩฿]|\bRs\.?(?=\s?-?\d)|\bRM(?=\s?-?\d))")
_EDGE = " \t:;,.#-\u2013\u2014|*()[]\"'\u201c\u201d"


def _strip(text: str) -> str:
    return text.strip(_EDGE + "=")


#: Longest identifier written in several groups ("DE 232 446 240"), in characters.
MAX_GROUPED_IDENTIFIER = 24


def _has_digit(word: str) -> bool:
    return any(c.isdigit() for c in word)


def _identifier(text: str) -> str | None:
    """A reference such as "INV/2023/03/0008", "# BLR_WFLD2015..." or "DE 232 446 240": the first
    word with digits and the digit groups that follow it (a short letter prefix included)."""
    words = text.replace("N°", " ").replace("n°", " ").replace("\u2116", " ").split()
    while words and not _has_digit(words[0]) and label_tokens(words[0]) in _NUMBER_MARKS:
        words.pop(0)
    start = next((i for i, w in enumerate(words) if _has_digit(w)), None)
    if start is None or (start and words[start - 1].strip(_EDGE).casefold() in _PAGE_WORDS):
        return None
    if start == 1 and words[0].isalpha() and words[0].isupper() and len(words[0]) <= 3:
        start = 0
    group = [words[start]]
    for word in words[start + 1 :]:
        if not _has_digit(word) or len(" ".join([*group, word])) > MAX_GROUPED_IDENTIFIER:
            break
        group.append(word)
    return _strip(" ".join(group)) or None


def _read_amount(text: str, leading: bool) -> Reading | None:
    amounts = find_amounts(text)
    with_cents = [a for a in amounts if re.search(r"[.,]\d{2}$", a.raw.rstrip())]
    if with_cents:
        pick = with_cents[0] if leading else with_cents[-1]
        return Reading(pick.value, pick.raw)
    # A whole number is an amount only when it is the only number: right after a label
    # ("Total: 300"), or alone with its currency ("$ 300"), not inside other text.
    if len(amounts) == 1 and (leading or _is_currency_or_empty(text.replace(amounts[0].raw, ""))):
        return Reading(amounts[0].value, amounts[0].raw)
    return None


def _is_currency_or_empty(text: str) -> bool:
    rest = _strip(text)
    return not rest or rest.upper() in CURRENCY_CODES or rest in CURRENCY_SYMBOLS


def read_value(
    kind: Kind, text: str, *, leading: bool = False, order: DateOrder = DEFAULT_DATE_ORDER
) -> Reading | None:
    """The value of `kind` that `text` holds, or None when it holds none.

    An amount is the last one with cents (the right-most column of a row), or with `leading` the
    first one (the value right after a label, before whatever else the line holds).
    """
    text = text.strip()
    if not text:
        return None
    if kind == "date":
        dates = find_dates(text, order)
        return Reading(dates[0].value, dates[0].raw, dates[0].ambiguous) if dates else None
    if kind == "amount":
        return _read_amount(text, leading)
    if kind == "email":
        spaced = _SPACED_EMAIL_RE.search(text)
        if spaced is None:
            return None
        # The value without the spaces OCR set beside its "@" or an underscore; the raw text as read.
        raw = _without_glued_label(spaced.group(0))
        return Reading("".join(raw.split()).rstrip(".)"), raw)
    if kind in ("url", "phone", "iban", "bic"):
        pattern = {"url": _URL_RE, "phone": _PHONE_RE, "iban": _IBAN_RE, "bic": _BIC_RE}[kind]
        m = pattern.search(text)
        if m is None:
            return None
        value = m.group(0).strip().rstrip(".)")
        if kind == "phone" and (
            sum(c.isdigit() for c in value) < 7 or any(_AMOUNT_TOKEN_RE.match(t) for t in value.split())
        ):
            return None
        if kind == "url":
            # A website is the site: "aws.amazon.com/contact-us/" names aws.amazon.com.
            value = _URL_PATH_RE.sub("", value)
        return Reading(value, m.group(0))
    if kind == "currency":
        code = _CURRENCY_CODE_RE.search(text)
        if code:
            return Reading(code.group(1), code.group(1))
        symbol = _SYMBOL_RE.search(text)
        return Reading(CURRENCY_SYMBOLS[symbol.group(1)], symbol.group(1)) if symbol else None
    if kind == "currency_symbol":
        symbol = _SYMBOL_RE.search(text)
        return Reading(symbol.group(1), symbol.group(1)) if symbol else None
    if kind == "incoterm":
        code = _INCOTERM_RE.search(text.upper())
        return Reading(code.group(1), code.group(1)) if code else None
    if kind == "identifier":
        identifier = _identifier(text)
        return Reading(identifier, text) if identifier else None
    value = _strip(text)
    if _unbalanced(value) and not _unbalanced(text):
        # A bracket closing the value's own words ("Ana Ruiz (MD)") stays with them.
        value = text.strip(_EDGE.replace("(", "").replace(")", ""))
    if not value or text.rstrip().endswith(":") or not any(c.isalnum() for c in value):
        return None
    if len(value.split()) > MAX_TEXT_WORDS or _unbalanced(value):
        return None
    return Reading(value, text)


_PAIRS = (("(", ")"), ("[", "]"), ("\u201c", "\u201d"))


def _unbalanced(text: str) -> bool:
    """An unclosed bracket or quotation mark: a fragment cut out of a sentence, not a value."""
    return any(text.count(left) != text.count(right) for left, right in _PAIRS) or text.count('"') % 2 == 1
