"""What a mark says: each value's review reasons come from the evidence its confidence came from;
the design gate splits clean evidence from doubtful, and keeps held-back values in their order.
Pure logic on made values and made documents."""

from __future__ import annotations

import pytest

from bench.calibration_gates import Value, group_shares
from extraction.fields.extract import extract_fields
from extraction.fields.model.calibration import (
    BELOW_HIGH,
    HIGH,
    REASONS,
    Fitted,
    Recalibration,
    Signals,
    assess,
    below_high,
    gate_kind,
)
from extraction.fields.model.result import FieldResult
from extraction.formats.document import Box
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit

KEY = "ocr|label_colon|valid"
#: A fit whose recalibration trusts the text's confidence and the label's match.
FITTED = Fitted(
    {KEY: 0.99, "ocr|label_colon": 0.99},
    {KEY: 500, "ocr|label_colon": 500},
    Recalibration(6.0, {"text_doubt": -8.0, "weak_match": -6.0, "contested": -2.0}),
    {KEY: 8, "ocr|label_colon": 8},
    {"ocr|label_colon": 0.95, "ocr|label_colon|clean": 0.97, "ocr|label_colon|doubt": 0.8},
)


def test_a_clean_value_of_well_read_evidence_has_no_reason_to_check() -> None:
    confidence, reasons = assess(FITTED, KEY, 0.9, Signals())
    assert confidence >= HIGH and reasons == []


def test_each_doubt_of_the_evidence_is_named_in_plain_words_in_order() -> None:
    signals = Signals(text_confidence=0.6, match=0.85, contested=True, rivals=1)
    confidence, reasons = assess(FITTED, KEY, 0.9, signals)
    assert confidence < HIGH
    assert reasons == [
        REASONS["text_doubt"],
        REASONS["weak_match"],
        REASONS["rival"],
        REASONS["design"],
    ]
    # A value no label named, on a page where little else was found, of a field no rule knows.
    _, reasons = assess(FITTED, KEY, 0.9, Signals(labelled=False, coverage=0.2, known_field=False))
    assert REASONS["unlabelled"] in reasons and REASONS["uncovered"] in reasons
    assert REASONS["unknown_field"] in reasons and REASONS["weak_match"] not in reasons
    _, reasons = assess(FITTED, "ocr|label_colon|invalid|ambiguous", 0.9, Signals())
    assert reasons[:2] == [REASONS["invalid"], REASONS["ambiguous"]]


def test_a_kind_of_page_or_design_the_evidence_does_not_know_is_a_reason() -> None:
    floors = {"ocr|label_colon": 0.4}
    fitted = Fitted(
        FITTED.table, FITTED.support, FITTED.recalibration, FITTED.groups, FITTED.group_share, floors
    )
    confidence, reasons = assess(fitted, KEY, 0.9, Signals(structure=0.1))
    assert confidence < HIGH and reasons == [REASONS["structure"]]
    confidence, reasons = assess(FITTED, "ocr|never_seen|valid", 0.9, Signals())
    assert confidence < HIGH and REASONS["design"] in reasons


def test_the_gate_splits_clean_evidence_from_doubtful_by_design_groups() -> None:
    clean, guessed = Signals(), Signals(labelled=False)
    assert gate_kind("form_fields|form_field|valid", clean) == "form_fields|form_field|clean"
    assert gate_kind("form_fields|form_field|valid", guessed) == "form_fields|form_field|doubt"
    assert gate_kind("ocr|label_colon|valid", Signals(text_confidence=0.7)) == "ocr|label_colon|doubt"
    key = "form_fields|form_field|valid"
    # Widgets known by their own names are right on every design; one set of forms whose widgets
    # were placed by a printed label beside them is often wrong. The guess does not hold back
    # the named widgets of every other form.
    values = []
    for group in ("a", "b", "c"):
        values += [Value(group, "s", key, 0.98, clean, True) for _ in range(20)]
    values += [Value("claims", "s", key, 0.98, guessed, i % 2 == 0) for i in range(20)]
    shares = group_shares(values, 0.5)
    assert shares["form_fields|form_field|clean"] > HIGH > shares["form_fields|form_field|doubt"]
    assert shares["form_fields|form_field"] < HIGH
    assert not below_high(shares, key, clean) and below_high(shares, key, guessed)
    # A split the fit never measured falls back to the kind's own share.
    assert below_high({"form_fields|form_field": 0.8}, key, clean)


def test_held_back_values_keep_their_order_by_their_own_evidence() -> None:
    sure, doubted = Signals(labelled=False), Signals(labelled=False, text_confidence=0.85)
    first, _ = assess(FITTED, KEY, 0.9, sure)
    second, _ = assess(FITTED, KEY, 0.9, doubted)
    assert second < first <= BELOW_HIGH


def test_a_widget_known_by_its_own_name_is_clean_and_one_placed_by_a_printed_label_is_not() -> None:
    b = DocBuilder(612, 792)
    b.form_field("Last_Name", "Van Dyke", Box(50, 60, 250, 74))
    b.line("MOBILE", 300, 100, 340, 108)
    b.form_field("Text2", "(860) 407-1782", Box(300, 110, 500, 124))
    results = extract_fields(b.doc, ["last_name", "cell_phone"], file_name="f.pdf")
    named, placed = results["last_name"], results["cell_phone"]
    assert named.value == "Van Dyke" and placed.value == "(860) 407-1782"
    assert named.signals is not None and named.signals.labelled
    assert placed.signals is not None and not placed.signals.labelled


def test_the_api_result_carries_the_reasons() -> None:
    result = FieldResult("x", 0.5, review_reasons=[REASONS["rival"]])
    assert result.to_dict()["review_reasons"] == ["another value competed"]
    assert FieldResult("y", 0.99).to_dict()["review_reasons"] == []
