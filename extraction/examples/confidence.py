"""Confidence of a value read where a matched example taught it, calibrated on its own evidence.

The evidence of one read (`Evidence`) is turned into features (`features`) and a logistic model
fitted on example reads of designs held out by design (`bench/fit_example_confidence.py`:
synthetic designs of `bench/example_designs.py` and the corpus's `realdesigns`, leave one design
out) gives the chance the value is right. Its coefficients live in `confidence.json` beside this
file, written only by that script; the general rules' calibration (`extraction/fields/model/`) is
a separate fit on other evidence.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from extraction.examples.kinds import ValueKind

COEFFICIENTS = Path(__file__).with_name("confidence.json")
#: Kinds read from a shape that cannot be half right (a date, a phone of the taught digit count).
STRICT_KINDS = frozenset({"date", "phone", "zip", "email", "amount", "choice"})
#: Confidence bounds: never certain, and never below what a plain guess would claim.
FLOOR, CEILING = 0.05, 0.995
#: The most a read may claim when it shows more doubt on some feature than any read the fit
#: learned from: the fit knows nothing of how often such reads are right, so it is marked for review.
UNSEEN_CAP = 0.85


@dataclass(frozen=True)
class Evidence:
    """What a value read from an example rests on."""

    kind: ValueKind
    #: The page's match score: the share of the example's printed words found in place.
    match: float
    #: The engine's confidence of the least sure word read (1 for a text layer or a widget).
    text: float
    #: Where the words came from: `widget`, `text_layer` or `ocr`.
    source: str
    #: Words read, and words of the taught value.
    words: int
    taught_words: int
    #: The value was cut from a longer text at its taught place (`parts`).
    part: bool
    #: Share of the read words' width that lies outside the mapped slot (a word running past it).
    overflow: float


FEATURES = (
    "bias",
    "match",
    "text_doubt",
    "ocr",
    "loose_kind",
    "ocr_loose",
    "length_change",
    "part",
    "overflow",
)


def features(evidence: Evidence) -> list[float]:
    """The model's inputs, in `FEATURES` order; each is 0 for a flawless read of a text layer."""
    ocr = 1.0 if evidence.source == "ocr" else 0.0
    loose = 0.0 if evidence.kind in STRICT_KINDS else 1.0
    return [
        1.0,
        1.0 - evidence.match,
        1.0 - evidence.text,
        ocr,
        loose,
        ocr * loose,
        abs(math.log((evidence.words + 1) / (evidence.taught_words + 1))),
        1.0 if evidence.part else 0.0,
        evidence.overflow,
    ]


@cache
def _fitted() -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The fitted weights, and the most doubt the fit saw on each feature."""
    data = json.loads(COEFFICIENTS.read_text())
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"{COEFFICIENTS.name} was fitted on other features: refit it")
    return tuple(float(w) for w in data["weights"]), tuple(float(v) for v in data["seen"])


def probability(weights: tuple[float, ...] | list[float], evidence: Evidence) -> float:
    score = sum(w * x for w, x in zip(weights, features(evidence), strict=True))
    return 1.0 / (1.0 + math.exp(-max(min(score, 40.0), -40.0)))


def confidence(evidence: Evidence) -> float:
    """The calibrated chance the value is right, within [`FLOOR`, `CEILING`]; at most
    `UNSEEN_CAP` for evidence beyond what the fit saw."""
    weights, seen = _fitted()
    chance = min(max(probability(weights, evidence), FLOOR), CEILING)
    if any(x > most + 1e-9 for x, most in zip(features(evidence), seen, strict=True)):
        chance = min(chance, UNSEEN_CAP)
    return round(chance, 4)
