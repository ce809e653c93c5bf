"""What kind of value a taught field holds, and reading a text as that kind.

A value is recognised by meaning, not by its characters: a date in any printed form (and as digit
boxes), a phone by its digits, an amount by its number, a name by its words in any order, a choice
by its option (`M` is Male). The same readers check what is read later at a taught place.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

from extraction.fields.reading.date_text import DateOrder, parse_date

ValueKind = Literal["date", "phone", "email", "zip", "amount", "choice", "name", "code", "text"]

ORDERS: tuple[DateOrder, ...] = ("MDY", "DMY", "YMD")
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CHOICE_WORDS = {
    "m": "male",
    "male": "male",
    "f": "female",
    "female": "female",
    "y": "yes",
    "yes": "yes",
    "n": "no",
    "no": "no",
    "x": "other",
    "other": "other",
}
_CHOICE_FIELD = re.compile(r"gender|\bsex\b|_sex\b|^sex|marital|smok|married|yes_no|checkbox|choice")
_PHONE_FIELD = re.compile(r"phone|tel|fax|mobile|cell")
_AMOUNT_FIELD = re.compile(r"amount|total|charge|fee|price|cost|balance|paid|tax|sum")
_ZIP_FIELD = re.compile(r"zip|postal|postcode")
#: Letters after a name that are no part of it (a doctor's or vet's degree).
_CREDENTIALS = re.compile(
    r"(?:,?\s+(?:dvm|vmd|md|do|dds|dmd|phd|np|pa-c|pa|rn|fnp|bvsc|mrcvs|facp|mph)\.?)+\s*$", re.IGNORECASE
)


def value_kind(field: str, value: Any) -> ValueKind:
    """The kind of `value` taught for `field`: from the field's name and the value's shape."""
    name = field.casefold()
    text = str(value).strip()
    if isinstance(value, bool) or (_CHOICE_FIELD.search(name) and text.casefold() in _CHOICE_WORDS):
        return "choice"
    if "@" in text:
        return "email"
    if _ZIP_FIELD.search(name):
        return "zip"
    if _PHONE_FIELD.search(name) and len(digits(text)) >= 7:
        return "phone"
    dated = "date" in name or "dob" in name or "birth" in name or _ISO.match(text)
    if dated and as_iso_date(text) is not None:
        return "date"
    if _AMOUNT_FIELD.search(name) and amount(text) is not None:
        return "amount"
    if "name" in name and not any(c.isdigit() for c in text):
        return "name"
    if len(text) >= 4 and " " not in text and any(c.isdigit() for c in text):
        # A policy, member or group number: one token holding digits.
        return "code"
    return "text"


def bare_name(text: str) -> str:
    """`text` without the degrees printed after a name (`Sarah Ashworth, DVM`)."""
    return _CREDENTIALS.sub("", text).strip(" ,")


_NOT_DIGITS = re.compile(r"\D+")


def digits(text: str) -> str:
    return _NOT_DIGITS.sub("", text)


def as_iso_date(text: str, order: DateOrder | None = None) -> str | None:
    """`text` as an ISO date: printed in any form `parse_date` knows, or as bare digits in boxes
    (`03141985`, `03 14 1985`), in `order` (every order, first that reads, when None)."""
    text = text.strip()
    if _ISO.match(text):
        return parse_date(text, "YMD")
    for one in (order,) if order else ORDERS:
        found = parse_date(text, one) or parse_date(" ".join(text.split()).replace(" / ", "/"), one)
        if found is None:
            found = _boxed_date(text, one)
        if found is not None:
            return found
    return None


def _boxed_date(text: str, order: DateOrder) -> str | None:
    """A date written one digit (or one part) per box: only digits and separators, its parts read
    strictly in `order` (a day over 12 does not swap the order here, unlike printed dates)."""
    if re.search(r"[^\d\s/.\-|]", text):
        return None
    groups = re.findall(r"\d+", text)
    number = "".join(groups)
    if len(groups) == 3 and all(len(g) <= 4 for g in groups):
        parts = groups
    elif len(number) == 8:
        cut = (4, 6) if order == "YMD" else (2, 4)
        parts = [number[: cut[0]], number[cut[0] : cut[1]], number[cut[1] :]]
    else:
        return None
    fields = dict(zip(order, parts, strict=True))
    if len(fields["Y"]) != 4:
        return None
    try:
        return date(int(fields["Y"]), int(fields["M"]), int(fields["D"])).isoformat()
    except ValueError:
        return None


def date_orders(printed: str, iso: str) -> list[DateOrder]:
    """The orders in which `printed` reads as `iso`."""
    return [o for o in ORDERS if as_iso_date(printed, o) == iso]


def amount(text: str) -> Decimal | None:
    cleaned = re.sub(r"[^\d.,\-]", "", text)
    if not cleaned or not any(c.isdigit() for c in cleaned):
        return None
    if re.search(r",\d{2}$", cleaned) and "." not in cleaned[-3:]:
        cleaned = cleaned.replace(".", "").replace(",", ".")
    cleaned = cleaned.replace(",", "")
    try:
        return Decimal(cleaned)
    except InvalidOperation:
        return None


def choice_word(text: str) -> str | None:
    """The option a choice's word or initial names (`M` and `Male` both name male); any other word
    names itself."""
    letters = re.sub(r"[^a-z]", "", str(text).casefold())
    return _CHOICE_WORDS.get(letters, letters or None)


def name_words(text: str) -> list[str]:
    return [w for w in re.split(r"[^\w'\-]+", text.casefold()) if w]


def same_value(kind: ValueKind, value: Any, text: str) -> bool:
    """Whether printed `text` states taught `value`, by the value's kind."""
    wanted = str(value).strip()
    if kind == "date":
        iso = as_iso_date(wanted)
        return iso is not None and iso in {as_iso_date(text, o) for o in ORDERS}
    if kind == "phone":
        got, want = digits(text), digits(wanted)
        return len(got) >= 7 and (got == want or got.lstrip("1") == want.lstrip("1"))
    if kind == "zip":
        got, want = re.sub(r"\W", "", text).upper(), re.sub(r"\W", "", wanted).upper()
        return got == want or (len(want) == 5 and got[:5] == want and len(got) == 9)
    if kind == "email":
        return "".join(text.split()).casefold() == "".join(wanted.split()).casefold()
    if kind == "amount":
        read = amount(text)
        return read is not None and read == amount(wanted)
    if kind == "name":
        got_words, want_words = name_words(text), name_words(wanted)
        return bool(want_words) and sorted(got_words) == sorted(want_words)
    if kind == "choice":
        return choice_word(text) is not None and choice_word(text) == choice_word(wanted)
    return " ".join(name_words(text)) == " ".join(name_words(wanted)) and bool(name_words(wanted))
