"""A date in cells under a caption whose order of parts OCR misread ("BIRTH DATE  MM da")."""

from __future__ import annotations

import pytest

from extraction.fields import extract_fields
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit


def test_numbers_under_a_birth_date_caption_are_read_in_the_documents_order() -> None:
    b = DocBuilder(612, 792)
    b.line("3. PATIENT'S BIRTH DATE MM", 50, 100, 250, 110)
    b.line("Wx da", 260, 100, 300, 110)
    b.line("07 08 1980", 60, 114, 160, 126)
    result = extract_fields(b.doc, ["dob"], file_name="doc.pdf")
    assert result["dob"].value == "1980-07-08"


def test_numbers_of_another_shape_are_no_date() -> None:
    b = DocBuilder(612, 792)
    b.line("BIRTH DATE", 50, 100, 150, 110)
    b.line("208 898 2404", 60, 114, 160, 126)
    result = extract_fields(b.doc, ["dob"], file_name="doc.pdf")
    assert result["dob"].value is None
