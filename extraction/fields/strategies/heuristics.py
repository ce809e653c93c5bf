"""Field heuristics for values no label names: general document conventions, never per document.

- the document's date: the first valid date that no label claims for something else;
- a company (issuer, merchant, vendor) and its address: read from the header block of the first
  page by the shapes of its lines (`issuer_header.py`), in any language;
- kinds with a distinctive format (email, web address, IBAN, telephone, currency): the first value
  of that format (not BIC: any eight capitals look like one);
- contract fields (`contract_terms.py`): governing law, term, effective date, parties.
Each heuristic scores below any labelled value, so a label always wins when there is one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from extraction.fields.documents.contract_terms import effective_date, jurisdiction, parties, term
from extraction.fields.documents.issuer_header import address, company
from extraction.fields.model.candidate import HEURISTIC_PRIOR, Candidate
from extraction.fields.reading.date_text import DateOrder, find_dates
from extraction.fields.reading.normalize import concept_of
from extraction.fields.reading.text_lines import TextUnit
from extraction.fields.reading.value_kinds import Kind, read_value

#: Prior of a first-of-its-format value (email, IBAN, ...), found with no label.
FORMAT_PRIOR = 0.55


def heuristic_candidates(
    units: list[TextUnit], name: str, kind: Kind, order: DateOrder
) -> Iterator[Candidate]:
    """Values for field `name` (of `kind`) by the document conventions above, best first. Numeric
    dates are read in `order`: the document's own (`date_locale.resolve_date_order`)."""
    concept = concept_of(name)
    by_position = _BY_POSITION.get(concept or "")
    if by_position is not None:
        yield from by_position(units)
    elif concept == "date" and kind == "date":
        yield from _first_date(units, order)
    elif kind in ("email", "url", "iban", "currency", "currency_symbol") or concept == "phone":
        # Mobile and fax numbers look like any telephone number: only "phone" takes the first one.
        yield from _first_of_format(units, kind)


def _first_date(units: list[TextUnit], order: DateOrder) -> Iterator[Candidate]:
    """The first date that no label claims for something else (a due date, a birth date)."""
    for unit in units:
        for found in find_dates(unit.text, order):
            # The nearest words before a date are its label, if it has one.
            claimed_by = concept_of(" ".join(unit.text[: found.start].split()[-2:]))
            if claimed_by in (None, "date"):
                yield Candidate.of(found.value, HEURISTIC_PRIOR, [unit], found.raw, "first_date")
                return


def _first_of_format(units: list[TextUnit], kind: Kind) -> Iterator[Candidate]:
    for unit in units:
        reading = read_value(kind, unit.text)
        if reading is None:
            continue
        if kind == "phone" and not re.search(r"[\s()+-]", reading.value):
            # A bare run of digits is more often a reference number than a telephone.
            continue
        yield Candidate.of(reading.value, FORMAT_PRIOR, [unit], reading.raw, "first_of_format")
        return


#: The fields read by where they stand in the document (its header block, its preamble).
_BY_POSITION: dict[str, Callable[[list[TextUnit]], Iterator[Candidate]]] = {
    "company": company,
    "address": address,
    "jurisdiction": jurisdiction,
    "term": term,
    "party": parties,
    "effective_date": effective_date,
}
