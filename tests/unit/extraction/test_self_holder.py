"""A policy holder answered "Self" is the patient (`extraction.fields.strategies.structure.self_holder`)."""

from __future__ import annotations

import pytest

from extraction.fields import extract_fields
from extraction.fields.strategies.structure.self_holder import names_the_patient
from tests.unit.extraction.doc_builders import DocBuilder

HOLDER_FIELDS = ["subscriber_name", "subscriber_first_name", "subscriber_last_name"]


def _form(holder: str) -> DocBuilder:
    b = DocBuilder()
    b.line("Last Name: Vantongeren", 40, 40)
    b.line("First Name: Odalys", 320, 40)
    b.line("Insurance Company: Lakeshore Mutual", 40, 90)
    b.line(f"Subscriber Name: {holder}", 40, 120)
    return b


@pytest.mark.parametrize("answer", ["Self", "SAME", "(self)", "Same as patient"])
def test_a_holder_answered_self_is_the_patient(answer: str) -> None:
    got = extract_fields(_form(answer).doc, HOLDER_FIELDS, file_name="t.pdf")
    assert got["subscriber_name"].value == "Odalys Vantongeren"
    assert got["subscriber_first_name"].value == "Odalys"
    assert got["subscriber_last_name"].value == "Vantongeren"
    # Cited at the answer and at the patient's name.
    assert len(got["subscriber_last_name"].citations) == 2


def test_a_named_holder_stays_the_holder() -> None:
    got = extract_fields(_form("Tobias Vantongeren").doc, HOLDER_FIELDS, file_name="t.pdf")
    assert got["subscriber_name"].value == "Tobias Vantongeren"
    assert got["subscriber_first_name"].value == "Tobias"


def test_self_without_the_patients_name_stays_as_stated() -> None:
    b = DocBuilder()
    b.line("Subscriber Name: Self", 40, 120)
    assert extract_fields(b.doc, ["subscriber_name"], file_name="t.pdf")["subscriber_name"].value == "Self"


@pytest.mark.parametrize(
    ("text", "self_"),
    [("Self", True), ("SAME", True), ("Selfridge", False), ("Spouse", False), (None, False)],
)
def test_answers_that_name_the_patient(text: str | None, self_: bool) -> None:
    assert names_the_patient(text) is self_
