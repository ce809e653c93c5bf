"""A value's evidence, and the one place it becomes a field result with its calibrated confidence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from extraction.fields.model.calibration import (
    LOW_TEXT_CONFIDENCE,
    Signals,
    calibrated,
    evidence_key,
)
from extraction.fields.model.citations import Citation
from extraction.fields.model.result import FieldResult
from extraction.formats.document import ConfidenceSource

#: Another candidate scoring at least this share of the chosen one's score contests it.
CONTESTED_SHARE = 0.85


@dataclass(frozen=True)
class Evidence:
    """How a value was found: the parts of its calibration key (`calibration.evidence_key`), the
    strategy's prior and, when known, how well the value's evidence agrees (`Signals`)."""

    source: ConfidenceSource | None
    strategy: str
    #: Whether the value passes its field's validator (None: the field has none).
    valid: bool | None
    prior: float
    #: A numeric date whose day and month could be read the other way round.
    ambiguous: bool = False
    #: How sure the engine was of the text (1.0 for a value the file states for machines).
    text_confidence: float = 1.0
    #: Kept on the result when given, so `extract.with_coverage` can recompute the confidence.
    signals: Signals | None = None

    @property
    def key(self) -> str:
        low_text = self.text_confidence < LOW_TEXT_CONFIDENCE
        return evidence_key(self.source, self.strategy, self.valid, self.ambiguous, low_text)


def field_result(value: Any, evidence: Evidence, citations: list[Citation], raw: str | None) -> FieldResult:
    """The field result of `value` found by `evidence`: its confidence calibrated from the
    evidence (`calibration.assess`) with what lowered it, the evidence kept for fitting."""
    key = evidence.key
    signals = evidence.signals or Signals(text_confidence=evidence.text_confidence)
    confidence, reasons = calibrated(key, evidence.prior, signals)
    return FieldResult(
        value=value,
        confidence=confidence,
        review_reasons=reasons,
        citations=citations,
        source=evidence.source,
        raw=raw,
        evidence=key,
        prior=evidence.prior,
        signals=evidence.signals,
    )
