"""Comb boxes on a scanned page, erased before OCR.

A form that asks for one character per box ("one letter per box" names, a date in boxes) prints
a row of small square boxes side by side. OCR reads their rules as letters ("口", "I", "|") and
splits or merges the characters between them ("ELLINGSW OR TH"), or reads nothing at all. Here a
comb box is one connected piece of ink, a thin square outline empty inside, with a box of the
same size right beside it on its row; those outlines are painted over, in the shade of the paper
around them, in the picture OCR reads (the picture check boxes and rings are found in keeps
them). A check box stands alone beside its option's word, so it is never erased.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

#: Darker than this (0..255) is ink.
INK_LEVEL = 128
#: Sides of a box, in pixels, least (smaller outlines are letters' parts) and most.
MIN_SIDE, MAX_SIDE = 12, 120
#: Width over height of a box, least and most: boxes of a comb are about square.
MIN_ASPECT, MAX_ASPECT = 0.6, 1.6
#: An outline inks at most this share of its bounding box ...
MAX_FILL = 0.5
#: ... and lies in the band this share of its side wide along its edges, all but this share of
#: its ink (a letter inks its middle).
BAND_SHARE, MAX_INNER_INK = 0.15, 0.05
#: Two boxes of one comb: tops within this share of a box's height, sizes within this share, and
#: a gap between them of at most this share of a box's width.
ROW_SHARE, SIZE_SHARE, GAP_SHARE = 0.3, 0.2, 0.6


def _outlines(labels: np.ndarray, stats: np.ndarray) -> list[tuple[int, int, int, int, int]]:
    """(x, y, width, height, label) of every piece of ink shaped as an empty square outline."""
    out: list[tuple[int, int, int, int, int]] = []
    for index in range(1, len(stats)):
        x, y, w, h, area = (int(v) for v in stats[index])
        if not (MIN_SIDE <= w <= MAX_SIDE and MIN_SIDE <= h <= MAX_SIDE):
            continue
        if not MIN_ASPECT <= w / h <= MAX_ASPECT or area > MAX_FILL * w * h:
            continue
        band = max(2, round(BAND_SHARE * min(w, h)))
        inner = labels[y + band : y + h - band, x + band : x + w - band] == index
        if int(inner.sum()) <= MAX_INNER_INK * area:
            out.append((x, y, w, h, index))
    return out


#: A joined comb (one outline parted by dividers) holds at least this many cells, each about
#: square (its width this share of the outline's height, least and most).
MIN_JOINED_CELLS, CELL_ASPECT = 3, (0.6, 1.6)
#: A divider inks this share of the outline's height at least.
DIVIDER_SHARE = 0.8


def _joined_comb(labels: np.ndarray, stats: np.ndarray, index: int) -> bool:
    """Whether piece `index` is a comb drawn as one outline parted by evenly spaced dividers."""
    x, y, w, h, area = (int(v) for v in stats[index])
    if not MIN_SIDE <= h <= MAX_SIDE or w < MIN_JOINED_CELLS * CELL_ASPECT[0] * h or area > MAX_FILL * w * h:
        return False
    mask = labels[y : y + h, x : x + w] == index
    rows = mask.sum(axis=1) >= DIVIDER_SHARE * w
    if not (rows[: max(2, h // 8)].any() and rows[-max(2, h // 8) :].any()):
        # Ruled along its top and its bottom: underlined words touching their rule are no comb.
        return False
    columns = mask.sum(axis=0) >= DIVIDER_SHARE * h
    edges = [i for i in range(w) if columns[i] and (i == 0 or not columns[i - 1])]
    cells = [b - a for a, b in itertools.pairwise(edges)]
    return len(cells) >= MIN_JOINED_CELLS and all(
        CELL_ASPECT[0] * h <= c <= CELL_ASPECT[1] * h for c in cells
    )


def _side_by_side(a: tuple[int, int, int, int, int], b: tuple[int, int, int, int, int]) -> bool:
    ax, ay, aw, ah, _ = a
    bx, by, _, bh, _ = b
    return (
        abs(ay - by) <= ROW_SHARE * ah
        and abs(ah - bh) <= SIZE_SHARE * ah
        and 0 <= bx - (ax + aw) <= GAP_SHARE * aw
    )


def without_comb_boxes(image: Image.Image) -> Image.Image:
    """`image` with the outlines of its comb boxes painted over in the paper's shade (the image
    itself when it has none)."""
    import cv2
    import numpy as np
    from PIL import Image

    gray = np.asarray(image.convert("L"))
    ink = (gray < INK_LEVEL).astype(np.uint8)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    boxes = sorted(_outlines(labels, stats))
    comb = {i for i in range(1, len(stats)) if _joined_comb(labels, stats, i)}
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if b[0] > a[0] + a[2] * (1 + GAP_SHARE):
                break
            if _side_by_side(a, b):
                comb.update((a[4], b[4]))
    if not comb:
        return image
    # The outline's grey edge pixels, lighter than ink, go too.
    erase = cv2.dilate(np.isin(labels, sorted(comb)).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    pixels = np.asarray(image.convert("RGB")).copy()
    for index in sorted(comb):
        x, y, w, h, _ = (int(v) for v in stats[index])
        # Painted the shade of the paper inside and around it, not white: on a photo's grey page
        # a white outline is a bright frame that OCR's text finder stumbles on as much as on ink.
        top, left = max(y - 2, 0), max(x - 2, 0)
        area = (slice(top, y + h + 2), slice(left, x + w + 2))
        here = erase[area]
        paper = ~here & (gray[area] >= INK_LEVEL)
        pixels[area][here] = np.median(pixels[area][paper], axis=0) if paper.any() else 255
    return Image.fromarray(pixels)
