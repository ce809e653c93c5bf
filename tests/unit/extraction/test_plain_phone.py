"""A cell phone field read from a telephone label that names no kind, where nothing else says
which number is the patient's cell."""

from __future__ import annotations

import pytest

from extraction.fields import extract_fields
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit


def _cell(b: DocBuilder) -> object:
    return extract_fields(b.doc, ["cell_phone"], file_name="doc.pdf")["cell_phone"].value


def test_the_first_plain_telephone_after_the_patients_name_is_the_cell_phone() -> None:
    b = DocBuilder(612, 792)
    b.line("2. PATIENT'S NAME (Last Name, First Name)", 50, 100, 300, 108)
    b.line("QUILL, MARTA", 50, 112, 150, 122)
    b.line("TELEPHONE (Include Area Code)", 50, 140, 200, 148)
    b.line("(402) 555-0187", 50, 152, 130, 162)
    b.line("TELEPHONE", 320, 140, 380, 148)
    b.line("(402) 555-0342", 320, 152, 400, 162)
    assert _cell(b) == "(402) 555-0187"


def test_an_office_telephone_is_not_the_patients() -> None:
    b = DocBuilder(612, 792)
    # Above every question about the patient: the letterhead's number.
    b.line("Telephone: (402) 555-0100", 50, 40, 250, 50)
    b.line("Patient Name: Marta Quill", 50, 100, 250, 110)
    b.line("Tel (402) 555-0111 Fax (402) 555-0112", 50, 700, 300, 710)
    assert _cell(b) is None


def test_a_telephone_with_unmarked_kinds_beside_it_stays_unread() -> None:
    b = DocBuilder(612, 792)
    b.line("Patient Name: Marta Quill", 50, 100, 250, 110)
    b.line("Phone: (402) 555-0187  Home  Cell  Work", 50, 130, 350, 140)
    assert _cell(b) is None
