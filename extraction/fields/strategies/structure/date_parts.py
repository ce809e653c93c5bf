"""A date typed in the parts its caption names: "BIRTH DATE  MM  DD  YY ... 08  20  1960".

Claim forms and many intake grids print a date's caption with the order of its parts ("MM DD
YY", "DD/MM/YYYY") and the value as numbers in cells, separated by spaces rather than slashes.
The caption says which number is the month: the value is read in that order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

from extraction.fields.model.candidate import Candidate
from extraction.fields.reading.date_text import DEFAULT_DATE_ORDER, DateOrder
from extraction.fields.reading.normalize import match_label
from extraction.fields.reading.text_lines import TextUnit, below
from extraction.fields.strategies.label_pairs import LABEL_THRESHOLD, PRIORS

_PART = r"(MM|DD|YY(?:YY)?)"
_ORDER_RE = re.compile(rf"\b{_PART}\b[\s/.\-]*\b{_PART}\b[\s/.\-]*\b{_PART}\b", re.IGNORECASE)
_NUMBERS_RE = re.compile(r"(?<![\d/.\-])(\d{1,2})[\s/.\-]+(\d{1,2})[\s/.\-]+(\d{4}|\d{2})(?![\d/.\-])")
#: How many lines under a caption its numbers are looked for in.
UNDER_LOOK = 2
#: A form's item number before its caption ("3. ").
_NUMBERING_RE = re.compile(r"^\s*\d{1,2}[a-z]?\.\s*")


def full_year(year: int, today: date | None = None) -> int:
    """A two-digit year as the nearest past one's century (a form asks for dates gone by)."""
    if year >= 100:
        return year
    now = (today or date.today()).year
    return 2000 + year if 2000 + year <= now else 1900 + year


def read_parts(order: list[str], numbers: tuple[str, str, str]) -> str | None:
    """The ISO date that `numbers` give in the caption's `order` ("MM", "DD", "YY"), or None."""
    by_part = {part[:2].upper(): int(n) for part, n in zip(order, numbers, strict=True)}
    if set(by_part) != {"MM", "DD", "YY"}:
        return None
    try:
        return date(full_year(by_part["YY"]), by_part["MM"], by_part["DD"]).isoformat()
    except ValueError:
        return None


def date_parts_candidates(
    units: list[TextUnit], name: str, order: DateOrder = DEFAULT_DATE_ORDER
) -> Iterator[Candidate]:
    """Dates after a caption of the field that names the order of their parts; under a caption
    whose parts OCR could not read ("BIRTH DATE  MM da"), dates in the document's order."""
    for unit in units:
        text = _NUMBERING_RE.sub("", unit.text)
        caption = _ORDER_RE.search(text)
        if caption is None:
            yield from _unread_order_candidates(unit, units, name, order)
            continue
        label = text[: caption.start()].strip(" (:")
        score = match_label(name, label) if label else 0.0
        if score < LABEL_THRESHOLD:
            continue
        numbers = _NUMBERS_RE.search(text, caption.end())
        value_unit, strategy = unit, "label_inline"
        if numbers is None:
            # The caption over its cell, the numbers on the line under it (beside a cell's boxes).
            for under in below(unit, units)[:UNDER_LOOK]:
                numbers = _NUMBERS_RE.match(under.text.strip())
                if numbers is not None:
                    value_unit, strategy = under, "label_below"
                    break
        if numbers is None:
            continue
        iso = read_parts(list(caption.groups()), (numbers.group(1), numbers.group(2), numbers.group(3)))
        if iso is not None:
            prior = PRIORS[strategy] * score
            yield Candidate.of(iso, prior, [value_unit], numbers.group(0), strategy, label)


#: Numbers in cells as a date's parts: two, two, then a four-digit year, set apart by spaces only.
_SPACED_DATE_RE = re.compile(r"(\d{2})\s+(\d{2})\s+(\d{4})")
_ORDER_PARTS = {"MDY": ["MM", "DD", "YY"], "DMY": ["DD", "MM", "YY"]}
#: A date read in the document's order, its caption's own order unread, scores this share.
UNREAD_ORDER_SHARE = 0.9


def _unread_order_candidates(
    unit: TextUnit, units: list[TextUnit], name: str, order: DateOrder
) -> Iterator[Candidate]:
    """The date under a caption of the field whose order of parts OCR misread: the numbers in the
    cells under it, read in the document's order."""
    label = _NUMBERING_RE.sub("", unit.text).strip(" (:")
    score = match_label(name, label) if label else 0.0
    if score < LABEL_THRESHOLD:
        return
    for under in below(unit, units)[:UNDER_LOOK]:
        numbers = _SPACED_DATE_RE.fullmatch(under.text.strip())
        if numbers is None:
            continue
        # A year-first order never ends in a four-digit year: such numbers are no date of it.
        parts = _ORDER_PARTS.get(order)
        iso = read_parts(parts, (numbers.group(1), numbers.group(2), numbers.group(3))) if parts else None
        if iso is not None:
            prior = PRIORS["label_below"] * score * UNREAD_ORDER_SHARE
            yield Candidate.of(iso, prior, [under], numbers.group(0), "label_below", label)
        return
