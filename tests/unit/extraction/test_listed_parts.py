"""Several fields under one caption that lists them ("DOB / Age / Sex", "Phone (H) / (C)"), and an
EHR's "Contact" section row, which heads the patient's own details."""

from __future__ import annotations

import pytest

from extraction.fields.strategies.structure.listed_parts import listed_concepts, listed_kinds, listed_part
from tests.unit.extraction.doc_builders import DocBuilder, values

pytestmark = pytest.mark.unit


def test_a_caption_lists_phone_kinds_or_labels_in_order() -> None:
    assert listed_kinds("Phone (H) / (C)") == ["home_phone", "mobile"]
    assert listed_kinds("Tel H/W/C") == ["home_phone", "work_phone", "mobile"]
    assert listed_kinds("Home / Cell") == ["home_phone", "mobile"]
    # One kind, or letters without a phone word, list nothing.
    assert listed_kinds("Home Phone") == [] and listed_kinds("H / C") == []
    assert listed_concepts("DOB / Age / Sex") == ["date_of_birth", "age", "gender"]
    assert listed_concepts("Date/Time") == []


def test_the_value_gives_the_parts_in_the_captions_order() -> None:
    assert listed_part("Phone (H) / (C)", "518-634-7710 / (518) 694-4613", "mobile") == "(518) 694-4613"
    assert listed_part("Phone (C) / (H)", "518-634-7710 / (518) 694-4613", "mobile") == "518-634-7710"
    assert listed_part("DOB / Age / Sex", "09/02/1971 / 55 y / M", "gender") == "M"
    # Another count of parts than the caption lists says nothing of which is which.
    assert listed_part("Phone (H) / (C)", "518-634-7710", "mobile") is None
    assert listed_part("DOB / Age / Sex", "09/02/1971 / M", "gender") is None


def test_an_ehr_table_reads_its_listed_cells_and_its_contact_section_as_the_patients() -> None:
    b = DocBuilder(612, 792)
    rows = [
        ("Patient", None),
        ("Name", "QUILL, MARTA J"),
        ("DOB / Age / Sex", "03/14/1979 / 47 y / F"),
        ("Contact", None),
        ("Address", "18 FERN ROW"),
        ("Phone (H) / (C)", "402-555-0101 / (402) 555-0187"),
        ("E-mail Address", "MARTA.QUILL@EXAMPLE.ORG"),
    ]
    for i, (label, value) in enumerate(rows):
        y = 80 + 22 * i
        b.line(label, 50, y, 50 + 7 * len(label), y + 10)
        if value:
            b.line(value, 220, y, 220 + 7 * len(value), y + 10)
    assert values(b, ["gender", "cell_phone", "email", "address_1"]) == {
        "gender": "Female",
        "cell_phone": "(402) 555-0187",
        "email": "MARTA.QUILL@EXAMPLE.ORG",
        "address_1": "18 FERN ROW",
    }
