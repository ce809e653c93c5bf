"""The document-level signal of how much of a page's structure the evidence knows, the structure
gate it feeds, and the fit's whole-kind-left-out judging. Documents made for each rule."""

from __future__ import annotations

import pytest

from bench.calibration_gates import Value, coverage_floors, group_shares, structure_floors
from bench.fit_calibration import cross_validate, fit, kind_of
from extraction.fields.extract import extract_fields
from extraction.fields.model.calibration import (
    ANY_KIND,
    BELOW_HIGH,
    HIGH,
    Fitted,
    Recalibration,
    Signals,
    below_structure,
    confidence_of,
)
from extraction.fields.model.structure import known_structure, reads_as_label
from extraction.fields.reading.layout import cell_units
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit

KEY = "text_layer|label_colon|valid"
CLAUSES = (
    "This agreement is entered into by and between the parties named below and shall",
    "remain in force for as long as either of them holds information of the other that",
    "was disclosed in confidence, and no party shall disclose it to any third person without",
    "the prior written consent of the party that disclosed it, except as the law requires.",
    "Each party shall return or destroy the information when the other party asks it to.",
)


def intake_form() -> DocBuilder:
    b = DocBuilder()
    for y, line in enumerate(
        ("First Name: Ann", "Last Name: Lee", "Date of Birth: 03/04/1985", "Phone: (720) 668-1655")
    ):
        b.line(line, 40, 40 + 30 * y)
    return b


def contract() -> DocBuilder:
    b = DocBuilder()
    b.line("MUTUAL NONDISCLOSURE AGREEMENT", 40, 20)
    for y, clause in enumerate(CLAUSES):
        b.line(clause, 40, 60 + 20 * y)
    b.line("Date of Birth: 03/04/1985", 40, 200)
    return b


def test_a_label_or_the_text_before_a_colon_reads_as_known_structure() -> None:
    assert reads_as_label("Date of Birth: 03/04/1985")
    assert reads_as_label("PATIENT LAST NAME")
    assert not reads_as_label(CLAUSES[0])
    assert not reads_as_label("2 x Nasi Lemak   9.00")
    assert not reads_as_label(": 12")


def test_a_form_of_labels_knows_its_structure_and_a_contract_does_not() -> None:
    form = known_structure(cell_units(intake_form().doc))
    agreement = known_structure(cell_units(contract().doc))
    assert form == 1.0
    # One label among a title and five clauses.
    assert agreement == pytest.approx(1 / 7, abs=1e-3)
    assert known_structure([]) == 0.0


def test_a_forms_widgets_count_by_their_names() -> None:
    # A fillable form states its structure for machines: a widget named as a label is known,
    # one named "Text12" is not.
    assert known_structure([], ["Name_First", "Birthdate"]) == 1.0
    assert known_structure([], ["Name_First", "Text12"]) == 0.5
    b = DocBuilder()
    b.form_field("Name_First", "Cedar")
    b.form_field("Birthdate", "08/29/2020")
    found = extract_fields(b.doc, ["first_name"], file_name="f.pdf")["first_name"]
    assert found.value == "Cedar" and found.signals is not None and found.signals.structure == 1.0


def test_extraction_carries_the_documents_structure_on_every_value() -> None:
    form = extract_fields(intake_form().doc, ["first_name", "date_of_birth"], file_name="f.pdf")
    agreement = extract_fields(contract().doc, ["date_of_birth"], file_name="c.pdf")
    assert form["first_name"].value == "Ann" and form["date_of_birth"].value == "1985-03-04"
    assert agreement["date_of_birth"].value == "1985-03-04"
    assert {r.signals.structure for r in form.values() if r.signals} == {1.0}
    signals = agreement["date_of_birth"].signals
    assert signals is not None and signals.structure == pytest.approx(1 / 7, abs=1e-3)


def test_a_value_on_a_page_less_structured_than_its_kinds_floor_stays_under_high() -> None:
    fitted = Fitted(
        {KEY: 0.99}, {KEY: 500}, Recalibration(6.0, {}), {KEY: 6}, {}, {"text_layer|label_colon": 0.3}
    )
    assert below_structure(fitted.structure_floor, KEY, 0.1)
    assert not below_structure(fitted.structure_floor, KEY, 0.3)
    assert confidence_of(fitted, KEY, 0.9, Signals(structure=0.1)) <= BELOW_HIGH
    assert confidence_of(fitted, KEY, 0.9, Signals(structure=0.5)) >= HIGH
    # A kind without a floor (no design group read it right often enough) is left to the design
    # gate; without a fit's floors there is no structure gate at all.
    assert not below_structure(fitted.structure_floor, "ocr|label_colon|valid", 0.0)
    assert not below_structure({}, KEY, 0.0)


def _value(
    group: str, structure: float, right: bool, set_name: str = "s", key: str = KEY, document: str = ""
) -> Value:
    return Value(
        group, set_name, key, 0.9, Signals(structure=structure), right, document or f"{group}/{structure}"
    )


def test_the_floor_is_the_least_structure_a_group_read_right_showed() -> None:
    # Group a: right at 0.5-0.9 structure. Group b: as structured, right.
    # Group c: right half the time at 0.05: it does not lower the floor.
    values = [_value("a", 0.5 + 0.01 * i, True) for i in range(40)]
    values += [_value("b", 0.4 + 0.01 * i, True) for i in range(40)]
    values += [_value("c", 0.05, i % 2 == 0) for i in range(40)]
    floors = structure_floors(values)
    assert floors["text_layer|label_colon"] == pytest.approx(0.43)
    # A group's few odd documents do not set its floor: its low quantile does.
    values.append(_value("b", 0.0, True))
    assert structure_floors(values)["text_layer|label_colon"] == pytest.approx(0.43)
    # Nor does a group of fewer documents than `LEAST_GROUP_DOCUMENTS`, however right.
    values += [_value("d", 0.01, True, document="d/one") for _ in range(40)]
    assert structure_floors(values)["text_layer|label_colon"] == pytest.approx(0.43)
    values += [_value("d", 0.01, True, document=f"d/{n}") for n in range(2)]
    assert structure_floors(values)["text_layer|label_colon"] == pytest.approx(0.01)
    # A kind no group read right often enough gets no floor.
    assert "ocr|label_inline" not in structure_floors(
        [_value("c", 0.5, i % 2 == 0, key="ocr|label_inline") for i in range(40)]
    )


def test_a_kind_left_out_is_scored_by_a_fit_that_saw_no_document_of_its_kind() -> None:
    values = [
        _value(f"intake/{d}", 0.6, True, "synthetic_intake", document=f"{d}{i % 5}")
        for d in "abc"
        for i in range(30)
    ]
    values += [_value("intake", 0.6, True, "intake", document=f"i{i % 5}") for i in range(30)]
    values += [
        _value(f"nda{g}", 0.05, i % 3 != 0, "nda", document=f"{g}{i % 5}") for g in "xy" for i in range(30)
    ]
    seen: dict[frozenset[str], int] = {}

    def fitter(train: list[Value]) -> Fitted:
        seen[frozenset(kind_of(v) for v in train)] = len(train)
        return fit(train)

    scored = cross_validate(values, fitter, kind_of)
    assert set(seen) == {frozenset({"intake forms"}), frozenset({"contracts"})}
    assert kind_of(values[0]) == kind_of(values[100]) == "intake forms"
    contracts = [c for c, v in scored if v.set_name == "nda"]
    # The contracts' label values sit far below the floor the intake forms set.
    assert len(contracts) == 60 and max(contracts) < HIGH


def test_a_strategys_floor_holds_whatever_the_engine_and_kinds_without_one_get_the_highest() -> None:
    # Scanned receipts read by a label right at 0.15 structure vouch for the same label strategy on
    # a text layer; widgets seen right on too few documents to set a floor need the highest.
    values = [_value(f"r{i % 2}", 0.15 + 0.01 * i, True, key="ocr|label_colon|valid") for i in range(40)]
    values += [
        _value(f"r{i % 2}", 0.15 + 0.01 * i, True, key="ocr|label_colon|valid", document=f"d{i}")
        for i in range(40)
    ]
    values += [_value("i", 0.5 + 0.001 * i, True, document=f"i{i}") for i in range(40)]
    values += [_value("w", 0.2, True, key="form_fields|form_field|valid", document="w") for _ in range(5)]
    floors = structure_floors(values)
    assert floors["text_layer|label_colon"] == floors["ocr|label_colon"] < 0.2
    assert "form_fields|form_field" not in floors and floors[ANY_KIND] == max(
        f for k, f in floors.items() if k != ANY_KIND
    )
    assert below_structure(floors, "form_fields|form_field|valid", 0.1)


def test_values_the_structure_gate_holds_do_not_lower_the_design_share() -> None:
    # Forms whose pages the evidence knows read widgets right; a set of unfamiliar pages (pet
    # claim forms, known structure 0.1) reads them wrong half the time: held back by the
    # structure gate, they do not hold back the widgets of every form.
    key = "form_fields|form_field|valid"
    values = [_value(g, 0.6, True, key=key, document=f"{g}{i}") for g in ("a", "b", "c") for i in range(10)]
    values += [_value("claims", 0.1, i % 2 == 0, key=key, document=f"c{i}") for i in range(10)]
    floors = {"form_fields|form_field": 0.4}
    assert group_shares(values, 0.5)["form_fields|form_field"] < HIGH
    assert group_shares(values, 0.5, floors)["form_fields|form_field"] > HIGH


def test_a_little_structured_page_with_less_of_the_asked_fields_found_than_its_kinds_floor_stays_under_high() -> (
    None
):
    # Receipts read right at 0.15-0.2 structure had every asked field found; a pet claim form at
    # the same structure found half of a patient's fields, and those often the owner's or the vet's.
    values = [
        Value(
            f"r{i % 2}",
            "receipts",
            "ocr|label_colon|valid",
            0.9,
            Signals(coverage=1.0, structure=0.15 + 0.001 * i),
            True,
            f"d{i}",
        )
        for i in range(40)
    ]
    floors = coverage_floors(values)
    assert floors["ocr|label_colon"] == 1.0
    fitted = Fitted(
        {"ocr|label_colon|valid": 0.99},
        {"ocr|label_colon|valid": 500},
        Recalibration(6.0, {}),
        {"ocr|label_colon|valid": 6},
        {},
        {"ocr|label_colon": 0.15, ANY_KIND: 0.5},
        floors,
    )
    key = "ocr|label_colon|valid"
    assert confidence_of(fitted, key, 0.9, Signals(coverage=1.0, structure=0.2)) >= HIGH
    assert confidence_of(fitted, key, 0.9, Signals(coverage=0.5, structure=0.2)) <= BELOW_HIGH
    # A page as structured as the forms the fit knows is judged by its structure alone: a form
    # asked for fields it does not hold is still a form.
    assert confidence_of(fitted, key, 0.9, Signals(coverage=0.5, structure=0.6)) >= HIGH
