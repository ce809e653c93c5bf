"""Reading a document with examples: where it follows a taught design, each field is read where
the example's value sat; everything else is left to the general rules.

Each page of the document is matched against every example (`match.match_page`); per page the
example whose anchors land best wins. A field is read from the winning example of its taught
page: the document's words inside the example's slot (mapped through the page's transform and
widened by half a word's height, the design's printed words left out), checked as the value's kind
(a date field must read as a date, a phone as seven digits or more, a choice as one ticked box of
the taught group). A field the example cannot settle, and every field of a document that matches
no example, is read by `extract_fields` exactly as without examples.

Confidence of a value read from an example comes from its own evidence, each term 0..1:
- the page's match score (share of anchors in place), rescaled so that `MATCH_SCORE` is 0 and a
  perfect match is 1;
- how sure the engine is of the words read (1 for a text layer or widget, the OCR score else),
  cubed, since one misread character in a value makes it wrong;
- the kind's check: strict kinds (date, phone, ZIP, email, amount, choice) are read from a shape
  that cannot be half right, so 1; names and free text 0.97, as a slot can catch a stray word.
confidence = 0.5 + 0.49 * product: a perfect text-layer match of a date is 0.99, a name 0.975;
an OCR'd value at engine score 0.95 on a perfect match about 0.92, at 0.9 about 0.86. So a value
reaches 0.9 only when the design matched well and the text itself was read cleanly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from extraction.examples.kinds import ORDERS, amount, as_iso_date, choice_word, digits
from extraction.examples.parts import Part, cut
from extraction.examples.match import MATCH_SCORE, PageMatch, PageWords, match_page
from extraction.examples.taught import Taught, TaughtField
from extraction.examples.words import Piece, mark_state, page_pieces, rows, union
from extraction.fields.extract import extract_fields
from extraction.fields.model.citations import Citation, region_citation
from extraction.fields.model.result import FieldResult
from extraction.fields.reading.amounts import format_amount
from extraction.fields.reading.date_text import DateOrder
from extraction.fields.reading.names import split_name
from extraction.formats.document import Box, Document

#: How far the mapped slot is widened each side, in the slot's own heights: enough for a scan's
#: noise, little enough that the first letter of the next answer stays out.
WIDEN_HEIGHTS = 0.2
#: A word starting this close to the slot's end (in slot heights) starts the next answer.
NEXT_ANSWER_HEIGHTS = 0.3
#: Kind terms of the confidence (see the module's docstring).
STRICT_KINDS = frozenset({"date", "phone", "zip", "email", "amount", "choice"})
LOOSE_KIND = 0.97
_EMAIL = re.compile(r"^[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+$")
_ZIP = re.compile(r"\b\d{5}(?:-?\d{4})?\b")
_EDGES = " \t,;:|_()[]"


def read_with_examples(
    doc: Document,
    field_names: list[str],
    *,
    file_name: str,
    examples: Sequence[tuple[str, Taught]],
    date_order: DateOrder | None = None,
) -> dict[str, FieldResult]:
    """Values of `field_names` read from `doc`, following the example of its design when one
    matches (`examples` are `(example_id, taught)` pairs); see the module's docstring."""
    pages = page_pieces(doc) if examples else {}
    indexed = {number: PageWords.of(pieces) for number, pieces in pages.items()}
    empty = PageWords([], {})
    winners: dict[int, tuple[str, Taught, PageMatch]] = {}
    for example_id, taught in examples:
        for page in taught.pages:
            if page.page in winners and winners[page.page][2].score >= 1.0:
                continue
            found = match_page(page, indexed.get(page.page, empty))
            if found is not None and (page.page not in winners or found.score > winners[page.page][2].score):
                winners[page.page] = (example_id, taught, found)
    results: dict[str, FieldResult] = {}
    for name in field_names:
        read = _settled(doc, pages, winners, name, file_name)
        if read is not None:
            results[name] = read
    rest = [name for name in field_names if name not in results]
    if rest:
        general = extract_fields(doc, rest, file_name=file_name, date_order=date_order)
        results.update(general)
    return {name: results[name] for name in field_names}


def _settled(
    doc: Document,
    pages: dict[int, list[Piece]],
    winners: dict[int, tuple[str, Taught, PageMatch]],
    name: str,
    file_name: str,
) -> FieldResult | None:
    for example_id, taught, found in winners.values():
        if name not in taught.fields:
            continue
        taught_field = taught.fields[name]
        if taught_field is None:
            # The design has no such value: the example settles it as absent.
            return FieldResult(value=None, confidence=0.0, example_id=example_id)
        if taught_field.page != found.page:
            continue
        return _read_field(doc, pages.get(found.page, []), taught_field, found, example_id, file_name)
    return None


def _read_field(
    doc: Document, pieces: list[Piece], taught: TaughtField, found: PageMatch, example_id: str, file_name: str
) -> FieldResult | None:
    if taught.kind == "choice" and taught.options:
        read = _read_choice(pieces, taught, found)
    else:
        read = _read_slot(pieces, taught, found)
    if read is None:
        return None
    value, used, raw = read
    text_confidence = min(p.confidence for p in used)
    kind_term = 1.0 if taught.kind in STRICT_KINDS else LOOSE_KIND
    match_term = min(max((found.score - MATCH_SCORE) / (1.0 - MATCH_SCORE), 0.0), 1.0)
    confidence = round(0.5 + 0.49 * match_term * text_confidence**3 * kind_term, 4)
    box = union([p.box for p in used])
    source = "form_fields" if all(p.widget is not None for p in used) else used[0].source
    lines = [p.line for p in used if p.line is not None]
    citation: Citation = (
        {"file": file_name, "line_start": min(lines), "line_end": max(lines)}
        if lines
        else region_citation(doc, file_name, found.page, box)
    )
    return FieldResult(
        value=value,
        confidence=confidence,
        citations=[citation],
        source=source,  # type: ignore[arg-type]
        raw=raw,
        example_id=example_id,
    )


def _widened(box: Box) -> Box:
    margin = WIDEN_HEIGHTS * (box.y1 - box.y0)
    return Box(box.x0 - margin, box.y0 - margin, box.x1 + margin, box.y1 + margin)


def _within(pieces: list[Piece], box: Box, static: set[int]) -> list[Piece]:
    inside = []
    for i, piece in enumerate(pieces):
        x, y = piece.center
        if i not in static and box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1:
            inside.append(piece)
    return inside


def _read_slot(
    pieces: list[Piece], taught: TaughtField, found: PageMatch
) -> tuple[Any, list[Piece], str] | None:
    mapped = found.box(taught.slot or taught.bounding_box)
    # A word that starts at the slot's end is the next answer's, however narrow (the slot ends a
    # point before it; OCR boxes start a little early).
    end = mapped.x1 - NEXT_ANSWER_HEIGHTS * (mapped.y1 - mapped.y0)
    inside = [p for p in _within(pieces, _widened(mapped), found.static) if p.box.x0 < end]
    widgets = [p for p in inside if p.widget is not None and p.checked is None and p.text.strip()]
    used = widgets or [p for p in inside if p.widget is None and mark_state(p) is None]
    if not used:
        return None
    ordered = [p for row in rows(used) for p in row]
    text = " ".join(p.text for p in ordered).strip()
    if taught.part:
        # The value is one part of the slot's text (a city of `Portland, OR 97201`).
        text = cut(text, Part.from_json(taught.part)) or ""
        if not text:
            return None
    value = _as_kind(taught, text)
    return None if value is None else (value, ordered, text)


def _as_kind(taught: TaughtField, text: str) -> Any:
    """`text` read as the taught field's kind, in the taught value's style; None when it is not
    one."""
    kind = taught.kind
    if kind == "date":
        orders: tuple[DateOrder, ...] = (taught.detail,) if taught.detail in ORDERS else ORDERS  # type: ignore[assignment]
        for order in orders:
            iso = as_iso_date(text, order)
            if iso is not None:
                return iso
        return None
    if kind == "phone":
        # As many digits as the taught phone (a leading country 1 aside), or it is not one phone.
        number = digits(text)
        if len(number.lstrip("1")) != len(digits(str(taught.value)).lstrip("1")):
            return None
        return _styled_digits(str(taught.value), number)
    if kind == "zip":
        match = _ZIP.search(text)
        return match.group(0) if match else None
    if kind == "email":
        joined = "".join(text.split()).strip(_EDGES)
        return joined if _EMAIL.match(joined) else None
    if kind == "amount":
        read = amount(text)
        return None if read is None else format_amount(read)
    if kind == "choice":
        option = choice_word(text)
        return _styled_option(taught, text) if option else None
    cleaned = " ".join(text.split()).strip(_EDGES)
    if kind == "name":
        if any(c.isdigit() for c in cleaned) or not any(c.isalpha() for c in cleaned):
            return None
        if taught.detail in ("first", "middle", "last"):
            name = split_name(cleaned)
            part = name.part(taught.detail) if name else None  # type: ignore[arg-type]
            return part or None
    return cleaned or None


def _styled_digits(style: str, number: str) -> str:
    """`number` printed as the taught phone was (its separators), when it has as many digits."""
    if len(digits(style)) != len(number):
        return number
    it = iter(number)
    return "".join(next(it) if c.isdigit() else c for c in style)


def _styled_option(taught: TaughtField, label: str) -> str:
    """The option `label` names, written as the taught value was (`M`, `Male`, `male`)."""
    value = str(taught.value)
    if choice_word(label) == choice_word(value):
        return value
    word = re.sub(r"[^\w]", "", label)
    named = choice_word(label)
    if len(word) == 1 and named and len(named) > 1 and len(value) > 1:
        # A form printing initials, taught with a whole word: `F` is written `Female`.
        word = named
    if len(value) == 1:
        return word[:1].upper()
    if value.isupper():
        return word.upper()
    if value.islower():
        return word.lower()
    return word[:1].upper() + word[1:].lower()


def _read_choice(
    pieces: list[Piece], taught: TaughtField, found: PageMatch
) -> tuple[Any, list[Piece], str] | None:
    """The one ticked box of the taught group, read at each option's mapped place."""
    ticked: list[tuple[str, Piece]] = []
    for option in taught.options:
        place = found.box(option.box)
        side = max(place.x1 - place.x0, place.y1 - place.y0)
        near = Box(place.x0 - side / 2, place.y0 - side / 2, place.x1 + side / 2, place.y1 + side / 2)
        states = [(p, mark_state(p)) for p in _within(pieces, near, set())]
        marks = [p for p, state in states if state is True]
        if marks:
            ticked.append((option.label, marks[0]))
    if len(ticked) != 1:
        return None
    label, mark = ticked[0]
    return _styled_option(taught, label), [mark], label
