"""The words of a parsed document with their places: what examples are taught from and matched on.

Every engine gives lines with boxes; most give each word its own box too. A line without word boxes
is cut into words by character count, which is close enough for a form's one-line labels; a tick or
box glyph OCR glued to a word is cut off it the same way (`✓Female`: the tick and its option). A form
widget (a fillable PDF's field) is one piece: its value, where the widget sits, and whether it is a
check box. A plain text file has no boxes, only lines: its words are placed on a text grid (each
character `GRID_COLUMN` wide, each line `GRID_LINE` below the last, words `GRID_HEIGHT` high), so a
text form is taught and matched by the columns and lines its words sit at, as a page by its points.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from extraction.formats.document import Box, Document, Element, Line

#: Characters that tick a box, as text layers, OCR and the scanned check box reader give them.
TICKS = frozenset("\u2612\u2611\u2713\u2714\u2715\u2717\u2718\u25a0\u25cf\u25c9\u22a0\u25a3\u5188xX")
#: Characters that print an empty box.
EMPTY_BOXES = frozenset("\u2610\u25a1\u25cb\u274f\u25a2")
_BRACKETED_TICK = re.compile(r"^[\[(]\s*[xX\u2713\u2714]\s*[\])]$")
_BRACKETED_EMPTY = re.compile(r"^[\[(]\s*[\])]$")
#: Glyphs that are a box or a tick, never a letter (`x` ticks a box too, but also spells words).
_MARK_GLYPHS = "".join(sorted(c for c in TICKS | EMPTY_BOXES if not c.isalpha()))
#: A word with a mark glyph glued at its start or end, the rest holding a letter or digit.
_GLUED_MARK = re.compile(rf"^([{_MARK_GLYPHS}])(\w.*)()$|^()(.*\w)([{_MARK_GLYPHS}])$")
#: The text grid of a plain text file: a character's width, a line's pitch and a word's height.
#: One space (6) is a word space (under `teach.SPACE_HEIGHTS` x 12), two or more spaces are not.
GRID_COLUMN = 6.0
GRID_LINE = 24.0
GRID_HEIGHT = 12.0


@dataclass(frozen=True)
class Piece:
    """One word on a page, or one form widget."""

    page: int
    text: str
    box: Box
    confidence: float
    source: str
    #: Set for a form widget: its field name; its `text` is the value it holds.
    widget: str | None = None
    #: For a check box widget: whether it is ticked.
    checked: bool | None = None
    #: For a word of a plain text file: its line number (1-based), as text citations give it.
    line: int | None = None

    @property
    def center(self) -> tuple[float, float]:
        return ((self.box.x0 + self.box.x1) / 2, (self.box.y0 + self.box.y1) / 2)

    @property
    def height(self) -> float:
        return max(self.box.y1 - self.box.y0, 1.0)


def mark_state(piece: Piece) -> bool | None:
    """True for a ticked box or tick mark, False for an empty box, None for anything else."""
    if piece.checked is not None:
        return piece.checked
    text = piece.text.strip()
    if len(text) == 1:
        if text in TICKS:
            return True
        if text in EMPTY_BOXES:
            return False
        return None
    if _BRACKETED_TICK.match(text):
        return True
    if _BRACKETED_EMPTY.match(text):
        return False
    return None


def _split_line(line: Line) -> list[tuple[str, Box]]:
    if line.words:
        words = [(w.text, w.box) for w in line.words if w.text.strip()]
    else:
        text = line.text
        box = line.box
        per_char = max(box.x1 - box.x0, 1.0) / max(len(text), 1)
        words = [
            (m.group(0), Box(box.x0 + m.start() * per_char, box.y0, box.x0 + m.end() * per_char, box.y1))
            for m in re.finditer(r"\S+", text)
        ]
    return [part for text, box in words for part in _marks_apart(text, box)]


def _marks_apart(text: str, box: Box) -> list[tuple[str, Box]]:
    """A word with a box or tick glyph OCR glued to it (`✓Female`, `□M`, `Yes☒`) as the glyph and
    the word, each with its share of the box by character count: the mark is read where its box
    is, the word as the option it names."""
    glued = _GLUED_MARK.match(text)
    if glued is None:
        return [(text, box)]
    per_char = max(box.x1 - box.x0, 1.0) / len(text)
    parts: list[tuple[str, Box]] = []
    at = 0
    for part in glued.groups():
        if part:
            parts.append(
                (part, Box(box.x0 + at * per_char, box.y0, box.x0 + (at + len(part)) * per_char, box.y1))
            )
            at += len(part)
    return parts


def _element_pieces(element: Element) -> list[Piece]:
    if element.type == "form_field":
        if element.box is None:
            return []
        # A check box widget holds `true` or `false` (`pdf_forms.form_fields`).
        checked = {"true": True, "false": False}.get(element.text)
        return [
            Piece(
                element.page,
                element.text,
                element.box,
                1.0,
                "form_fields",
                widget=element.field_name or "",
                checked=checked,
            )
        ]
    lines = element.lines
    if not lines and element.box is None and element.line_start is not None:
        return _grid_pieces(element)
    if not lines:
        if element.box is None or not element.text.strip():
            return []
        lines = [Line(element.text, element.box, element.confidence)]
    return [
        Piece(element.page, text, box, line.confidence, element.source)
        for line in lines
        for text, box in _split_line(line)
    ]


def _grid_pieces(element: Element) -> list[Piece]:
    """The words of a text file's element at their places on the text grid."""
    pieces = []
    for offset, text in enumerate(element.text.split("\n")):
        number = (element.line_start or 1) + offset
        top = (number - 1) * GRID_LINE
        for m in re.finditer(r"\S+", text):
            box = Box(m.start() * GRID_COLUMN, top, m.end() * GRID_COLUMN, top + GRID_HEIGHT)
            pieces.append(Piece(element.page, m.group(0), box, 1.0, element.source, line=number))
    return pieces


def page_size(doc: Document, number: int, pieces: list[Piece]) -> tuple[float, float]:
    """A page's width and height: as parsed, else (a text file) the extent of its words' grid."""
    info = doc.page(number)
    if info is not None and info.width and info.height:
        return info.width, info.height
    if not pieces:
        return 0.0, 0.0
    return max(p.box.x1 for p in pieces), max(p.box.y1 for p in pieces) + GRID_LINE - GRID_HEIGHT


def page_pieces(doc: Document) -> dict[int, list[Piece]]:
    """Each page's words and widgets, in the document's reading order."""
    pages: dict[int, list[Piece]] = {p.page: [] for p in doc.pages}
    for element in doc.elements:
        if element.parent is not None and element.type != "form_field":
            continue
        pages.setdefault(element.page, []).extend(_element_pieces(element))
    return pages


def rows(pieces: list[Piece]) -> list[list[Piece]]:
    """`pieces` grouped into visual rows (vertical centers within half a word's height), each
    left to right, rows top to bottom."""
    ordered = sorted(pieces, key=lambda p: p.center[1])
    grouped: list[list[Piece]] = []
    for piece in ordered:
        if grouped:
            last = grouped[-1]
            middle = sum(p.center[1] for p in last) / len(last)
            height = sum(p.height for p in last) / len(last)
            if abs(piece.center[1] - middle) <= 0.5 * max(height, piece.height):
                last.append(piece)
                continue
        grouped.append([piece])
    return [sorted(row, key=lambda p: p.box.x0) for row in grouped]


def union(boxes: list[Box]) -> Box:
    box = boxes[0]
    for other in boxes[1:]:
        box = box.union(other)
    return box


def normal_word(text: str) -> str:
    """A word as anchors compare it: letters and digits only, case folded."""
    return "".join(c for c in text.casefold() if c.isalnum())
