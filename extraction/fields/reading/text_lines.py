"""A document seen as lines of text with positions: what field extraction and grounding read.

Engines produce elements of several shapes (blocks with visual lines, single OCR lines, spreadsheet
cells, text-file line ranges). This module flattens them into `TextUnit`s, one per visual line, each
with the provenance a citation needs, and answers the geometric questions label layouts ask: what
lies to the right of a label on the same visual line, and what lies just below it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from extraction.formats.document import Box, ConfidenceSource, Document, Element

#: Two boxes are on one visual line when their vertical overlap covers this share of the lower one.
#: Lenient, because phone photos of receipts slant: the value right of a label sits a little lower.
SAME_ROW_OVERLAP = 0.3
#: A value sits "below" a label when the gap between them is at most this many label heights.
BELOW_MAX_GAP_HEIGHTS = 1.6
#: A value right of its label may start this many of the label's character widths before the
#: label's box ends: OCR detection boxes are padded, and a value set close after its label
#: overlaps it by up to about a character ("Policy Number: 4JC7-RX3-MF76").
LABEL_OVERLAP_CHARS = 1.0


@dataclass(frozen=True)
class TextUnit:
    """One line of text with where it came from."""

    text: str
    page: int
    element: Element
    #: Position used for layout questions: the line's box, or a one-by-one cell for spreadsheets.
    box: Box | None
    confidence: float
    source: ConfidenceSource
    #: Reading-order index over the whole document.
    order: int
    line_start: int | None = None
    line_end: int | None = None

    @property
    def is_cell(self) -> bool:
        return self.element.cell is not None


_CELL_RE = re.compile(r"^\$?([A-Za-z]{1,3})\$?(\d+)$")


def cell_position(cell: str) -> tuple[int, int] | None:
    """(column, row), both 1-based, of an A1-style reference; None when it is not one."""
    m = _CELL_RE.match(cell.strip())
    if not m:
        return None
    column = 0
    for ch in m.group(1).upper():
        column = column * 26 + ord(ch) - ord("A") + 1
    return column, int(m.group(2))


def column_letters(column: int) -> str:
    """The letters of a 1-based column number (1 -> "A", 28 -> "AB")."""
    letters = ""
    while column > 0:
        column, remainder = divmod(column - 1, 26)
        letters = chr(ord("A") + remainder) + letters
    return letters


def _cell_box(element: Element) -> Box | None:
    position = cell_position(element.cell or "")
    if position is None:
        return None
    column, row = position
    return Box(float(column), float(row), float(column + 1), float(row + 1))


def text_units(doc: Document) -> list[TextUnit]:
    """Every line of text in reading order. Form fields and table rows are read elsewhere."""
    units: list[TextUnit] = []

    def add(element: Element, text: str, box: Box | None, confidence: float, **lines: Any) -> None:
        if text.strip():
            units.append(
                TextUnit(
                    text.strip(), element.page, element, box, confidence, element.source, len(units), **lines
                )
            )

    for element in doc.elements:
        if element.type == "form_field":
            continue
        if element.type == "table" and element.rows and not element.lines:
            # Spreadsheet and CSV tables: their cells and rows come as elements of their own.
            continue
        if element.lines:
            for line in element.lines:
                add(element, line.text, line.box, min(line.confidence, element.confidence))
        elif element.cell is not None:
            add(element, element.text, _cell_box(element), element.confidence)
        elif element.line_start is not None:
            for offset, text in enumerate(element.text.split("\n")):
                number = element.line_start + offset
                add(element, text, None, element.confidence, line_start=number, line_end=number)
        else:
            for text in element.text.split("\n"):
                add(element, text, element.box, element.confidence)
    return units


def _same_area(a: TextUnit, b: TextUnit) -> bool:
    return a.page == b.page and a.element.sheet == b.element.sheet


def same_row(a: Box, b: Box, shift: float = 0.0) -> bool:
    """Whether `b`, moved down by `shift` (a skew correction), is on `a`'s visual line."""
    overlap = min(a.y1, b.y1 - shift) - max(a.y0, b.y0 - shift)
    lower = min(a.y1 - a.y0, b.y1 - b.y0)
    return lower > 0 and overlap >= SAME_ROW_OVERLAP * lower


def _center(box: Box) -> tuple[float, float]:
    return (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2


#: Steepest slant (dy/dx) believed to be a skewed line rather than two lines.
MAX_SKEW = 0.15


def page_skews(units: list[TextUnit]) -> dict[int, float]:
    """Slope (dy per dx) of each page's text lines: the median slope from each line to its nearest
    neighbour on the right. Photos of receipts are rarely square to the camera."""
    by_page: dict[int, list[Box]] = {}
    for unit in units:
        if unit.box is not None and not unit.is_cell:
            by_page.setdefault(unit.page, []).append(unit.box)
    skews: dict[int, float] = {}
    for page, boxes in by_page.items():
        slopes: list[float] = []
        for a in boxes:
            ax, ay = _center(a)
            height = a.y1 - a.y0
            right = [b for b in boxes if b.x0 >= a.x1 and abs(_center(b)[1] - ay) < height]
            if not right:
                continue
            b = min(right, key=lambda box: box.x0)
            bx, by = _center(b)
            slope = (by - ay) / max(bx - ax, 1e-6)
            if abs(slope) <= MAX_SKEW:
                slopes.append(slope)
        slopes.sort()
        skews[page] = slopes[len(slopes) // 2] if slopes else 0.0
    return skews


def right_of(label: TextUnit, units: list[TextUnit], skew: float = 0.0) -> list[TextUnit]:
    """Units on the label's visual line that start right of it, best aligned first, then nearest.

    `skew` (from `page_skews`) is the slope of the page's lines: a unit further right is expected
    that much lower.
    """
    if label.box is None:
        return []
    lb = label.box
    lx, ly = _center(lb)
    height = max(lb.y1 - lb.y0, 1e-6)

    def shift(u: TextUnit) -> float:
        return 0.0 if u.box is None or u.is_cell else skew * (_center(u.box)[0] - lx)

    found = [
        u
        for u in units
        if u is not label
        and u.box is not None
        and _same_area(u, label)
        and same_row(lb, u.box, shift(u))
        and u.box.x0 >= lb.x1 - LABEL_OVERLAP_CHARS * (lb.x1 - lb.x0) / max(len(label.text), 1)
    ]

    def alignment(u: TextUnit) -> tuple[float, float]:
        assert u.box is not None
        offset = abs(_center(u.box)[1] - shift(u) - ly)
        # Offsets under a quarter line count as level, so nearer units come first among them.
        return (round(offset / height * 4), u.box.x0)

    return sorted(found, key=alignment)


def below(label: TextUnit, units: list[TextUnit]) -> list[TextUnit]:
    """Units just under the label that overlap it horizontally, nearest first.

    Without boxes (text files) the next line in reading order is what lies below.
    """
    if label.box is None:
        nxt = [u for u in units if u.order == label.order + 1 and u.page == label.page]
        return nxt
    lb = label.box
    height = max(lb.y1 - lb.y0, 1e-6)
    found = []
    for u in units:
        if u is label or u.box is None or not _same_area(u, label):
            continue
        gap = u.box.y0 - lb.y1
        overlaps = min(lb.x1, u.box.x1) > max(lb.x0, u.box.x0)
        if overlaps and -0.3 * height <= gap <= BELOW_MAX_GAP_HEIGHTS * height and not same_row(lb, u.box):
            found.append(u)
    return _rows_in_reading_order(found)


def _rows_in_reading_order(units: list[TextUnit]) -> list[TextUnit]:
    """`units` row by row from the top, each row left to right: a value OCR split into pieces
    whose tops differ a little ("INGRAM, ELOWEN," and a higher "F") reads from its start."""
    rows: list[list[TextUnit]] = []
    for unit in sorted(units, key=lambda u: u.box.y0 if u.box else 0.0):
        if (
            rows
            and rows[-1][0].box is not None
            and unit.box is not None
            and same_row(rows[-1][0].box, unit.box)
        ):
            rows[-1].append(unit)
        else:
            rows.append([unit])
    return [u for row in rows for u in sorted(row, key=lambda u: u.box.x0 if u.box else 0.0)]


def cell_unit(doc: Document, table: Element, row: int, column: int) -> TextUnit:
    """What to cite for cell (`row`, `column`), 0-based, of a table element: the cell's own box (PDF
    tables list one line per non-empty cell, row by row), its spreadsheet cell, its CSV row, or
    else the whole table."""
    rows = table.rows or []
    text = rows[row][column].strip()
    whole = TextUnit(
        text,
        table.page,
        table,
        table.box,
        table.confidence,
        table.source,
        -1,
        table.line_start,
        table.line_end,
    )
    if table.lines:
        index = sum(1 for r in rows[:row] for c in r if c.strip()) + sum(
            1 for c in rows[row][:column] if c.strip()
        )
        lines = table.lines[index : index + 1] + [line for line in table.lines if line.text.strip() == text]
        line = next((line for line in lines if line.text.strip() == text), None)
        if line is not None:
            return replace(whole, box=line.box, confidence=min(line.confidence, table.confidence))
        return whole
    origin = cell_position((table.cell or "").split(":")[0]) if table.cell else None
    if origin is not None:
        reference = f"{column_letters(origin[0] + column)}{origin[1] + row}"
        cell = next((e for e in doc.elements if e.sheet == table.sheet and e.cell == reference), None)
        if cell is not None:
            return TextUnit(cell.text, cell.page, cell, _cell_box(cell), cell.confidence, cell.source, -1)
    if table.line_start is not None and table.line_end is not None:
        # A CSV table's rows come as elements of their own, one per row, inside its line range.
        first, last = table.line_start, table.line_end
        row_elements = [
            e
            for e in doc.elements
            if e is not table
            and e.line_start is not None
            and first <= e.line_start
            and (e.line_end or 0) <= last
        ]
        if len(row_elements) == len(rows):
            part = row_elements[row]
            return TextUnit(
                part.text,
                part.page,
                part,
                None,
                part.confidence,
                part.source,
                -1,
                part.line_start,
                part.line_end,
            )
    return whole


def joined_text(units: list[TextUnit]) -> tuple[str, list[tuple[int, int, TextUnit]]]:
    """The text of `units` joined by spaces, with each unit's character span in it."""
    parts: list[str] = []
    spans: list[tuple[int, int, TextUnit]] = []
    position = 0
    for unit in units:
        spans.append((position, position + len(unit.text), unit))
        parts.append(unit.text)
        position += len(unit.text) + 1
    return " ".join(parts), spans


def units_in(spans: list[tuple[int, int, TextUnit]], start: int, end: int) -> list[TextUnit]:
    """The units whose text overlaps characters `start`..`end` of `joined_text`."""
    return [u for s, e, u in spans if s < end and start < e]
