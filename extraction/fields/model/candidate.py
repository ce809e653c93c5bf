"""A possible value for a field, as a strategy or heuristic proposes it, before one is chosen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from extraction.fields.reading.text_lines import TextUnit
from extraction.formats.document import ConfidenceSource

#: Prior of a heuristic value (a value no label names): below every labelled strategy
#: (fields.PRIORS), so a label always wins when there is one.
HEURISTIC_PRIOR = 0.6


@dataclass
class Candidate:
    value: Any
    #: Strategy prior x label match x text confidence, 0..1.
    score: float
    #: The lines the value was read from (what it cites).
    units: list[TextUnit]
    source: ConfidenceSource
    raw: str
    strategy: str
    #: The label the value was found by ("" for heuristics).
    label: str = ""
    #: Whether the value passes its field's validator (None: the field has none).
    valid: bool | None = None
    #: A numeric date whose day and month could be read the other way round.
    ambiguous: bool = False

    @classmethod
    def of(
        cls, value: Any, prior: float, units: list[TextUnit], raw: str, strategy: str, label: str = ""
    ) -> Candidate:
        """A candidate whose score is `prior` scaled by the least confident of its lines."""
        confidence = min(u.confidence for u in units)
        return cls(value, prior * confidence, units, units[0].source, raw, strategy, label)
