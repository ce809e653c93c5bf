"""A choice's options on the row under its caption, set a little to its left ("SEX" over
"☒ M ☐ F"), as a scan of a claim form gives them."""

from __future__ import annotations

import pytest

from extraction.fields import extract_fields
from extraction.fields.reading.choices import marked_option
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit


def test_the_boxed_options_under_a_caption_answer_it() -> None:
    b = DocBuilder(612, 792)
    b.line("3. BIRTH DATE", 50, 100, 150, 110)
    b.line("SEX", 300, 100, 320, 110)
    b.line("04 19 1966", 60, 114, 140, 126)
    b.line("\u2610 M", 240, 114, 262, 126)
    b.line("\u2612 F", 268, 114, 296, 126)
    result = extract_fields(b.doc, ["gender"], file_name="doc.pdf")
    assert result["gender"].value == "Female"


def test_a_crossed_box_read_as_an_ideograph_is_a_tick() -> None:
    assert marked_option("\u25a1M \u5188F", ["M", "F"]) == "F"
