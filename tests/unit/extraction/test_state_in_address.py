"""A state's code that is also a label word ("ID"), between a town and its ZIP code, is part of an
address: no label of the number after it."""

from __future__ import annotations

import pytest

from extraction.fields import extract_fields
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit


def test_a_state_code_in_an_address_labels_nothing() -> None:
    b = DocBuilder(612, 792)
    b.line("4410 Larchmont Way, Pocatello, ID 83201", 50, 40)
    b.line("Policy / ID Number", 50, 200, 200, 210)
    b.line("QX88120457", 50, 214, 150, 226)
    result = extract_fields(b.doc, ["policy_number"], file_name="doc.pdf")
    assert result["policy_number"].value == "QX88120457"


def test_a_label_id_after_a_word_still_labels_its_value() -> None:
    b = DocBuilder(612, 792)
    b.line("Member ID 83201774", 50, 40)
    result = extract_fields(b.doc, ["policy_number"], file_name="doc.pdf")
    assert result["policy_number"].value == "83201774"


def test_a_state_code_under_the_state_label_is_its_value_not_a_label() -> None:
    b = DocBuilder(612, 792)
    b.line("City", 300, 100, 320, 110)
    b.line("State", 420, 100, 445, 110)
    b.line("ZIP", 480, 100, 495, 110)
    b.line("Pocatello", 300, 114, 350, 126)
    b.line("ID", 425, 114, 437, 126)
    b.line("83201", 480, 114, 515, 126)
    b.line("Member ID", 50, 200, 110, 210)
    b.line("QX88120457", 50, 214, 150, 226)
    result = extract_fields(b.doc, ["state", "policy_number"], file_name="doc.pdf")
    assert result["state"].value == "ID"
    assert result["policy_number"].value == "QX88120457"
