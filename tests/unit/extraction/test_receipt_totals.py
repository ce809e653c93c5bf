"""A receipt's total from its parts, where the amount paid agrees with their sum."""

from __future__ import annotations

import pytest

from extraction.fields import extract_fields
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit


def _total(rows: list[str]) -> str | None:
    b = DocBuilder(width=480, height=1000, source="ocr")
    for index, text in enumerate(["HARBOUR GROCERS", "12 Mill Lane", *rows]):
        y = 30 + index * 30
        b.line(text, 40, y, 40 + 9 * len(text), y + 18, confidence=0.9)
    value = extract_fields(b.doc, ["total"], file_name="r.png")["total"].value
    return None if value is None else str(value)


def test_a_misread_total_gives_way_to_the_parts_sum_the_payment_agrees_with() -> None:
    # OCR read the total's last digit wrong, and a capital I into "Rounding".
    rows = ["Sub Total : 106.10", "Total GST : 6.37", "RoundIng : -0.02", "Total : 112.46", "Cash : 112.45"]
    assert _total(rows) == "112.45"


@pytest.mark.parametrize(
    "rows",
    [
        # The customer paid more than the sum and got change: the total stays as read.
        ["Sub Total 40.00", "Tax 2.40", "TOTAL 42.40", "CASH 50.00", "CHANGE 7.60"],
        # A discount between the parts: the sum of subtotal and tax is not what was paid.
        ["Sub Total 40.00", "Discount -4.00", "Tax 2.40", "TOTAL 38.40", "CASH 42.40"],
        # No tax and no rounding: the subtotal alone agrees with nothing new.
        ["Sub Total 40.00", "TOTAL 41.00", "CASH 40.00"],
    ],
)
def test_the_total_read_stays_unless_the_parts_and_the_payment_agree(rows: list[str]) -> None:
    read = next(r for r in rows if r.startswith("TOTAL")).split()[-1]
    assert _total(rows) == read


def test_a_row_label_packed_tight_under_the_total_is_no_caption_of_it() -> None:
    # Boxes taller than the line pitch: "CASH" starts above the bottom of "Total"'s box. It labels
    # its own amount beside it, so it captions nothing and the total keeps its label's value.
    b = DocBuilder(width=480, height=1000, source="ocr")
    b.line("HARBOUR GROCERS", 40, 30, 200, 48, confidence=0.9)
    b.line("Item(s) : 3", 40, 100, 160, 130, confidence=0.9)
    for y, label, amount in [(140, "Total Incl. Tax @6%", "RM 37.10"), (170, "CASH", "RM 50.00")]:
        b.line(label, 40, y + 3, 40 + 11 * len(label), y + 40, confidence=0.9)
        b.line(amount, 380, y, 460, y + 36, confidence=0.9)
    assert extract_fields(b.doc, ["total"], file_name="r.png")["total"].value == "37.10"
