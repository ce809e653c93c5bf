"""A phone told by the kind marked beside it: "(608) 618-2150  Home (Cell) Work", "555-0101 ☒ Cell".

Forms print one or two "Phone" lines, each followed by the kinds to tick or circle; the marked
kind says whose line it is (`choices.marked_option` reads the mark). The options are the ones
after the number on its row, up to the next number.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from extraction.fields.model.candidate import Candidate
from extraction.fields.reading.choices import marked_option
from extraction.fields.reading.text_lines import TextUnit, same_row
from extraction.fields.reading.value_kinds import Kind, read_value
from extraction.fields.strategies.label_pairs import PRIORS

#: Phone kinds a form offers, and the concept of the field each answers.
KIND_CONCEPTS = {"Cell": "mobile", "Mobile": "mobile", "Home": "home_phone", "Work": "work_phone"}
PHONE_RE = re.compile(r"\(?\b\d{3}\)?[\s.-]*\d{3}[\s.-]\d{4}\b")


def phone_kind_candidates(units: list[TextUnit], concept: str, kind: Kind) -> Iterator[Candidate]:
    """The phones whose marked kind answers `concept`, read as `kind`."""
    for phone, row in marked_kind_phones(units, concept):
        reading = read_value(kind, phone, leading=True)
        if reading is not None:
            yield Candidate.of(reading.value, PRIORS["phone_kind"], row, phone, "phone_kind", "")


def marked_kind_phones(units: list[TextUnit], concept: str) -> Iterator[tuple[str, list[TextUnit]]]:
    """(phone, the units it and its marked kind were read from) for each phone whose marked
    kind answers `concept`."""
    for unit in units:
        found = PHONE_RE.search(unit.text)
        if found is None or unit.box is None:
            continue
        row = _phone_row(unit, found.end(), units)
        text = " ".join([unit.text[found.end() :], *(u.text for u in row[1:])])
        kind = marked_option(text, list(KIND_CONCEPTS)) if re.search("[\u2612xX\u2713\u2714]", text) else None
        if kind is not None and KIND_CONCEPTS[kind] == concept:
            yield found.group(0), row


def offers_kinds(unit: TextUnit, units: list[TextUnit]) -> bool:
    """Whether the phone in `unit` is followed by kinds to mark, read or not: such a form says
    whose number it is only by the mark."""
    found = PHONE_RE.search(unit.text)
    if found is None or unit.box is None:
        return False
    row = _phone_row(unit, found.end(), units)
    return _has_kinds(" ".join([unit.text[found.end() :], *(u.text for u in row[1:])]))


def _phone_row(unit: TextUnit, end: int, units: list[TextUnit]) -> list[TextUnit]:
    """`unit`, then the units right of it on its row up to the next number when the unit's own
    text after the number (from `end`) offers no kinds."""
    row = [unit]
    if unit.box is None or _has_kinds(unit.text[end:]):
        return row
    # On a scan each option may be a unit of its own: the row's units right of the number.
    box = unit.box
    after = sorted(
        (u for u in units if u.page == unit.page and u.box is not None and u is not unit
         and same_row(box, u.box) and u.box.x0 >= box.x1),
        key=lambda u: u.box.x0 if u.box else 0.0,
    )  # fmt: skip
    for other in after:
        if PHONE_RE.search(other.text):
            break
        row.append(other)
    return row


def _has_kinds(text: str) -> bool:
    return sum(1 for kind in KIND_CONCEPTS if re.search(rf"\b{kind}\b", text, re.IGNORECASE)) >= 2
