"""Option initials OCR read as one word ("☒ MF"): each letter is an option of its own."""

from __future__ import annotations

import pytest

from extraction.fields.reading.choices import marked_initial

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "option"),
    [("\u2612 MF", "Male"), ("\u2612 FM", "Female"), ("M \u2612F", "Female"), ("\u2612 MM", None)],
)
def test_glued_initials_are_read_as_options(text: str, option: str | None) -> None:
    assert marked_initial(text, ["Male", "Female"]) == option
