"""Units under a label, row by row and each row left to right, whatever their tops."""

from __future__ import annotations

import pytest

from extraction.fields import extract_fields
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit


def test_a_value_split_by_ocr_reads_from_its_start() -> None:
    b = DocBuilder(612, 792)
    b.line("2. PATIENT'S NAME (Last Name, First Name, Middle Initial)", 50, 100, 400, 110)
    # The initial's box starts a little higher than the rest of the name.
    b.line("INGRAM, ELOWEN,", 60, 118, 200, 132)
    b.line("F", 206, 115, 214, 132)
    result = extract_fields(b.doc, ["first_name", "last_name"], file_name="doc.pdf")
    assert result["last_name"].value == "INGRAM"
    assert result["first_name"].value == "ELOWEN"
