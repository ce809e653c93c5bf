"""Choice marks drawn as vector paths on a PDF page, read as the glyphs a text layer would carry.

A born-digital form draws its check boxes, and the tick, cross or fill that marks one, as paths,
and circles a chosen option with an ellipse: none of it is text, so the words "Male Female" come
back without saying which one was chosen. Here each drawn check box becomes a one-character word
(`☒` marked, `☐` empty) where the box is, and each circled word gets a `☒` just before it, so
field extraction reads `☒ Male ☐ Female` as it reads a form whose boxes are glyphs, or a scan
whose boxes `checkboxes.py` found.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from extraction.formats.document import Box, Word
from extraction.formats.pdf_geometry import to_box

MARKED, EMPTY = "\u2612", "\u2610"
#: A check box's side, in points, and the widest ratio of its sides.
MIN_SIDE, MAX_SIDE = 4.0, 20.0
MAX_ASPECT = 1.35
#: A mark (tick, cross) inside a box reaches past it by at most this share of its side.
MARK_REACH = 0.6
#: An ellipse around a chosen option is at most this tall and wide, in points.
MAX_CIRCLE_HEIGHT, MAX_CIRCLE_WIDTH = 36.0, 240.0
#: A fill this dark (sum of RGB, 0..3) marks a box.
DARK_FILL = 1.5
#: Boxes closer than this share of their side to a box beside them are a comb (one character
#: per box), not check boxes.
COMB_GAP = 0.4
#: A page with more curves than this is a drawing (a chart, text as outlines), not a form.
MAX_CURVES = 200


def _is_box(rect: Box) -> bool:
    w, h = rect.x1 - rect.x0, rect.y1 - rect.y0
    return MIN_SIDE <= w <= MAX_SIDE and MIN_SIDE <= h <= MAX_SIDE and max(w, h) <= MAX_ASPECT * min(w, h)


def _center_in(inner: Box, outer: Box, slack: float = 0.0) -> bool:
    cx, cy = (inner.x0 + inner.x1) / 2, (inner.y0 + inner.y1) / 2
    return outer.x0 - slack <= cx <= outer.x1 + slack and outer.y0 - slack <= cy <= outer.y1 + slack


def _shape(path: dict[str, Any]) -> str:
    kinds = {item[0] for item in path.get("items", ())}
    if "c" in kinds:
        return "curve"
    if kinds <= {"re", "qu"} or (kinds == {"l"} and len(path.get("items", ())) >= 4):
        return "box"
    return "stroke"


def drawn_marks(drawings: Sequence[dict[str, Any]], words: Sequence[Word], turn: Any = None) -> list[Word]:
    """One `☒`/`☐` word per drawn check box, and a `☒` before each circled word.

    `words` are the page's text words: a box with a character inside (a typed `X`) is left to
    the text, which already says it.
    """
    boxes: list[tuple[Box, bool]] = []
    strokes: list[Box] = []
    curves: list[Box] = []
    for path in drawings:
        rect = to_box(path["rect"], turn)
        shape = _shape(path)
        if shape == "box" and _is_box(rect):
            fill = path.get("fill")
            filled = "f" in (path.get("type") or "") and fill is not None and sum(fill) < DARK_FILL
            boxes.append((rect, filled))
        elif shape == "curve":
            curves.append(rect)
        else:
            strokes.append(rect)
    out: list[Word] = []
    for rect, filled in boxes:
        if any(_center_in(w.box, rect) for w in words) or _in_comb(rect, [b for b, _ in boxes]):
            continue
        side = rect.x1 - rect.x0
        inside = [
            s
            for s in strokes
            if _center_in(s, rect, slack=0.2 * side)
            and s.x1 - s.x0 <= (1 + MARK_REACH) * side
            and s.y1 - s.y0 <= (1 + MARK_REACH) * side
        ]
        out.append(Word(MARKED if filled or inside else EMPTY, rect))
    for ring in curves if len(curves) <= MAX_CURVES else ():
        height, width = ring.y1 - ring.y0, ring.x1 - ring.x0
        if not (MIN_SIDE <= height <= MAX_CIRCLE_HEIGHT and width <= MAX_CIRCLE_WIDTH):
            continue
        circled = sorted((w for w in words if _center_in(w.box, ring)), key=lambda w: w.box.x0)
        if circled:
            first = circled[0].box
            tiny = (first.y1 - first.y0) * 0.3
            out.append(Word(MARKED, Box(first.x0 - 2 * tiny, first.y0, first.x0 - tiny, first.y1)))
    return out


def _in_comb(rect: Box, boxes: list[Box]) -> bool:
    side = rect.x1 - rect.x0
    for other in boxes:
        if other is rect or abs(other.y0 - rect.y0) > 0.3 * side:
            continue
        gap = max(other.x0 - rect.x1, rect.x0 - other.x1)
        if -0.5 * side < gap < COMB_GAP * side:
            return True
    return False


def place_marks(rows: Sequence[Box], marks: Sequence[Word]) -> list[list[Word]]:
    """The marks that join each row (by index of `rows`): the row on the mark's line nearest to
    it. A mark beside no row joins none."""
    placed: list[list[Word]] = [[] for _ in rows]
    for mark in marks:
        box = mark.box
        height = box.y1 - box.y0
        best: tuple[float, int] | None = None
        for index, row in enumerate(rows):
            overlap = min(row.y1, box.y1) - max(row.y0, box.y0)
            if overlap < 0.5 * min(height, row.y1 - row.y0):
                continue
            gap = max(row.x0 - box.x1, box.x0 - row.x1, 0.0)
            if gap <= 3 * max(height, row.y1 - row.y0) and (best is None or gap < best[0]):
                best = (gap, index)
        if best is not None:
            placed[best[1]].append(mark)
    return placed
