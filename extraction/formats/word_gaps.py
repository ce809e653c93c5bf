"""Word spacing of an OCR line, rebuilt from the blank columns of the page between its words.

The recogniser often glues words ("JuniperPkwy,Suite110") or splits one ("Prim ary", "Am
better"): its character boxes come from the steps of its sequence model, about one per 14 pixels
whatever the letter, so the gap after a wide "m" looks like the gap between two words. The page's
pixels know better: between two words runs a band of blank columns as wide as a space (about a
quarter of the type's height), inside a word the letters nearly touch. So the line's box is cut
where such a band runs, and the recognised characters are grouped by the piece their box's centre
falls in.
"""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image

#: A blank band at least this share of the line box's height wide separates two words.
SPACE_SHARE = 0.2
#: Between two digits (or a digit and "/", "-", "." or ","), where a narrow "1" leaves a wide
#: margin, a band must be this much of the height to part two numbers ("11/24", not "1 1/24").
NUMERIC_SPACE_SHARE = 0.45
_NUMERIC = frozenset("0123456789/-.,")
#: Beside a narrow glyph ("I", "l", "1"), whose ink is a thin stroke in a wider cell, a
#: band must be this much of the height to be a space ("INVOICE", not "I NVOICE").
NARROW_SPACE_SHARE = 0.25
_NARROW = frozenset("1Iil|!'")
#: Glyphs open on their right ("r", "f"): their ink ends well before their cell does.
_OPEN_RIGHT = frozenset("rf")
#: A space is also this many times the line's typical gap between letters: a receipt's monospaced
#: type sets its letters as far apart as a proportional font sets its words.
LETTER_GAP_SPREAD = 2.5
#: A column is blank when fewer than this many of its pixels in the line are ink (noise specks).
NOISE_PIXELS = 2


def ink_mask(image: Image.Image) -> Any:
    """The page's ink as a boolean array (Otsu's threshold of its grey levels)."""
    import cv2
    import numpy as np

    gray = np.asarray(image.convert("L"))
    _, ink = cv2.threshold(gray, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    return ink.astype(bool)


def word_pieces(ink: Any, x0: float, y0: float, x1: float, y1: float) -> list[tuple[float, float]]:
    """(left, right) of the runs of ink in a line's box, split where a blank band at least
    `SPACE_SHARE` of the box's height wide runs from top to bottom of the box."""
    height, width = ink.shape
    top, bottom = max(0, int(y0)), min(height, round(y1) + 1)
    left, right = max(0, int(x0)), min(width, round(x1) + 1)
    if bottom <= top or right <= left:
        return []
    columns = ink[top:bottom, left:right].sum(axis=0) >= NOISE_PIXELS
    min_gap = max(1, SPACE_SHARE * (y1 - y0), LETTER_GAP_SPREAD * _typical_gap(columns.tolist()))
    pieces: list[tuple[float, float]] = []
    start: int | None = None
    blank = 0
    for k, inked in enumerate(columns.tolist()):
        if inked:
            if start is None:
                start = k
            elif blank >= min_gap:
                pieces.append((left + start, left + k - blank))
                start = k
            blank = 0
        elif start is not None:
            blank += 1
    if start is not None:
        pieces.append((left + start, left + len(columns) - blank))
    return pieces


def _typical_gap(columns: list[bool]) -> float:
    """The median width of the blank runs between inked columns: the line's letter spacing."""
    runs: list[int] = []
    blank, started = 0, False
    for inked in columns:
        if inked:
            if started and blank:
                runs.append(blank)
            started, blank = True, 0
        elif started:
            blank += 1
    return float(statistics.median(runs)) if runs else 0.0


def spaced_by_pieces(
    chars: list[str], spans: list[tuple[float, float]], pieces: list[tuple[float, float]], height: float
) -> tuple[str, list[tuple[str, float, float]]] | None:
    """The line's text with a space between characters that fall in different pieces and none
    inside a piece; and its words, each with its left and right edge. None when the pieces cannot
    be trusted: none at all, or characters that would fall in them out of order."""
    if not pieces:
        return None
    words: list[tuple[list[str], float, float]] = []
    last_piece = -1
    for char, (a, b) in zip(chars, spans, strict=True):
        if not char.strip():
            continue
        centre = (a + b) / 2
        piece = min(range(len(pieces)), key=lambda p: _distance(centre, pieces[p]))
        if piece < last_piece:
            return None
        if (
            piece > last_piece
            and words
            and _one_word(words[-1][0][-1], char, pieces, last_piece, piece, height)
        ):
            last_piece = piece
        if piece > last_piece:
            words.append(([], float(a), float(b)))
            last_piece = piece
        letters, left, _ = words[-1]
        letters.append(char)
        words[-1] = (letters, left, float(b))
    if not words:
        return None
    out = [("".join(letters), left, right) for letters, left, right in words]
    return " ".join(word for word, _, _ in out), out


def _one_word(
    before: str, after: str, pieces: list[tuple[float, float]], left: int, right: int, height: float
) -> bool:
    """Whether two pieces, one ending in `before` and the next starting with `after`, hold one
    word: their gap is narrower than a space beside those glyphs."""
    if left < 0:
        return False
    if before in _NUMERIC and after in _NUMERIC:
        share = NUMERIC_SPACE_SHARE
    elif before in _NARROW or after in _NARROW or before in _OPEN_RIGHT:
        share = NARROW_SPACE_SHARE
    else:
        return False
    return pieces[right][0] - pieces[left][1] < share * height


def _distance(x: float, piece: tuple[float, float]) -> float:
    left, right = piece
    return 0.0 if left <= x <= right else min(abs(x - left), abs(x - right))
