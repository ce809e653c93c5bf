"""What a line of a receipt's or a letterhead's header is, told by its shape rather than its words.

A header reads top down: the issuer's name, maybe a registration number, the address, then the
lines to reach the issuer (telephone, fax, e-mail, web) and its tax or registration numbers. Label
words for those lines differ by language ("Tel", "Telefon", "Tél.", "Ph", none at all), but their
shapes do not:

- a telephone line is mostly one long run of digits in groups (`+49 30 1234567`, `(217) 555-0142`,
  `03-7731 8169`), with at most a short label;
- an identifier line carries one long number (`GST ID: 000849813504`, `ABN 12 345 678 901`) or a
  long code mixing letters and digits (`USt-IdNr. DE123456789`, `(867388-U)`);
- e-mail and web addresses have an `@` or a domain;
- an address line holds a postcode: a run of four to six digits standing alone (`81100`, `2000`,
  `560001`) or two short codes mixing letters and digits (`LS3 4AB`, `M5V 1H9`).
"""

from __future__ import annotations

import re

#: Digits in one telephone or identifier run, from this many on: a postcode has at most six
#: (seven with its hyphen in Japan, which the run's grouping tells apart).
MIN_PHONE_DIGITS = 8
#: Letters a telephone line may hold besides its number: a short label ("Tel/Fax", "Telefon").
MAX_PHONE_LABEL_LETTERS = 10
#: Digits of a bare long number that is an identifier, not a postcode or a house number.
MIN_IDENTIFIER_DIGITS = 7
#: A code mixing letters and digits with this many digits is an identifier ("DE123456789").
MIN_CODE_DIGITS = 5

_EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
#: "www." or a scheme in any case; a bare domain in lower case only, as "JOHOR BAHRU.JOHOR" is an
#: address that OCR read a period into.
_WEB_RE = re.compile(r"(?i:\bwww\.|https?://)|\b[a-z0-9-]{2,}\.[a-z]{2,6}(?:\.[a-z]{2})?(?:/\S*)?$")
#: A telephone number: digits in groups set apart by spaces, hyphens, dots, slashes or brackets.
_PHONE_RUN_RE = re.compile(r"\+?\(?\d[\d\s().\-/]*\d")
#: A long number whose groups are set apart by single spaces only ("12 345 678 901").
_SPACED_NUMBER_RE = re.compile(r"(?<![\d.,])\d+(?: \d+)*(?![\d.,]\d)")
#: A code of letters and digits, a check letter after a hyphen kept with it ("867388-U").
_CODE_RE = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z](?![A-Za-z]))?")
#: A postcode with its town glued on by OCR ("53300KL"), not a code.
_GLUED_TOWN_RE = re.compile(r"\d{4,6}[A-Za-z]{2,}")
_POSTCODE_DIGITS_RE = re.compile(r"(?<![\d.,/:-])\d{4,6}(?![\d/:]|[.,]\d)")
#: Two short codes each mixing letters and digits, as British and Canadian postcodes are written.
_ALNUM_POSTCODE_RE = re.compile(r"\b(?=[A-Z]{0,2}\d)[A-Z0-9]{2,4} (?=[A-Z]?\d)[A-Z0-9]{3}\b")


def _digits(text: str) -> int:
    return sum(c.isdigit() for c in text)


def _letters(text: str) -> int:
    return sum(c.isalpha() for c in text)


def is_web_or_email(text: str) -> bool:
    """Whether the line holds an e-mail or a web address."""
    return bool(_EMAIL_RE.search(text) or _WEB_RE.search(text.strip()))


def is_phone_line(text: str) -> bool:
    """Whether the line is one or more telephone numbers, with at most a short label before each
    ("TEL: 012 - 6651783 FAX: 03 - 33623608", "(217) 555-0142", "Telefon 030 1234567")."""
    runs = [m.group() for m in _PHONE_RUN_RE.finditer(text)]
    phones = [run for run in runs if _digits(run) >= MIN_PHONE_DIGITS and "," not in run]
    if not phones:
        return False
    rest = text
    for run in phones:
        rest = rest.replace(run, " ")
    # What is left is labels: a few letters per number, never a street or a town.
    return _letters(rest) <= MAX_PHONE_LABEL_LETTERS * len(phones) and _digits(rest) <= 2


def is_identifier_line(text: str) -> bool:
    """Whether the line carries a registration or tax number: one long number, or a long code of
    letters and digits, with at most a short label ("GST No: 002108047369", "(1035693-T)",
    "USt-IdNr. DE123456789", "ABN 12 345 678 901")."""
    long_number = any(_digits(m.group()) >= MIN_IDENTIFIER_DIGITS for m in _SPACED_NUMBER_RE.finditer(text))
    code = any(
        _digits(m.group()) >= MIN_CODE_DIGITS
        and _letters(m.group()) >= 1
        and not _GLUED_TOWN_RE.fullmatch(m.group())
        for m in _CODE_RE.finditer(text)
    )
    if not (long_number or code) or "," in text:
        return False
    words = re.findall(r"[^\W\d_]{2,}", text)
    # A label names the number in a word or three; more words make it a sentence or an address.
    return len(words) <= 3


def is_contact_line(text: str) -> bool:
    """A line that ends a header's address: a telephone, e-mail, web or identifier line."""
    return is_web_or_email(text) or is_phone_line(text) or is_identifier_line(text)


def has_postcode(text: str) -> bool:
    """Whether the line holds something shaped like a postcode of some country: four to six digits
    standing alone beside words, or two short letter-and-digit codes ("LS3 4AB")."""
    if _letters(text) < 2:
        return False
    return bool(_POSTCODE_DIGITS_RE.search(text) or _ALNUM_POSTCODE_RE.search(text.upper()))


#: Groups of digits joined by hyphens at a line's start, then only words: an address's block and
#: house numbers before the place's name ("3-16-18 Shibuya", "2-29-1 Ginza"), which can be shaped
#: like a date; a date line holds a date, its time or a label, seldom a name after it.
_BLOCK_NUMBER_RE = re.compile(r"^\d{1,4}(?:-\d{1,4}){1,3}\s+[^\W\d_]{2,}(?:[\s,.'-]+[^\W\d_]+)*[.,]?$")


def opens_with_block_number(text: str) -> bool:
    """Whether the line is block and house numbers joined by hyphens, then a place's name only
    ("3-16-18 Shibuya"): an address's first line if an address line follows it."""
    return bool(_BLOCK_NUMBER_RE.match(text.strip()))
