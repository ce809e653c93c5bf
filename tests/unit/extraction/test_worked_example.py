"""The worked example a model is shown, and the checks of an example's values (issue 37)."""

from __future__ import annotations

import pytest

from core.configs import ExtractParams
from core.errors import Unprocessable
from core.examples import with_examples
from extraction.examples import teach
from extraction.fields.documents.grounding import build_model_prompt
from extraction.formats.engines import parse_bytes
from extraction.jobs.teaching import check_fields
from extraction.jobs.worked_example import matched_example, worked_example
from tests.support.documents import intake_form, pdf_text

TAUGHT = {"patient_name": "Maria Okafor", "birth_date": "1987-03-14", "chart_ref": "QX-48213", "phone": None}


@pytest.fixture(scope="module")
def example() -> dict:
    doc = parse_bytes(intake_form("Maria Okafor", "03/14/1987", "QX-48213"), "taught.pdf")
    return {"example_id": "ex-1", "taught": teach(doc, TAUGHT).to_json()}


@pytest.fixture(scope="module")
def later():
    return parse_bytes(intake_form("Tobias Lindqvist", "11/02/1954", "ZK-90177"), "later.pdf")


def test_a_document_of_the_design_is_shown_the_examples_values_and_places(example: dict, later) -> None:
    text = worked_example(later, [example], ["chart_ref", "phone"])
    assert text is not None
    assert '- chart_ref: "QX-48213" (page 1, box [' in text
    assert "- phone: null (left empty on the example)" in text
    # Only the asked fields, and never this document's own values.
    assert "Okafor" not in text and "ZK-90177" not in text


def test_a_document_of_another_design_gets_no_worked_example(example: dict) -> None:
    other = parse_bytes(pdf_text([["Invoice 4411", "Bill to: Globex", "Total: 120.00 USD"]]), "inv.pdf")
    assert matched_example(other, [example]) is None
    assert worked_example(other, [example], ["chart_ref"]) is None
    assert worked_example(other, [], ["chart_ref"]) is None


def test_the_best_matching_example_is_the_one_shown(example: dict, later) -> None:
    invoice = parse_bytes(pdf_text([["Invoice 4411", "Bill to: Globex", "Total: 120.00 USD"]]), "inv.pdf")
    other = {"example_id": "ex-invoice", "taught": teach(invoice, {"total": "120.00"}).to_json()}
    assert matched_example(later, [other, example]) == example


def test_the_worked_example_goes_into_the_prompt() -> None:
    messages = build_model_prompt("the text", ["a"], None, '- a: "x" (page 1, box [1, 2, 3, 4])')
    assert "Worked example:\n- a:" in messages[-1]["content"]
    assert "Worked example" not in build_model_prompt("the text", ["a"], None)[-1]["content"]


def test_values_must_name_fields_of_the_config() -> None:
    params = ExtractParams(json_options=["name", "dob"])
    check_fields(params, {"name": "A", "dob": None})
    with pytest.raises(Unprocessable, match="not fields of this config: ssn, mrn"):
        check_fields(params, {"name": "A", "ssn": "1", "mrn": "2"})
    with pytest.raises(Unprocessable, match="at least one field"):
        check_fields(params, {})


def test_job_params_carry_examples_only_when_there_are_some() -> None:
    params = {"json_options": ["a"]}
    assert with_examples(params, []) is params
    taught = [{"example_id": "e", "taught": {}}]
    assert with_examples(params, taught) == {"json_options": ["a"], "examples": taught}
