"""Circled options on a scanned page, read from its pixels.

A paper form's choice is often circled ("M (F)", "Home (Cell) Work"): OCR reads the words and
drops the ring, so which option was chosen is lost. Here a ring is a stroke of ink around an OCR
word: one connected piece of ink whose bounding box encloses the word, inked on its left, right,
top and bottom sides and empty at its corners (a ruled box or a check box is inked there). The
circled word gets a `☒` just before it, as `pdf_marks.py` does for a ring drawn in a PDF, so
field extraction reads `☒ Female` as it reads a ticked box.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from extraction.formats.document import Box
from extraction.formats.ocr import OcrLine

if TYPE_CHECKING:
    from PIL import Image

MARKED = "\u2612"
#: A ring's height as a share of the median OCR line height, least and most.
MIN_HEIGHT, MAX_HEIGHT = 0.8, 2.6
#: How far a ring may reach past the word it circles on each side, in line heights.
MAX_REACH = 1.6
#: Share of a ring's bounding box, per side, that its corner patches span.
CORNER = 0.14
#: A corner patch with more of its pixels inked than this is a box's corner, not a ring's gap.
CORNER_INK = 0.06
#: Share of each side band (left, right, top, bottom) that must hold some of the ring's ink.
SIDE_SHARE = 0.12
#: A straight run of ink this many line heights long is a rule, not part of a ring (which is at
#: most `MAX_HEIGHT` line heights tall and curves).
RULE_HEIGHTS = 3.0
#: Longest word a ring is taken to circle: an option, not a sentence.
MAX_WORD_CHARS = 12


def with_circled(image: Image.Image, lines: list[OcrLine]) -> list[OcrLine]:
    """`lines` with a `☒` word before every word a ring of ink circles."""
    heights = sorted(line.box.y1 - line.box.y0 for line in lines)
    if not heights:
        return lines
    rings = find_rings(image, heights[len(heights) // 2])
    if not rings:
        return lines
    out = list(lines)
    for index, line in enumerate(out):
        words = line.words or ((line.text, line.box),)
        marked: list[tuple[str, Box]] = []
        for text, box in words:
            if len(text) <= MAX_WORD_CHARS and any(_circles(ring, box) for ring in rings):
                tiny = (box.y1 - box.y0) * 0.3
                marked.append((MARKED, Box(box.x0 - 2 * tiny, box.y0, box.x0 - tiny, box.y1)))
        if marked:
            joined = tuple(sorted((*words, *marked), key=lambda word: word[1].x0))
            out[index] = replace(line, text=" ".join(word for word, _ in joined), words=joined)
    return out


def _circles(ring: Box, word: Box) -> bool:
    """Whether `ring` goes around `word`: it spans the word's width and its middle, and is not
    much wider than the word (a ruled cell around a value is not a ring)."""
    height = word.y1 - word.y0
    cy = (word.y0 + word.y1) / 2
    slack = 0.15 * height
    return (
        ring.x0 <= word.x0 + slack
        and ring.x1 >= word.x1 - slack
        and ring.y0 <= cy <= ring.y1
        and (word.x0 - ring.x0) + (ring.x1 - word.x1) <= 2 * MAX_REACH * height
        and ring.y1 - ring.y0 <= MAX_HEIGHT * height
    )


def find_rings(image: Image.Image, line_height: float) -> list[Box]:
    """Bounding boxes of the ring-shaped pieces of ink about a text line high on the page."""
    import cv2
    import numpy as np

    gray = np.asarray(image.convert("L"))
    _, ink = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(without_rules(ink, line_height), connectivity=8)
    rings: list[Box] = []
    for label in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[label])
        if not (MIN_HEIGHT * line_height <= h <= MAX_HEIGHT * line_height and w >= 0.8 * h):
            continue
        if w > 14 * line_height or area > 0.5 * w * h:
            continue
        if _ring_shaped(labels[y : y + h, x : x + w] == label):
            rings.append(Box(float(x), float(y), float(x + w), float(y + h)))
    return rings


def without_rules(ink: Any, line_height: float) -> Any:
    """`ink` (a 0/255 array) without its long straight rules: a ring drawn on a ruled form often
    touches a cell's rule, and joined to the whole grid it is no ring-sized piece at all."""
    import cv2

    length = max(3, int(RULE_HEIGHTS * line_height))
    horizontal = cv2.morphologyEx(ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (length, 1)))
    vertical = cv2.morphologyEx(ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, length)))
    return cv2.subtract(ink, cv2.bitwise_or(horizontal, vertical))


def _ring_shaped(piece: Any) -> bool:
    """Whether a piece of ink (a boolean array over its bounding box) is inked on all four sides
    near their middles and empty at the four corners."""
    h, w = piece.shape
    cw, ch = max(1, int(w * CORNER)), max(1, int(h * CORNER))
    corners = [piece[:ch, :cw], piece[:ch, -cw:], piece[-ch:, :cw], piece[-ch:, -cw:]]
    if any(float(corner.mean()) > CORNER_INK for corner in corners):
        return False
    band_w, band_h = max(1, int(w * SIDE_SHARE)), max(1, int(h * SIDE_SHARE))
    middle_rows = slice(h // 4, h - h // 4)
    middle_cols = slice(w // 4, w - w // 4)
    sides = [
        piece[middle_rows, :band_w],
        piece[middle_rows, -band_w:],
        piece[:band_h, middle_cols],
        piece[-band_h:, middle_cols],
    ]
    return all(bool(side.any()) for side in sides) and _top_and_bottom_span(piece, band_h)


def _top_and_bottom_span(piece: Any, band: int) -> bool:
    """Whether the ink along the top and the bottom runs across the middle half of the width (an
    arc, not a letter's stem touching the edge)."""
    w = piece.shape[1]
    middle = slice(w // 4, w - w // 4)
    top = piece[:band, middle].any(axis=0)
    bottom = piece[-band:, middle].any(axis=0)
    return float(top.mean()) >= 0.8 and float(bottom.mean()) >= 0.8
