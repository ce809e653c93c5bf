"""A receipt's total as paid: the rounded total printed under a rounding adjustment, or the sum of
the subtotal, its tax and its rounding where the amount paid agrees with that sum."""

import re
from decimal import Decimal

from extraction.fields.model.candidate import Candidate
from extraction.fields.model.context import FieldContext
from extraction.fields.reading.amounts import format_amount
from extraction.fields.reading.normalize import concept_of, total_rank
from extraction.fields.reading.text_lines import TextUnit

#: A cash rounding adjustment is a few cents: at most this much.
MAX_ROUNDING = Decimal("0.50")
#: Lines looked at below a total for its rounding adjustment, and below that for the rounded total.
ROUNDING_LINES = 3
_SIGNED_AMOUNT_RE = re.compile(r"(-?)\s*(\d+[.,]\d{2})\s*$")
_AMOUNT_RE = re.compile(r"(?<![\d.,])\d+[.,]\d{2}(?![\d.,]*\d)")


def rounded_total(ctx: FieldContext, best: Candidate) -> Candidate:
    """A receipt's total, or the rounded total printed under it: a "ROUNDING ADJ -0.01" line below
    the total, and below that the total plus the adjustment, is what was paid (a rounded total
    with a label of its own is already preferred by `extract._choose`)."""
    if total_rank(best.label) >= 4:
        return best
    below = _lines_below(ctx.lines, best.units[-1])
    for index, unit in enumerate(below[:ROUNDING_LINES]):
        found = _SIGNED_AMOUNT_RE.search(unit.text)
        if found is None or concept_of(unit.text[: found.start()]) != "rounding":
            continue
        adjustment = Decimal(found.group(2).replace(",", ".")) * (-1 if found.group(1) else 1)
        if not 0 < abs(adjustment) <= MAX_ROUNDING:
            return best
        rounded = Decimal(str(best.value)) + adjustment
        for after in below[index + 1 : index + 1 + ROUNDING_LINES]:
            for amount in _AMOUNT_RE.finditer(after.text):
                if Decimal(amount.group().replace(",", ".")) == rounded:
                    return Candidate.of(
                        format_amount(rounded), best.score, [after], amount.group(), best.strategy, best.label
                    )
        return best
    return best


def _lines_below(lines: list[TextUnit], unit: TextUnit) -> list[TextUnit]:
    """The lines of `unit`'s page under it, top down (in reading order where there are no boxes;
    `unit` may be a cell of a line, numbered apart from the lines)."""
    same_page = [u for u in lines if u.page == unit.page]
    box = unit.box
    if box is None or any(u.box is None for u in same_page):
        return sorted((u for u in same_page if u.order > unit.order), key=lambda u: u.order)
    middle = (box.y0 + box.y1) / 2
    return sorted(
        (u for u in same_page if u.box and u.box.y0 > middle), key=lambda u: u.box.y0 if u.box else 0.0
    )


def total_by_parts(ctx: FieldContext, best: Candidate) -> Candidate:
    """The subtotal plus its tax and rounding, where a payment line under them pays exactly that
    sum and the total read is another amount: two readings that agree (the parts' sum and the
    amount paid) outweigh one the OCR may have misread or lost ("TOTAL" with its amount under a
    stamp). Only a run of subtotal, tax, rounding and total lines counts: any other amount between
    them (a discount, a service charge) leaves the total as read."""
    subtotal: Decimal | None = None
    parts = Decimal(0)
    for unit in sorted(ctx.lines, key=lambda u: (u.page, u.order)):
        found = _SIGNED_AMOUNT_RE.search(unit.text)
        if found is None:
            continue
        amount = Decimal(found.group(2).replace(",", ".")) * (-1 if found.group(1) else 1)
        label = unit.text[: found.start()]
        # In one case too, as an OCR capital in a word ("RoundIng") is no start of a new word.
        concept = concept_of(label) or concept_of(label.lower())
        if concept == "subtotal":
            subtotal, parts = amount, Decimal(0)
        elif subtotal is None or amount == 0 or concept == "total":
            continue
        elif concept in ("tax", "rounding") and (concept == "tax" or abs(amount) <= MAX_ROUNDING):
            parts += amount
        elif concept == "payment" and parts != 0 and amount == subtotal + parts:
            if Decimal(str(best.value)) == amount:
                return best
            return Candidate.of(
                format_amount(amount), best.score, [unit], found.group(2), best.strategy, best.label
            )
        else:
            subtotal = None
    return best
