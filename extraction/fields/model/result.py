"""One extracted value, its confidence and where it was read (`result.fields` of the contract)."""

import re
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
    #: No value, but the field's label is printed with nothing written after or under it.
    blank: bool = False

    @property
    def state(self) -> str:
        """`found`, `blank` (its label printed, its answer left empty) or `not_found`."""
        if self.value is not None:
            return "found"
        return "blank" if self.blank else "not_found"

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
        return shaped | self.as_printed()

    def as_printed(self) -> dict[str, Any]:
        """What the page shows for the field (docs/contract.md section 7): its `state`, and the
        text the value was read from, `printed`, whenever the page's text gave it (a model's value
        has none)."""
        shown: dict[str, Any] = {"state": self.state}
        if self.value is not None and self.raw is not None and self.source != "model":
            # A part read from a longer answer ("78745" of "Austin, TX 78745") is printed as itself.
            part = re.search(re.escape(str(self.value)), self.raw, re.IGNORECASE)
            shown["printed"] = part.group(0) if part and not isinstance(self.value, bool) else self.raw
        return shown


def absent() -> FieldResult:
    return FieldResult(value=None, confidence=0.0)


def blank() -> FieldResult:
    """No value: the field's label or question is printed and left unanswered."""
    return FieldResult(value=None, confidence=0.0, blank=True)
