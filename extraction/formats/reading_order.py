"""Reading order from geometry: columns, bands and rows of boxes on a page.

PDF content streams and OCR engines list text in whatever order they were drawn or detected.
People read columns top to bottom, left column first, and a row of a form left to right; this
module recovers that order from the boxes alone, for any engine that has boxes.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Sequence
from typing import TypeVar

from extraction.formats.document import Box, Element, Line, Word
from extraction.formats.ocr import OcrLine

T = TypeVar("T")

#: A vertical gap between columns must be at least this share of the page width (9 pt on Letter).
MIN_GUTTER_SHARE = 0.015
#: Each column must be at least this share of the page width; narrower groups are labels and
#: values side by side (a form), which read row by row instead.
MIN_COLUMN_SHARE = 0.25
#: Two boxes sit on one row when they overlap vertically by this share of the shorter one.
ROW_OVERLAP = 0.5
#: OCR rows further apart than this many median row heights start a new block.
BLOCK_GAP_ROWS = 1.2


def reading_order(items: Sequence[T], box_of: Callable[[T], Box], page_width: float) -> list[T]:
    """`items` in reading order: columns left to right within bands that share a column layout,
    bands top to bottom, and rows left to right where there are no columns."""
    boxes = [box_of(item) for item in items]
    return [items[k] for k in _order(list(range(len(items))), boxes, page_width)]


def columns(boxes: Sequence[Box], page_width: float) -> list[list[int]] | None:
    """Indexes of `boxes` grouped into columns, left to right, when vertical gutters split them
    into groups each at least `MIN_COLUMN_SHARE` of the page wide; None otherwise."""
    return _columns(list(range(len(boxes))), list(boxes), page_width)


def _order(idx: list[int], boxes: list[Box], page_width: float) -> list[int]:
    if len(idx) < 2:
        return idx
    groups = _columns(idx, boxes, page_width)
    if groups:
        return [k for group in groups for k in _order(group, boxes, page_width)]
    bands = _merge_bands_with_shared_gutters(_bands(idx, boxes), boxes, page_width)
    if len(bands) == 1:
        return _rows(idx, boxes)
    return [k for band in bands for k in _order(band, boxes, page_width)]


def _columns(idx: list[int], boxes: list[Box], page_width: float) -> list[list[int]] | None:
    groups = _split_on_gaps(idx, boxes, page_width)
    if len(groups) < 2:
        return None
    min_width = MIN_COLUMN_SHARE * page_width
    for group in groups:
        if max(boxes[k].x1 for k in group) - min(boxes[k].x0 for k in group) < min_width:
            return None
    return groups


def _split_on_gaps(idx: list[int], boxes: list[Box], page_width: float) -> list[list[int]]:
    """Groups of boxes separated by vertical gutters that run through the whole set."""
    min_gap = MIN_GUTTER_SHARE * page_width
    groups: list[list[int]] = []
    right = float("-inf")
    for k in sorted(idx, key=lambda k: boxes[k].x0):
        if groups and boxes[k].x0 - right < min_gap:
            groups[-1].append(k)
            right = max(right, boxes[k].x1)
        else:
            groups.append([k])
            right = boxes[k].x1
    return groups


def _gutters(idx: list[int], boxes: list[Box], page_width: float) -> list[tuple[float, float]]:
    columns = _columns(idx, boxes, page_width)
    if not columns:
        return []
    edges = [(min(boxes[k].x0 for k in c), max(boxes[k].x1 for k in c)) for c in columns]
    return [(edges[i][1], edges[i + 1][0]) for i in range(len(edges) - 1)]


def _bands(idx: list[int], boxes: list[Box]) -> list[list[int]]:
    """Horizontal bands: groups of boxes separated by a horizontal gap across the whole set."""
    bands: list[list[int]] = []
    bottom = float("-inf")
    for k in sorted(idx, key=lambda k: boxes[k].y0):
        if not bands or boxes[k].y0 > bottom:
            bands.append([k])
            bottom = boxes[k].y1
        else:
            bands[-1].append(k)
            bottom = max(bottom, boxes[k].y1)
    return bands


def _merge_bands_with_shared_gutters(
    bands: list[list[int]], boxes: list[Box], page_width: float
) -> list[list[int]]:
    """Join consecutive bands whose columns line up: paragraph breaks of a two-column text often
    fall at the same height in both columns, which must not make the text read across."""
    merged: list[list[int]] = []
    previous: list[tuple[float, float]] = []
    for band in bands:
        gutters = _gutters(band, boxes, page_width)
        if merged and previous and _compatible(previous, gutters):
            merged[-1] = merged[-1] + band
            previous = _gutters(merged[-1], boxes, page_width)
        else:
            merged.append(band)
            previous = gutters
    return merged


def _compatible(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> bool:
    return len(a) == len(b) and all(
        min(x1, y1) > max(x0, y0) for (x0, x1), (y0, y1) in zip(a, b, strict=True)
    )


def _rows(idx: list[int], boxes: list[Box]) -> list[int]:
    rows: list[list[int]] = []
    for k in sorted(idx, key=lambda k: (boxes[k].y0, boxes[k].x0)):
        if rows and _same_row(boxes[rows[-1][0]], boxes[k]):
            rows[-1].append(k)
        else:
            rows.append([k])
    return [k for row in rows for k in sorted(row, key=lambda k: boxes[k].x0)]


def _same_row(a: Box, b: Box) -> bool:
    overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
    shorter = min(a.y1 - a.y0, b.y1 - b.y0)
    return shorter > 0 and overlap >= ROW_OVERLAP * shorter


def ocr_elements(lines: Sequence[OcrLine], page: int, scale: float = 1.0) -> list[Element]:
    """Text elements (without ids) from OCR lines: one per block, its rows as `lines`, its
    confidence the length-weighted mean of the recogniser's scores."""
    elements: list[Element] = []
    for rows in ocr_blocks(lines, scale):
        box = rows[0].box
        for row in rows[1:]:
            box = box.union(row.box)
        weights = [max(len(row.text), 1) for row in rows]
        score = sum(row.confidence * w for row, w in zip(rows, weights, strict=True)) / sum(weights)
        elements.append(
            Element(
                id="",
                type="text",
                page=page,
                text="\n".join(row.text for row in rows),
                box=box,
                confidence=round(score, 4),
                source="ocr",
                lines=rows,
            )
        )
    return elements


def ocr_blocks(lines: Sequence[OcrLine], scale: float = 1.0) -> list[list[Line]]:
    """Group OCR lines into visual rows (one `Line` each, pieces joined left to right) and rows
    into blocks separated by vertical gaps; boxes are divided by `scale` (render pixels per unit)."""
    rows = _ocr_rows(lines)
    if not rows:
        return []
    row_lines = [_merge_row(row, scale) for row in rows]
    height = statistics.median(line.box.y1 - line.box.y0 for line in row_lines)
    blocks: list[list[Line]] = [[row_lines[0]]]
    for line in row_lines[1:]:
        last = blocks[-1][-1].box
        gap = line.box.y0 - last.y1
        overlaps = min(line.box.x1, last.x1) > max(line.box.x0, last.x0)
        if gap > BLOCK_GAP_ROWS * height or not overlaps:
            blocks.append([line])
        else:
            blocks[-1].append(line)
    return blocks


def _ocr_rows(lines: Sequence[OcrLine]) -> list[list[OcrLine]]:
    rows: list[list[OcrLine]] = []
    for line in sorted(lines, key=lambda ln: (ln.box.y0 + ln.box.y1) / 2):
        box = line.box
        for row in reversed(rows[-3:]):
            if any(_same_row(member.box, box) for member in row) and not any(
                min(member.box.x1, box.x1) > max(member.box.x0, box.x0) for member in row
            ):
                row.append(line)
                break
        else:
            rows.append([line])
    return [sorted(row, key=lambda ln: ln.box.x0) for row in rows]


def _merge_row(row: list[OcrLine], scale: float) -> Line:
    box = row[0].box
    for piece in row[1:]:
        box = box.union(piece.box)
    weights = [max(len(piece.text), 1) for piece in row]
    score = sum(p.score * w for p, w in zip(row, weights, strict=True)) / sum(weights)
    # Words from the recogniser's character boxes where it gave them; a check box read from the
    # pixels (`formats.checkboxes`) falls among them where it stands.
    words = sorted(
        (
            Word(text, _scaled(word_box, scale))
            for piece in row
            for text, word_box in (
                piece.words or [(w.text, w.box) for w in span_words(piece.text, piece.box)]
            )
        ),
        key=lambda w: w.box.x0,
    )
    return Line(
        text=" ".join(w.text for w in words) if words else " ".join(piece.text for piece in row),
        box=_scaled(box, scale),
        confidence=score,
        words=words,
    )


def _scaled(box: Box, scale: float) -> Box:
    return Box(box.x0 / scale, box.y0 / scale, box.x1 / scale, box.y1 / scale)


def span_words(text: str, box: Box) -> list[Word]:
    """The words of a run of text in one box (a PDF span, an OCR line), each given its share of
    the box by its place among the characters: close enough to tell columns and gaps apart."""
    count = len(text)
    if not count:
        return []
    width = (box.x1 - box.x0) / count
    return [
        Word(m.group(0), Box(box.x0 + m.start() * width, box.y0, box.x0 + m.end() * width, box.y1))
        for m in re.finditer(r"\S+", text)
    ]
