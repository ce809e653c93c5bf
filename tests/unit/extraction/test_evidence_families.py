"""The design and structure gates' families of evidence, the structure gate's values left out of
the design shares, and what counts as a clean label. Pure logic on made values."""

from __future__ import annotations

import pytest

from bench.calibration_gates import Value, group_shares, structure_floors
from extraction.fields.model.calibration import (
    ANY_KIND,
    HIGH,
    Signals,
    below_high,
    below_structure,
    clean,
    family_kind,
    gate_kind,
    held_by_structure,
)

pytestmark = pytest.mark.unit


def _value(
    group: str, key: str, right: bool, structure: float = 0.6, coverage: float = 1.0, document: str = ""
) -> Value:
    signals = Signals(structure=structure, coverage=coverage)
    return Value(group, "s", key, 0.9, signals, right, document or group)


def test_label_and_table_strategies_have_a_family_and_others_none() -> None:
    assert family_kind("ocr|label_right|valid") == "ocr|label"
    assert family_kind("text_layer|label_colon|valid", Signals()) == "text_layer|label|clean"
    assert family_kind("text_layer|label_below|valid", Signals(rivals=2)) == "text_layer|label|doubt"
    assert family_kind("text_layer|table_row|valid") == "text_layer|table"
    assert family_kind("text_layer|governing_law|unchecked") is None
    assert family_kind(ANY_KIND) is None


def test_a_label_strategy_no_design_showed_is_judged_by_its_family() -> None:
    # The fit saw labels with the value after a colon, read right on every design; a value right
    # of its label is the same evidence in another place.
    shares = {"text_layer|label|clean": 0.99, "text_layer|label|doubt": 0.8}
    assert not below_high(shares, "text_layer|label_right|valid", Signals())
    assert below_high(shares, "text_layer|label_right|valid", Signals(contested=True))
    # Its own share, when the fit has one, comes first.
    assert below_high({**shares, "text_layer|label_right": 0.7}, "text_layer|label_right|valid", Signals())
    # A strategy of no family stays under HIGH when no design showed it.
    assert below_high(shares, "text_layer|governing_law|unchecked", Signals())


def test_a_label_strategy_without_a_floor_takes_its_familys_before_the_highest() -> None:
    floors = {"text_layer|label": 0.2, "text_layer|label_colon": 0.2, ANY_KIND: 0.5}
    assert below_structure(floors, "text_layer|label_right|valid", 0.1)
    assert not below_structure(floors, "text_layer|label_right|valid", 0.3)
    assert below_structure(floors, "text_layer|banner|valid", 0.3)


def test_a_familys_floor_is_its_members_highest_and_kinds_of_no_family_need_the_highest_of_all() -> None:
    # Labels after a colon read right from 0.3 structure, labels right of their value from 0.2,
    # widgets from 0.6: a label read under its value (no floor of its own) needs 0.3, a banner 0.6.
    values = [
        _value(g, f"text_layer|{strategy}|valid", True, low + 0.01 * i, document=f"{g}{i}")
        for g, strategy, low in (("a", "label_colon", 0.3), ("b", "label_right", 0.2))
        for i in range(10)
    ]
    values += [_value("w", "form_fields|form_field|valid", True, 0.6, document=f"w{i}") for i in range(10)]
    floors = structure_floors(values)
    assert floors["text_layer|label"] == pytest.approx(0.3) and floors[ANY_KIND] == pytest.approx(0.6)
    assert below_structure(floors, "text_layer|label_below|valid", 0.25)
    assert not below_structure(floors, "text_layer|label_below|valid", 0.35)
    assert below_structure(floors, "text_layer|banner|valid", 0.35)
    # A member's own floor comes first.
    assert not below_structure(floors, "text_layer|label_right|valid", 0.25)


def test_values_under_the_coverage_floor_do_not_lower_the_design_share() -> None:
    # Forms read right with nearly every asked field found; pages as little structured on which
    # half the asked fields were found read the same evidence wrong half the time. The structure
    # gate holds those back, so they do not hold back the evidence on every form.
    key = "text_layer|label_right|valid"
    values = [_value(g, key, True, 0.3, 0.9, f"{g}{i}") for g in "abc" for i in range(10) for _ in range(2)]
    values += [_value("claims", key, i % 2 == 0, 0.3, 0.4, f"c{i}") for i in range(10)]
    floors, coverage = {"text_layer|label_right": 0.2, ANY_KIND: 0.5}, {"text_layer|label_right": 0.9}
    assert held_by_structure(floors, coverage, key, values[-1].signals)
    assert not held_by_structure(floors, coverage, key, values[0].signals)
    assert group_shares(values, 0.5, floors)["text_layer|label_right"] < HIGH
    assert group_shares(values, 0.5, floors, coverage)["text_layer|label_right"] > HIGH


def test_a_label_nearly_as_good_as_the_fields_best_is_clean_and_a_weak_one_is_not() -> None:
    assert clean(Signals(match=0.95))
    assert gate_kind("ocr|label_below|valid", Signals(match=0.95)) == "ocr|label_below|clean"
    assert not clean(Signals(match=0.7))
