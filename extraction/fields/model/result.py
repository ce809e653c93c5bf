"""One extracted value, its confidence and where it was read (`result.fields` of the contract)."""

from dataclasses import dataclass, field
from typing import Any

from extraction.fields.model.calibration import Signals
from extraction.fields.model.citations import Citation
from extraction.formats.document import ConfidenceSource


@dataclass
class FieldResult:
    """One extracted value: what it is, how sure we are, and where it was read."""

    value: Any
    confidence: float
    citations: list[Citation] = field(default_factory=list)
    #: `form_fields`, `text_layer`, `ocr` or `model`: where the value came from; None when absent.
    source: ConfidenceSource | None = None
    #: The text the value was read from, before normalisation (a date as printed, say).
    raw: str | None = None
    #: The calibration key of the value's evidence (`calibration.evidence_keys`), for fitting.
    evidence: str | None = None
    #: The strategy's prior and the agreement signals the confidence was computed from, for fitting.
    prior: float | None = None
    signals: Signals | None = None
    #: What in the evidence lowered the confidence, in a reviewer's words (`calibration.REASONS`).
    review_reasons: list[str] = field(default_factory=list)
    #: The example (`extraction.examples`) the value was read by, None for the general rules.
    example_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The `result.fields` item of docs/contract.md section 7."""
        shaped: dict[str, Any] = {
            "value": self.value,
            "confidence": self.confidence,
            "citations": self.citations,
            "review_reasons": self.review_reasons,
        }
        if self.example_id is not None:
            shaped["example_id"] = self.example_id
        return shaped


def absent() -> FieldResult:
    return FieldResult(value=None, confidence=0.0)
