"""Check boxes on a scanned page, read from its pixels.

OCR reads the words beside a check box but not the box: a ticked one and an empty one both come
back as nothing. Here square outlines of about a text line's height are found in the page image
(its ink taken both by one threshold for the page and by one local to each pixel, for a photo's
uneven light), and a box whose inside holds ink is ticked. Each becomes a one-character piece
(`☒` ticked, `☐` empty) placed where the box is, so it joins its OCR line as a text layer's box
glyph would, and field extraction reads `☒ Female` as it reads a born-digital form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from extraction.formats.ocr import OcrLine

if TYPE_CHECKING:
    from PIL import Image

TICKED, EMPTY = "\u2612", "\u2610"
#: A box's side, as a share of the median OCR line height.
MIN_SIDE, MAX_SIDE = 0.45, 1.4
#: Widest ratio of a box's sides.
MAX_ASPECT = 1.3
#: Share of a box's inside (its outline excluded) that must be ink for it to count as ticked.
TICKED_INK = 0.08
#: Least share of its bounding square a box's outline encloses (a circle encloses 0.79).
SQUARE_FILL = 0.82
#: Least share of each edge of a box that is ink.
EDGE_INK = 0.85
#: Share of each side cut away to leave the outline out of the inside.
BORDER_SHARE = 0.22


def with_checkboxes(image: Image.Image, lines: list[OcrLine]) -> list[OcrLine]:
    """`lines` with a `☒`/`☐` word for every check box on the page: inside the OCR line that
    spans the box, or as a line of its own."""
    from dataclasses import replace

    from extraction.formats.document import Box

    out = list(lines)
    found = find_checkboxes(image, lines)
    for x, y, w, h, ticked in found:
        if _in_comb((x, y, w, h), found):
            # Boxes side by side are a comb, one character per box: the characters are its text.
            continue
        mark = (TICKED if ticked else EMPTY, Box(float(x), float(y), float(x + w), float(y + h)))
        index = next((k for k, line in enumerate(out) if line.words and _covered((x, y, w, h), line)), None)
        if index is None:
            points = (
                (float(x), float(y)),
                (float(x + w), float(y)),
                (float(x + w), float(y + h)),
                (float(x), float(y + h)),
            )
            out.append(OcrLine(mark[0], points, 1.0, (mark,)))
            continue
        line = out[index]
        words = tuple(sorted((*line.words, mark), key=lambda word: word[1].x0))
        out[index] = replace(line, text=" ".join(word for word, _ in words), words=words)
    return out


def find_checkboxes(image: Image.Image, lines: list[OcrLine]) -> list[tuple[int, int, int, int, bool]]:
    """(x, y, width, height, ticked) of the square outlines about a text line high on the page."""
    import cv2
    import numpy as np

    heights = sorted(line.box.y1 - line.box.y0 for line in lines)
    if not heights:
        return []
    height = heights[len(heights) // 2]
    gray = np.asarray(image.convert("L"))
    _, global_ink = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    # One threshold for the page loses a blurred photo's thin outlines where its light is dim; a
    # threshold against each pixel's neighbourhood keeps them. The page's own threshold goes
    # first, so what it finds (a filled box, whose middle a local threshold hollows out) stays.
    found: list[tuple[int, int, int, int, Any]] = []
    for ink in (global_ink, _local_ink(gray, height)):
        for x, y, w, h in _square_outlines(ink, height):
            if not any(_overlap((x, y, w, h), other[:4]) > 0.5 for other in found):
                found.append((x, y, w, h, ink))
    boxes: list[tuple[int, int, int, int, bool]] = []
    for x, y, w, h, ink in found:
        dx, dy = int(w * BORDER_SHARE), int(h * BORDER_SHARE)
        inside = ink[y + dy : y + h - dy, x + dx : x + w - dx]
        boxes.append((x, y, w, h, inside.size > 0 and float((inside > 0).mean()) >= TICKED_INK))
    return boxes


#: Neighbourhood of the local threshold, as a multiple of the median OCR line height, and how much
#: darker than its neighbourhood's mean a pixel must be to be ink (out of 255).
LOCAL_BLOCK, LOCAL_DARKER = 1.3, 15


def _local_ink(gray: Any, height: float) -> Any:
    """Ink of `gray` by a threshold against each pixel's neighbourhood of about a box's size."""
    import cv2

    block = max(3, int(LOCAL_BLOCK * height) | 1)
    return cv2.adaptiveThreshold(
        gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, LOCAL_DARKER
    )


def _square_outlines(ink: Any, height: float) -> list[tuple[int, int, int, int]]:
    """(x, y, width, height) of the square outlines about `height` high in the ink mask `ink`."""
    import cv2

    found: list[tuple[int, int, int, int]] = []
    contours, _ = cv2.findContours(ink, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if not (MIN_SIDE * height <= min(w, h) and max(w, h) <= MAX_SIDE * height):
            continue
        if max(w, h) > MAX_ASPECT * min(w, h):
            continue
        outline = cv2.approxPolyDP(contour, 0.08 * cv2.arcLength(contour, True), True)
        if len(outline) != 4 or cv2.contourArea(contour) < SQUARE_FILL * w * h:
            continue
        if not _ruled_edges(ink[y : y + h, x : x + w] > 0):
            # Round or bold letters ("O", "D") pass the shape tests; a box has four inked edges.
            continue
        if any(_overlap((x, y, w, h), other) > 0.5 for other in found):
            continue
        found.append((x, y, w, h))
    return found


#: Boxes closer than this share of their side to the box beside them are a comb.
COMB_GAP = 0.4


def _in_comb(box: tuple[int, int, int, int], boxes: list[tuple[int, int, int, int, bool]]) -> bool:
    x, y, w, h = box
    for ox, oy, ow, oh, _ in boxes:
        if (ox, oy, ow, oh) == box or abs(oy - y) > 0.3 * h:
            continue
        gap = max(ox - (x + w), x - (ox + ow))
        if -0.5 * w < gap < COMB_GAP * w:
            return True
    return False


def _ruled_edges(cell: Any) -> bool:
    """Whether each of the four edges of `cell` (a boolean ink array) is mostly inked."""
    strip = max(1, min(cell.shape) // 8)
    edges = [cell[:strip, :], cell[-strip:, :], cell[:, :strip], cell[:, -strip:]]
    return all(edge.any(axis=0 if k < 2 else 1).mean() >= EDGE_INK for k, edge in enumerate(edges))


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    w = min(ax + aw, bx + bw) - max(ax, bx)
    h = min(ay + ah, by + bh) - max(ay, by)
    if w <= 0 or h <= 0:
        return 0.0
    return (w * h) / min(aw * ah, bw * bh)


def _covered(box: tuple[int, int, int, int], line: OcrLine) -> bool:
    """Whether an OCR line spans the box's centre."""
    x, y, w, h = box
    cx, cy = x + w / 2, y + h / 2
    b = line.box
    return b.x0 <= cx <= b.x1 and b.y0 <= cy <= b.y1
