"""Amounts as people print them ("RM 9.00", "1.234,56", "$ 1,234"), read by the module convention
of `normalize.py`: a plain decimal string with at least two decimals."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from extraction.fields.reading.date_text import Match

#: Thousands separators grouped in threes, an optional decimal part of 1-3 digits. Space-grouped
#: thousands count only with a decimal part ("1 234,56"), so "DE 232 446 240" stays three numbers.
#: Percentages, and numbers inside dates, times or codes ("25/12", "8:13", "1851-A") are not amounts,
#: nor a digit glued to a word (OCR's "5ales" for "Sales"), unless the word is a currency code.
_NUMBER_RE = re.compile(
    "(?<![\\w.,/-])(?<!\\d:)(?P<sign>[-\u2212])?"
    r"\s?(?P<cur>[$€£¥₹]|RM|Rs\.?|USD|EUR|GBP|MYR|INR)?\s?"
    "(?P<num>\\d{1,3}(?:[,.'\u2019]\\d{3})+"
    r"(?:[.,]\d{1,3})?|\d{1,3}(?:[ \u00a0\u202f]\d{3})+[.,]\d{1,2}"
    r"|\d+(?:[.,]\d{1,3})?)(?![\d%/:]|[.,]\d|\s?%|-\w|(?!(?:usd|eur|gbp|myr|inr|sgd)\b)[a-z]{3})",
    re.IGNORECASE,
)


def _to_decimal(number: str) -> Decimal | None:
    number = re.sub("['\u2019 \u00a0\u202f]", "", number)
    separators = [c for c in number if c in ".,"]
    if not separators:
        digits = number
    elif len(set(separators)) == 2:
        # "1.234,56" and "1,234.56": the last separator is the decimal one.
        decimal_sep = separators[-1]
        thousands_sep = "," if decimal_sep == "." else "."
        digits = number.replace(thousands_sep, "").replace(decimal_sep, ".")
    elif len(separators) > 1:
        digits = number.replace(separators[0], "")
    else:
        head, tail = number.rsplit(separators[0], 1)
        # A lone comma before exactly three digits groups thousands ("1,234"); a lone point is
        # always decimal, since receipts print prices such as "9.000".
        digits = head + tail if separators[0] == "," and len(tail) == 3 else f"{head}.{tail}"
    try:
        return Decimal(digits)
    except InvalidOperation:
        return None


def format_amount(value: Decimal) -> str:
    """The module's amount convention: at least two decimals, more only when they carry digits."""
    exponent = value.normalize().as_tuple().exponent
    if isinstance(exponent, int) and exponent < -2:
        return str(value.normalize())
    return str(value.quantize(Decimal("0.01")))


def find_amounts(text: str) -> list[Match]:
    """Every number in `text` that can be an amount, in order; `value` follows the amount convention."""
    found: list[Match] = []
    for m in _NUMBER_RE.finditer(text):
        number = _to_decimal(m.group("num"))
        if number is None:
            continue
        if m.group("sign"):
            number = -number
        found.append(Match(m.start(), m.end(), format_amount(number), m.group(0).strip()))
    return found


def normalize_amount(text: str | int | float) -> str | None:
    """`text` read as one amount ("RM 9.00" -> "9.00"), or None when it holds no or several numbers."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        return format_amount(Decimal(str(text)))
    matches = find_amounts(text)
    return matches[0].value if len(matches) == 1 else None
