"""Confidence of example-read values (extraction.examples.confidence): calibrated on its evidence."""

from __future__ import annotations

import json
from dataclasses import replace

from extraction.examples.confidence import COEFFICIENTS, FEATURES, Evidence, confidence, features

CLEAN = Evidence(
    kind="date", match=1.0, text=1.0, source="text_layer", words=1, taught_words=1, part=False, overflow=0.0
)


def test_the_stored_fit_is_of_these_features_and_never_rewards_doubt() -> None:
    data = json.loads(COEFFICIENTS.read_text())
    assert tuple(data["features"]) == FEATURES
    assert all(w <= 0 for w in data["weights"][1:])
    assert features(CLEAN) == [1.0] + [0.0] * (len(FEATURES) - 1)


def test_a_flawless_read_of_a_well_matched_design_is_not_marked_for_review() -> None:
    assert confidence(CLEAN) >= 0.9
    assert confidence(replace(CLEAN, kind="name", source="widget")) >= 0.9


def test_more_doubt_never_gives_more_confidence() -> None:
    doubts = [
        replace(CLEAN, match=0.6),
        replace(CLEAN, text=0.7, source="ocr"),
        replace(CLEAN, kind="text"),
        replace(CLEAN, words=4),
        replace(CLEAN, part=True),
        replace(CLEAN, overflow=0.5),
    ]
    for doubt in doubts:
        assert confidence(doubt) <= confidence(CLEAN)
    worst = Evidence("text", 0.5, 0.5, "ocr", 5, 1, True, 1.0)
    assert confidence(worst) < 0.9
    assert confidence(worst) >= 0.05
