"""What a strategy is asked (one field of one document) and the record that places a strategy in
`extract.py`'s ordered table."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from extraction.fields.model.candidate import Candidate
from extraction.fields.model.context import FieldContext
from extraction.fields.model.result import FieldResult
from extraction.fields.reading.value_kinds import Kind
from extraction.fields.reading.vocabulary import FieldSpec


@dataclass(frozen=True)
class Ask:
    """One field asked of the document, as every strategy sees it."""

    name: str
    spec: FieldSpec
    #: The kind its value is read as (a ZIP code is text, whatever its name's words suggest).
    kind: Kind
    #: Whether every unit of the document has a box: a printed question is found by its place.
    boxed: bool


#: Candidates for the field, best first or in the page's order.
Gather = Callable[[FieldContext, Ask], Iterable[Candidate]]
#: The field's result, which ends the reading (an absent one too), or None to go on.
Decide = Callable[[FieldContext, Ask], FieldResult | None]


@dataclass(frozen=True)
class Strategy:
    """One way a field's value is found, as `extract.py` tries it.

    A strategy either gathers candidates or decides the field's result alone. One that is no
    `fallback` adds its candidates to those of the strategies before it; a fallback is tried only
    when no earlier strategy kept a candidate, and its candidates are then the field's."""

    name: str
    #: What of the document it reads.
    reads: str
    #: When it applies to the field asked.
    applies: Callable[[Ask], bool]
    #: The evidence its values carry: the strategy part of their calibration key.
    evidence: str
    gather: Gather | None = None
    decide: Decide | None = None
    fallback: bool = False
    #: Its candidates are first shaped to the field (`shaping.shaped`); a fallback's shaped
    #: candidates must also belong to the field (`shaping.belongs`), where the other fallbacks
    #: check their own.
    shaped: bool = False

    def __post_init__(self) -> None:
        if (self.gather is None) == (self.decide is None):
            raise ValueError(f"strategy {self.name!r} must either gather or decide")
