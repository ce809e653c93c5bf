"""Straighten a scanned page before OCR.

A page fed to a scanner or photographed is rarely square: its text lines slope by a degree or
two. The recogniser reads slanted lines worse (its detection boxes cut into the line above or
below, its character boxes are less exact), and a slope makes a label and its value, far apart on one line, stand
at different heights, so they are no longer paired. The skew is estimated from the text itself:
turned by the right angle, the page's ink falls into sharp horizontal bands (its lines), so the
rows' ink totals vary most; the angle that maximises that variance is the page's skew.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from extraction.formats.document import Box
from extraction.formats.ocr import OcrLine

if TYPE_CHECKING:
    from PIL import Image

#: Largest skew looked for, in degrees: more is a page turned on purpose, not a slanted scan.
MAX_SKEW_DEGREES = 6.0
#: Smaller skews are left alone: turning resamples every pixel, and less than this moves a line's
#: end by under a pixel or two.
MIN_SKEW_DEGREES = 0.15
#: The estimate runs on a copy this many pixels on its long side (enough for 0.05 degrees).
ESTIMATE_SIDE = 1000
#: Coarse step of the search, then the fine step around the best coarse angle.
COARSE_STEP, FINE_STEP = 0.5, 0.05
#: Fewest ink pixels for an estimate: a blank page has no lines to follow.
MIN_INK_PIXELS = 500


def skew_angle(image: Image.Image) -> float:
    """The angle, in degrees counter-clockwise, that turns the page's text lines level (0.0 when
    the page shows too little text to tell)."""
    import cv2
    import numpy as np

    gray = image.convert("L")
    scale = ESTIMATE_SIDE / max(gray.size)
    if scale < 1:
        gray = gray.resize((max(1, round(gray.width * scale)), max(1, round(gray.height * scale))))
    pixels = np.asarray(gray)
    _, ink = cv2.threshold(pixels, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    if int(ink.sum()) < MIN_INK_PIXELS or int(ink.sum()) > 0.5 * ink.size:
        # Too little ink has no lines; more ink than paper is a photo or a dark page.
        return 0.0
    ys, xs = np.nonzero(ink)
    offset = ink.shape[1] * np.tan(np.radians(MAX_SKEW_DEGREES))
    xs = xs - ink.shape[1] / 2

    def sharpness(angle: float) -> float:
        # For angles this small a shear is the turn: each ink pixel's row once turned.
        rows = np.round(ys - xs * np.tan(np.radians(angle)) + offset).astype(np.int64)
        return float(np.bincount(rows).var())

    reach = int(MAX_SKEW_DEGREES / COARSE_STEP)
    coarse = [k * COARSE_STEP for k in range(-reach, reach + 1)]
    best = max(coarse, key=lambda a: (sharpness(a), -abs(a)))
    steps = int(COARSE_STEP / FINE_STEP)
    fine = [best + k * FINE_STEP for k in range(-steps, steps + 1)]
    angle = max(fine, key=lambda a: (sharpness(a), -abs(a)))
    return round(angle, 2) if abs(angle) <= MAX_SKEW_DEGREES else 0.0


def deskewed(image: Image.Image) -> tuple[Image.Image, float]:
    """`image` (RGB) turned so its text lines are level, the same size, the corners uncovered by
    the turn filled with the paper's colour; and the angle it was turned by (counter-clockwise,
    in degrees). A level page comes back as it is, with 0.0."""
    from PIL import Image as PILImage

    angle = skew_angle(image)
    if abs(angle) < MIN_SKEW_DEGREES:
        return image, 0.0
    turned = image.rotate(angle, resample=PILImage.Resampling.BICUBIC, fillcolor=_paper(image))
    return turned, angle


def turned_back(lines: list[OcrLine], angle: float, width: int, height: int) -> list[OcrLine]:
    """OCR lines read on a page `deskewed` by `angle`, placed back on the page as it was (of
    `width` x `height` pixels): a line's corners exactly, a word's box as the box around its turned
    corners."""
    if not angle:
        return lines
    turn = _turn(-angle, width / 2, height / 2)

    def box_back(box: Box) -> Box:
        corners = [
            turn(x, y) for x, y in ((box.x0, box.y0), (box.x1, box.y0), (box.x1, box.y1), (box.x0, box.y1))
        ]
        xs, ys = [x for x, _ in corners], [y for _, y in corners]
        return Box(min(xs), min(ys), max(xs), max(ys))

    return [
        replace(
            line,
            points=tuple(turn(x, y) for x, y in line.points),
            words=tuple((word, box_back(box)) for word, box in line.words),
        )
        for line in lines
    ]


def _turn(angle: float, cx: float, cy: float) -> Callable[[float, float], tuple[float, float]]:
    """The map of a point turned `angle` degrees counter-clockwise (as shown, y pointing down)
    about (cx, cy): Pillow's and OpenCV's sense of a positive angle."""
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))

    def turn(x: float, y: float) -> tuple[float, float]:
        dx, dy = x - cx, y - cy
        return (cx + c * dx + s * dy, cy - s * dx + c * dy)

    return turn


def _paper(image: Image.Image) -> tuple[int, ...]:
    """The page's background colour: the median of its edge pixels."""
    import numpy as np

    pixels = np.asarray(image.convert("RGB"))
    edges = np.concatenate([pixels[0], pixels[-1], pixels[:, 0], pixels[:, -1]])
    return tuple(int(v) for v in np.median(edges, axis=0))
