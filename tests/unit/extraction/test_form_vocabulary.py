"""Labels forms print in more than one way: a second wording after a slash (another language or a
synonym), "Legal" before a name's label, "Sex Assigned at Birth", "Plan" for the insurer. Every
input is made here for the rule it tests."""

from __future__ import annotations

import pytest

from extraction.fields import extract_fields
from extraction.fields.reading.normalize import concept_of, is_label_like
from extraction.fields.reading.other_wording import past_other_wording
from extraction.formats.document import Document
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit


def values(doc: Document, *names: str) -> dict[str, object]:
    return {name: r.value for name, r in extract_fields(doc, list(names), file_name="t.pdf").items()}


def test_the_value_follows_the_second_wording_of_its_label() -> None:
    text = "Date of Birth / Fecha de nacimiento: 03/14/1990"
    assert text[past_other_wording(text, len("Date of Birth"), "Date of Birth") or 0 :] == "03/14/1990"
    # A second wording naming other concepts is a combined label, read by other rules.
    assert past_other_wording("City / State / ZIP: Lowell", 4, "City") is None
    b = DocBuilder()
    b.line("Date of Birth / Fecha de nacimiento: 03/14/1990", 40, 100)
    b.line("Policy Number / Numero de poliza: QX7781204", 40, 130)
    b.line("Group Number / Numero de grupo: 5520317", 40, 160)
    assert values(b.doc, "dob", "policy_number", "group_number") == {
        "dob": "1990-03-14",
        "policy_number": "QX7781204",
        "group_number": "5520317",
    }


def test_a_heading_in_two_languages_holds_no_value() -> None:
    b = DocBuilder()
    b.line("Insurance / Seguro medico", 40, 100)
    assert values(b.doc, "ins_name") == {"ins_name": None}


def test_a_two_language_label_under_an_empty_one_is_no_value() -> None:
    b = DocBuilder()
    b.line("Middle Name / Segundo nombre:", 40, 100)
    b.line("Sex / Sexo: F", 40, 120)
    assert values(b.doc, "middle_name") == {"middle_name": None}


def test_stacked_labels_of_common_wordings() -> None:
    assert is_label_like("Legal First Name") and concept_of("Legal Last Name") == "last_name"
    b = DocBuilder()
    b.line("Legal First Name", 40, 100, 110, 108)
    b.line("Odile", 40, 110, 70, 122)
    b.line("Sex Assigned at Birth", 200, 100, 290, 108)
    b.line("Female", 200, 110, 236, 122)
    b.line("Plan: Tidewater Mutual", 40, 150)
    assert values(b.doc, "first_name", "gender", "ins_name") == {
        "first_name": "Odile",
        "gender": "Female",
        "ins_name": "Tidewater Mutual",
    }


def test_plan_compounds_keep_their_concepts() -> None:
    assert concept_of("Plan") == "insurer"
    assert concept_of("Plan ID") == "policy_id"
    assert concept_of("Plan Group") == "group_number"
    assert concept_of("Plan Type") == "plan_type"


def test_a_form_title_over_a_row_of_labels_is_no_value_they_caption() -> None:
    b = DocBuilder()
    b.line("Registration Form", 49, 44, 156, 59)
    b.line("First Name", 50, 72, 99, 84)
    b.line("Odile", 129, 71, 160, 85)
    b.line("Birth Date", 50, 97, 96, 110)
    b.line("03/14/1990", 130, 97, 180, 110)
    assert values(b.doc, "first_name") == {"first_name": "Odile"}
