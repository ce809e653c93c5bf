"""Teaching: find each given value on a parsed document by meaning, and keep the design around it.

Values are searched in form widgets first (a fillable PDF's field holds its value whole), then in
words inside a widget's text (`Portland, OR 97201` in one widget: `extraction.examples.parts`),
then in runs of consecutive words of each visual row (a date split over digit boxes, a name split
over cells or printed `Last, First`), then, for a choice, as the option beside a ticked box. The
shortest run that states the value wins; the first row (top to bottom) breaks ties.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from extraction.examples.kinds import (
    ValueKind,
    as_iso_date,
    bare_name,
    choice_word,
    date_orders,
    digits,
    name_words,
    same_value,
    value_kind,
)
from extraction.examples.parts import Part, find_part
from extraction.examples.taught import Anchor, Option, Taught, TaughtField, TaughtPage, ValuesNotFound
from extraction.examples.words import Piece, mark_state, page_pieces, page_size, rows, union
from extraction.fields.reading.names import split_name
from extraction.formats.document import Box, Document

#: Longest run of words a digit value (a date in digit boxes with separators) is searched in.
MAX_DIGIT_RUN = 14
#: Extra words a name or text run may hold beyond the value's own (punctuation pieces).
EXTRA_WORDS = 2
#: How far beside a box its option word may sit, in word heights.
LABEL_GAP_HEIGHTS = 3.0
#: Widest gap between two words of one answer, in word heights (a word space).
SPACE_HEIGHTS = 0.6
#: Width of a row searched for a choice's other options, as a share of the page width.
OPTION_SPAN = 0.45


@dataclass
class _Found:
    page: int
    pieces: list[Piece]
    options: list[Option]
    widget: bool
    value: Any = None
    #: Where in its widget's text the value sits, when it is only part of it.
    part: Part | None = None


def teach(doc: Document, values: dict[str, Any]) -> Taught:
    """An example of `doc`'s design holding `values` (a None value: this design has no such value).

    Raises `ValuesNotFound` naming every field whose value is not on the document.
    """
    pages = page_pieces(doc)
    row_map = {n: rows([p for p in pieces if p.widget is None]) for n, pieces in pages.items()}
    found: dict[str, _Found] = {}
    missing: list[str] = []
    kinds: dict[str, ValueKind] = {}
    for name, value in values.items():
        if value is None or str(value).strip() == "":
            continue
        kinds[name] = value_kind(name, value)
        hit = _find(pages, row_map, kinds[name], value)
        if hit is None:
            missing.append(name)
        else:
            found[name] = hit
    if missing:
        raise ValuesNotFound(missing)
    used = {id(p) for hit in found.values() for p in hit.pieces}
    used |= {id(p) for pieces in pages.values() for p in pieces if mark_state(p) is not None}
    fields: dict[str, TaughtField | None] = {}
    for name, value in values.items():
        hit = found.get(name)
        fields[name] = None if hit is None else _taught_field(doc, pages, used, kinds[name], value, hit)
    return Taught(fields=fields, pages=_design(doc, pages, used))


def _design(doc: Document, pages: dict[int, list[Piece]], used: set[int]) -> list[TaughtPage]:
    taught: list[TaughtPage] = []
    for info in doc.pages:
        anchors = [
            Anchor(p.text, p.box.as_list())
            for p in pages.get(info.page, [])
            if p.widget is None and id(p) not in used and sum(c.isalpha() for c in p.text) >= 2
        ]
        width, height = page_size(doc, info.page, pages.get(info.page, []))
        taught.append(TaughtPage(info.page, width, height, anchors))
    return taught


def _find(
    pages: dict[int, list[Piece]], row_map: dict[int, list[list[Piece]]], kind: ValueKind, value: Any
) -> _Found | None:
    for number, pieces in pages.items():
        for piece in pieces:
            if piece.widget is not None and piece.checked is None and same_value(kind, value, piece.text):
                return _Found(number, [piece], [], True)
            if kind == "name" and piece.widget is not None and _name_part(piece.text, value):
                return _Found(number, [piece], [], True)
    if kind != "choice":
        # A widget holding several values (`Portland, OR 97201`): the value's words inside it.
        for number, pieces in pages.items():
            for piece in pieces:
                if piece.widget is None or piece.checked is not None or not piece.text.strip():
                    continue
                part = find_part(piece.text, lambda text: same_value(kind, value, text))
                if part is not None:
                    return _Found(number, [piece], [], True, part=part)
    if kind == "choice":
        for number, pieces in pages.items():
            hit = _ticked_option(pieces, value, number)
            if hit is not None:
                return hit
    best: _Found | None = None
    for number, page_rows in row_map.items():
        for row in page_rows:
            if kind == "choice":
                # An option word printed beside a box is a label, ticked or not: only a ticked
                # box answers (above); a bare word answers only where no box is.
                labels = {id(_beside(p, row)) for p in row if mark_state(p) is not None}
                row = [p for p in row if id(p) not in labels]
            run = _shortest_run(row, kind, value)
            if run is not None and (best is None or len(run) < len(best.pieces)):
                best = _Found(number, run, [], False)
        if best is not None:
            return best
    return None


def _name_part(text: str, value: Any) -> str | None:
    name = split_name(bare_name(text))
    if name is None:
        return None
    wanted = name_words(str(value))
    for part in ("first", "middle", "last"):
        got = name.part(part)  # type: ignore[arg-type]
        if got and name_words(got) == wanted:
            return part
    return None


def _shortest_run(row: list[Piece], kind: ValueKind, value: Any) -> list[Piece] | None:
    wanted = set(name_words(str(value)))
    year = (as_iso_date(str(value)) or "")[2:4]
    want_digits = digits(str(value))
    longest = MAX_DIGIT_RUN if kind in ("date", "phone", "zip", "amount") else len(wanted) + EXTRA_WORDS
    best: list[Piece] | None = None
    for start in range(len(row)):
        for end in range(start + 1, min(len(row), start + longest) + 1):
            run = row[start:end]
            text = " ".join(p.text for p in run)
            if kind in ("name", "text", "email") and not set(name_words(run[-1].text)) <= wanted | {""}:
                break
            if kind in ("date", "phone", "zip", "amount") and not _may_hold(kind, text, want_digits, year):
                if len(digits(text)) > len(want_digits) + 4:
                    break
                continue
            if same_value(kind, value, text):
                if best is None or len(run) < len(best):
                    best = run
                break
    return best


def _may_hold(kind: ValueKind, text: str, want_digits: str, year: str) -> bool:
    """A cheap test a run must pass before it is read as a value of digits: a date prints its
    year, a phone or ZIP its digits in order."""
    got = digits(text)
    if not got:
        return False
    if kind == "date":
        return year in got
    if kind in ("phone", "zip"):
        return got in want_digits or got.lstrip("1") in want_digits.lstrip("1") or want_digits in got
    return True


def _beside(piece: Piece, row: list[Piece]) -> Piece | None:
    """The word right of a box (else left of it) within a few word heights."""
    gap = LABEL_GAP_HEIGHTS * piece.height
    words = [p for p in row if p is not piece and mark_state(p) is None and p.widget is None]
    right = [p for p in words if 0 <= p.box.x0 - piece.box.x1 <= gap]
    if right:
        return min(right, key=lambda p: p.box.x0)
    left = [p for p in words if 0 <= piece.box.x0 - p.box.x1 <= gap]
    return max(left, key=lambda p: p.box.x1) if left else None


def _ticked_option(pieces: list[Piece], value: Any, number: int) -> _Found | None:
    wanted = choice_word(str(value))
    for row in rows(pieces):
        for piece in row:
            if mark_state(piece) is not True:
                continue
            label = _beside(piece, row)
            if label is None or choice_word(label.text) != wanted:
                continue
            options = _options(row, piece)
            return _Found(number, [piece, label], options, piece.widget is not None)
    return None


def _options(row: list[Piece], chosen: Piece) -> list[Option]:
    """The boxes of the chosen box's group: the boxes of its row near it, each with its word."""
    span = OPTION_SPAN * max(p.box.x1 for p in row)
    options: list[Option] = []
    for piece in row:
        if mark_state(piece) is None or abs(piece.center[0] - chosen.center[0]) > span:
            continue
        label = _beside(piece, row)
        if label is not None:
            options.append(Option(label.text, piece.box.as_list()))
    return options


def _taught_field(
    doc: Document, pages: dict[int, list[Piece]], used: set[int], kind: ValueKind, value: Any, hit: _Found
) -> TaughtField:
    box = union([p.box for p in hit.pieces])
    if kind == "choice" and hit.options:
        mark = hit.pieces[0].box
        return TaughtField(
            value, hit.page, mark.as_list(), kind, mark.as_list(), hit.pieces[1].text, None, hit.options
        )
    hit.value = value
    slot = box if hit.widget else _slot(doc, pages[hit.page], used, kind, hit)
    inside = [p for p in pages[hit.page] if _inside(p, slot) and (p.widget is None) != hit.widget]
    slot_text = " ".join(p.text for row in rows(inside) for p in row) or " ".join(p.text for p in hit.pieces)
    detail: str | None = None
    if kind == "date":
        printed = " ".join(p.text for p in hit.pieces)
        orders = date_orders(printed, as_iso_date(str(value)) or "")
        detail = orders[0] if orders else None
    elif kind == "name" and sorted(name_words(slot_text)) != sorted(name_words(str(value))):
        detail = _name_part(slot_text, value)
    part = hit.part
    if part is None and detail not in ("first", "middle", "last") and not same_value(kind, value, slot_text):
        # The slot holds more than the value (`Portland, OR 97201` printed on one line, other
        # values joined): later documents are cut where the value sits in it.
        part = find_part(slot_text, lambda text: same_value(kind, value, text))
    return TaughtField(
        value,
        hit.page,
        box.as_list(),
        kind,
        slot.as_list(),
        slot_text,
        detail,
        [],
        part.to_json() if part else None,
    )


def _inside(piece: Piece, box: Box) -> bool:
    x, y = piece.center
    return box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1


def _slot(doc: Document, pieces: list[Piece], used: set[int], kind: ValueKind, hit: _Found) -> Box:
    """Where another document's answer of any length is read: the value's box, joined with the
    words of the same answer (`Doe, Jane` around a first name, `Dr. Ana Ruiz, MD` around a
    doctor's last name: words a plain word space away, other values always, other words only for
    a name whose part the whole name then gives), then widened right up to the nearest other word
    of its row (the page's edge, or a third of the page, when there is none) and left by at most
    a word's height: typed answers start where the form's blank starts, so an earlier answer that
    runs long never reaches into the next one."""
    box = union([p.box for p in hit.pieces])
    height = box.y1 - box.y0
    width = page_size(doc, hit.page, pieces)[0] or box.x1 * 1.5
    mine = {id(p) for p in hit.pieces}
    row = sorted(
        (
            p
            for p in pieces
            if p.widget is None
            and id(p) not in mine
            and abs(p.center[1] - (box.y0 + box.y1) / 2) <= 0.5 * height
        ),
        key=lambda p: p.box.x0,
    )
    joined = _joined(row, box, height, lambda p: id(p) in used)
    if kind == "name":
        wider = _joined(row, joined, height, lambda p: id(p) in used or not p.text.endswith(":"))
        text = " ".join(
            p.text for p in sorted((p for p in pieces if _inside(p, wider)), key=lambda p: p.box.x0)
        )
        if wider != joined and _name_part(text, hit.value):
            joined = wider
    left = max((p.box.x1 for p in row if p.box.x1 <= joined.x0 + 1), default=joined.x0 - height)
    right = min(
        (p.box.x0 for p in row if p.box.x0 >= joined.x1 - 1), default=min(width, joined.x1 + width / 3)
    )
    return Box(
        max(left + 1, joined.x0 - height, 0.0),
        joined.y0 - 0.25 * height,
        max(right - 1, joined.x1),
        joined.y1 + 0.25 * height,
    )


def _joined(row: list[Piece], box: Box, height: float, joins: Callable[[Piece], bool]) -> Box:
    """`box` grown over the words of `row` a word space away that `joins` accepts."""
    gap = SPACE_HEIGHTS * height
    for piece in row:  # left to right: words joined on the right
        if joins(piece) and 0 <= piece.box.x0 - box.x1 <= gap:
            box = box.union(piece.box)
    for piece in reversed(row):  # right to left: joined on the left
        if joins(piece) and 0 <= box.x0 - piece.box.x1 <= gap:
            box = box.union(piece.box)
    return box
