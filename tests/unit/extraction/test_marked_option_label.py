"""A ticked option read on its own line of a scan ("X GROUP") answers its choice: it labels
nothing beside it, however much its word looks like a label."""

from __future__ import annotations

import pytest

from extraction.fields import extract_fields
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit


def test_a_ticked_option_is_no_label_of_the_value_beside_it() -> None:
    b = DocBuilder(612, 792)
    b.line("1. PLAN TYPE", 50, 100, 200, 110)
    b.line("X GROUP", 60, 114, 120, 126)
    b.line("QX88120457", 300, 114, 400, 126)
    b.line("11. INSURED'S POLICY GROUP OR FECA NUMBER", 50, 200, 300, 210)
    b.line("4725292", 60, 214, 120, 226)
    result = extract_fields(b.doc, ["group_number"], file_name="doc.pdf")
    assert result["group_number"].value == "4725292"


def test_a_row_of_options_is_no_label_of_the_number_beside_it() -> None:
    b = DocBuilder(612, 792)
    b.line("Phone", 50, 100, 90, 110)
    b.line("Other phone", 300, 100, 370, 110)
    b.line("912.812.8564", 60, 114, 140, 126)
    b.line("Home \u2612 Cell Work", 150, 114, 260, 126)
    b.line("912.609.8515", 300, 114, 380, 126)
    result = extract_fields(b.doc, ["cell_phone"], file_name="doc.pdf")
    assert result["cell_phone"].value != "912.609.8515"
