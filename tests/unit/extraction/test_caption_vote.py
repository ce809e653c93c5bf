"""The page's vote on which way its labels go, when rows packed tight cannot tell a caption under
a value from the label of the row below."""

from __future__ import annotations

import pytest

from extraction.fields import extract_fields
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit


def _tight_rows(b: DocBuilder) -> None:
    # Handwritten values taller than their labels, each touching the label of the row below.
    b.line("Last name", 47, 79, 75, 87)
    b.line("Quillon", 57, 91, 105, 109)
    b.line("Date of birth", 48, 109, 81, 119)
    b.line("05-09-1947", 56, 125, 111, 137)


def test_a_page_that_sets_labels_above_reads_tight_rows_that_way() -> None:
    b = DocBuilder(612, 792)
    _tight_rows(b)
    # The last row: a label with its value under it and nothing under the value.
    b.line("Member ID", 49, 267, 89, 276)
    b.line("V1937164857", 53, 282, 137, 297)
    result = extract_fields(b.doc, ["last_name"], file_name="doc.pdf")
    assert result["last_name"].value == "Quillon"


def test_a_page_that_prints_captions_under_keeps_reading_them_under() -> None:
    b = DocBuilder(612, 792)
    b.line("Patient Information", 47, 40, 140, 50)
    b.line("Hartwell", 57, 62, 105, 74)
    b.line("Last name", 57, 75, 85, 83)
    b.line("Quillon", 57, 91, 105, 109)
    b.line("First name", 57, 109, 95, 119)
    result = extract_fields(b.doc, ["last_name", "first_name"], file_name="doc.pdf")
    assert result["last_name"].value == "Hartwell"
    assert result["first_name"].value == "Quillon"


def test_the_first_row_of_labels_votes_for_labels_above() -> None:
    # A grid whose cells set a caption at the top and the value at the bottom: each value sits
    # nearer the next row's caption than its own. Only the first caption, with nothing over
    # it, and the last value, with nothing under it, tell the way.
    b = DocBuilder(612, 792)
    b.line("1. MEMBER NUMBER", 50, 100, 200, 110)
    b.line("TMZ4486617", 60, 118, 160, 130)
    b.line("11c. INSURANCE PLAN NAME", 50, 132, 250, 142)
    b.line("KEYSTONE TRUST", 60, 150, 200, 162)
    b.line("17b. NPI", 50, 164, 110, 174)
    b.line("1962755096", 60, 182, 160, 194)
    result = extract_fields(b.doc, ["ins_name", "policy_number"], file_name="doc.pdf")
    assert result["ins_name"].value == "KEYSTONE TRUST"
    assert result["policy_number"].value == "TMZ4486617"
