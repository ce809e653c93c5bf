"""Item numbers opening a form's captions, as printed and as OCR reads them."""

from __future__ import annotations

import pytest

from extraction.fields.reading.normalize import without_item_number

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "bare"),
    [
        ("11c. PLAN NAME", "PLAN NAME"),
        ("11C. PLAN NAME", "PLAN NAME"),
        ("la. MEMBER NUMBER", "MEMBER NUMBER"),
        ("Ib. MEMBER NUMBER", "MEMBER NUMBER"),
        ("In the plan", "In the plan"),
        ("Lot 12. Street", "Lot 12. Street"),
    ],
)
def test_item_numbers_are_taken_off_captions(text: str, bare: str) -> None:
    assert without_item_number(text) == bare
