"""Calibrated confidence: the evidence table, the recalibration on agreement signals, and the
design-grouped cross-validation that judges them. Pure logic on made values."""

from __future__ import annotations

import pytest

from bench.calibration_gates import DESIGN_SPREAD, GROUP_PRIOR, SPREADS, Value, group_shares, levels
from bench.fit_calibration import (
    choose_spread,
    cross_validate,
    design_group,
    fit,
    fit_logistic,
    fit_table,
    out_of_group_features,
)
from extraction.fields.extract import extract_fields, with_coverage
from extraction.fields.model.calibration import (
    INVALID_CAP,
    MAX_CONFIDENCE,
    Figure,
    Fitted,
    Recalibration,
    Signals,
    below_high,
    calibrated_confidence,
    confidence_of,
    evidence_key,
    evidence_keys,
    features,
)
from extraction.fields.model.result import FieldResult
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit

AGREEING = Signals()


def _values(group: str, key: str, right: int, wrong: int, signals: Signals = AGREEING) -> list[Value]:
    return [Value(group, "s", key, 0.9, signals, True)] * right + [
        Value(group, "s", key, 0.9, signals, False)
    ] * wrong


def test_evidence_keys_go_from_specific_to_broad() -> None:
    key = evidence_key("ocr", "label_colon", True, ambiguous=True)
    assert evidence_keys(key) == [
        "ocr|label_colon|valid|ambiguous",
        "ocr|label_colon|valid",
        "ocr|label_colon",
        "ocr",
    ]
    assert levels("ocr|label_colon|valid") == ["ocr", "ocr|label_colon", "ocr|label_colon|valid"]


def test_the_table_smooths_rare_keys_towards_broader_ones_and_counts_support() -> None:
    values = _values("g", "ocr|label_colon|valid", 40, 10) + _values("g", "ocr|label_colon|invalid", 0, 1)
    table, support, groups = fit_table(values)
    assert table["ocr|label_colon|valid"] == pytest.approx(0.8, abs=0.02)
    # One wrong value does not make its key 0: it is pulled towards its parent's share.
    assert 0.5 < table["ocr|label_colon|invalid"] < table["ocr|label_colon|valid"]
    assert support["ocr|label_colon|valid"] == 50 and support["ocr"] == 51
    assert groups["ocr|label_colon|valid"] == 1


def test_without_a_recalibration_the_table_or_the_prior_decides() -> None:
    fitted = Fitted({"ocr|label_colon": 0.9}, {"ocr|label_colon": 10}, None)
    assert confidence_of(fitted, "ocr|label_colon|valid", 0.5, AGREEING) == 0.9
    # Evidence the table never showed keeps its strategy's prior, scaled by the text's confidence.
    assert confidence_of(fitted, "ocr|never_seen|valid", 0.6, AGREEING) == 0.6
    assert confidence_of(fitted, "ocr|never_seen|valid", 0.6, Signals(text_confidence=0.5)) == 0.3


def test_invalid_values_are_never_certain_and_nothing_is_above_the_cap() -> None:
    sure = Fitted({"form_fields|form_field": 1.0}, {"form_fields|form_field": 500}, None)
    assert (
        confidence_of(sure, evidence_key("form_fields", "form_field", False), 0.98, AGREEING) <= INVALID_CAP
    )
    assert (
        confidence_of(sure, evidence_key("form_fields", "form_field", True), 0.98, AGREEING) <= MAX_CONFIDENCE
    )


def test_disagreeing_signals_lower_the_confidence_of_the_same_evidence() -> None:
    recalibration = Recalibration(
        0.0,
        {
            "table_logit": 1.0,
            "contested": -2.0,
            "weak_match": -3.0,
            "unknown_field": -1.0,
            "text_doubt": -4.0,
            "rivals": -1.0,
            "uncovered": -2.0,
        },
    )
    fitted = Fitted({"ocr|label_right": 0.95}, {"ocr|label_right": 100}, recalibration)
    key = "ocr|label_right|unchecked"
    agreeing = confidence_of(fitted, key, 0.9, AGREEING)
    for doubt in (
        Signals(contested=True),
        Signals(match=0.7),
        Signals(known_field=False),
        Signals(text_confidence=0.6),
        Signals(rivals=3),
        Signals(coverage=0.3),
    ):
        assert confidence_of(fitted, key, 0.9, doubt) < agreeing


def test_features_mark_evidence_the_table_never_saw() -> None:
    seen = features(Figure(0.9, 40, 3), "ocr|label_right|valid", AGREEING)
    unseen = features(Figure(0.9), "text_layer|label_right|unchecked", Signals(match=0.8, known_field=False))
    assert seen["log_groups"] > unseen["log_groups"] == 0.0 == unseen["log_support"]
    # No feature of its own marks unseen evidence: a fit could weigh it up into trust.
    assert "unseen" not in unseen
    assert seen["validated"] == 1.0 and unseen["validated"] == 0.0
    assert unseen["weak_match"] == pytest.approx(0.2) and unseen["unknown_field"] == 1.0
    assert seen["ocr"] == 1.0 and unseen["ocr"] == 0.0


def test_the_logistic_fit_follows_the_evidence() -> None:
    rows = [{"contested": 0.0}] * 90 + [{"contested": 0.0}] * 10 + [{"contested": 1.0}] * 50 * 2
    labels = [True] * 90 + [False] * 10 + [True] * 50 + [False] * 50
    model = fit_logistic(rows, labels)
    assert model.apply({"contested": 0.0}) == pytest.approx(0.9, abs=0.03)
    assert model.apply({"contested": 1.0}) == pytest.approx(0.5, abs=0.05)


def test_a_groups_table_figures_come_from_a_table_without_it() -> None:
    # Group "a" is always right with this key, group "b" always wrong: out of group, each sees
    # only the other's share.
    values = _values("a", "ocr|x|valid", 20, 0) + _values("b", "ocr|x|valid", 0, 20)
    rows = out_of_group_features(values)
    assert rows[0]["table_logit"] < 0 < rows[-1]["table_logit"]


def test_cross_validation_scores_each_group_by_a_fit_that_never_saw_it() -> None:
    values = (
        _values("a", "ocr|x|valid", 5, 1)
        + _values("b", "ocr|y|valid", 4, 2)
        + _values("c", "ocr|x|valid", 3, 3)
    )
    seen_by_fit: list[set[str]] = []

    def spy(train: list[Value]) -> Fitted:
        seen_by_fit.append({v.group for v in train})
        return fit(train)

    scored = cross_validate(values, spy)
    assert len(scored) == len(values)
    assert sorted(map(sorted, seen_by_fit)) == [["a", "b"], ["a", "c"], ["b", "c"]]


def test_design_groups_hold_out_whole_designs_or_sets() -> None:
    assert (
        design_group({"set": "synthetic_intake", "design": "claim_grid", "id": "x"})
        == "synthetic_intake/claim_grid"
    )
    assert design_group({"set": "intake", "id": "intake/intake_001.pdf"}) == "intake"
    receipt = design_group({"set": "receipts", "id": "receipts/001.jpg"})
    assert receipt.startswith("receipts/") and receipt == design_group(
        {"set": "receipts", "id": "receipts/001.jpg"}
    )


def test_the_design_average_share_weighs_each_group_the_same() -> None:
    # One big familiar group always right, two small new designs mostly wrong: pooled, the key
    # looks sure; averaged over designs, it does not.
    values = (
        _values("big", "text_layer|label_right|valid", 300, 0)
        + _values("new1", "text_layer|label_right|valid", 4, 6)
        + _values("new2", "text_layer|label_right|valid", 5, 5)
        + _values("tiny", "text_layer|label_right|valid", 0, 2)
    )
    shares = group_shares(values)
    table, _, _ = fit_table(values)
    assert table["text_layer|label_right"] > 0.9
    # The mean of the three groups' shares, each smoothed towards the kind's share over all
    # groups (309 right of 322), less `DESIGN_SPREAD` deviations between them; the group of two
    # values is too small to count.
    pooled = 310 / 324
    per_group = [(ok + GROUP_PRIOR * pooled) / (n + GROUP_PRIOR) for ok, n in ((300, 300), (4, 10), (5, 10))]
    mean = sum(per_group) / 3
    spread = (sum((s - mean) ** 2 for s in per_group) / 2) ** 0.5
    assert shares["text_layer|label_right"] == pytest.approx(mean - DESIGN_SPREAD * spread, abs=1e-3)
    assert shares["text_layer|label_right"] < mean < 0.9
    assert "text_layer|label_right|valid" not in shares and "text_layer" in shares


def test_evidence_an_average_design_does_not_support_is_never_certain() -> None:
    recalibration = Recalibration(5.0, {"table_logit": 1.0})
    shares = {"ocr|label_inline": 0.8, "ocr|label_colon": 0.95, "ocr": 0.95, "text_layer": 0.97}
    fitted = Fitted({"ocr": 0.99}, {"ocr": 100}, recalibration, {"ocr": 4}, shares)
    assert below_high(shares, "ocr|label_inline|valid") and not below_high(shares, "ocr|label_colon|valid")
    assert confidence_of(fitted, "ocr|label_inline|valid", 0.9, AGREEING) < 0.9
    assert confidence_of(fitted, "ocr|label_colon|valid", 0.9, AGREEING) >= 0.9
    # A strategy no design of the fit showed (a new kind of document's own) is not vouched for
    # by its source's other strategies, however well they did.
    assert below_high(shares, "ocr|governing_law|valid")
    assert confidence_of(fitted, "ocr|governing_law|valid", 0.9, AGREEING) < 0.9
    # Without a fit's design shares there is no gate at all.
    assert not below_high({}, "form_fields|form_field|valid")


def test_rivals_and_coverage_are_read_from_the_document() -> None:
    b = DocBuilder()
    b.line("Patient Name: Ann Lee", 40, 40)
    b.line("Name: Bob Roe", 40, 80)
    results = extract_fields(b.doc, ["patient_name", "fax"], file_name="doc.pdf")
    found = results["patient_name"]
    assert found.value == "Ann Lee" and found.signals is not None
    # "Name: Bob Roe" proposed another value; one of the two asked fields was found.
    assert found.signals.rivals == 1
    assert found.signals.coverage == 0.5
    assert results["fax"].value is None


def test_coverage_recomputes_each_found_values_confidence() -> None:
    key = "text_layer|label_colon|valid"
    found = FieldResult("x", 0.0, evidence=key, prior=0.95, signals=Signals())
    results = with_coverage({"a": found, "b": FieldResult(None, 0.0), "c": FieldResult(None, 0.0)})
    assert results["a"].signals is not None and results["a"].signals.coverage == pytest.approx(1 / 3)
    assert results["a"].confidence == calibrated_confidence(key, 0.95, signals=results["a"].signals)
    assert results["b"].confidence == 0.0


def test_the_gate_spread_is_the_least_the_held_out_designs_need() -> None:
    # Evidence every design reads right: no spread is needed, so the least is taken.
    sure = [v for g in "abcd" for v in _values(g, "text_layer|label_colon|valid", 40, 0)]
    spread, tried = choose_spread(sure)
    assert spread == SPREADS[0] and set(tried) == set(SPREADS)
    # Evidence right half the time everywhere: no spread meets the targets, and the one chosen
    # is the spread whose held-out values at >= 0.9 were right most often.
    coin = [v for g in "abcd" for v in _values(g, "ocr|label_inline|valid", 20, 20)]
    spread, tried = choose_spread(coin)
    assert tried[spread].high_precision == max(cal.high_precision for cal in tried.values())
