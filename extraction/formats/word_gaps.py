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

import math
import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image

#: A line's blank bands fall in two kinds, the gaps between letters and the (wider) spaces between
#: words; their widths vary with the type, so the line's own bands are split in two by Otsu's
#: criterion, and the wider kind are spaces when they are at least `BIMODAL_RATIO` times as wide
#: as the narrow kind and at least `SPACE_SHARE` of the height of the line's letters (its own rows,
#: `own_rows`, not the detector's padded box). A line whose bands are all alike (one word, or
#: evenly set words) is parted only by bands of `WIDE_SPACE_SHARE`. On the corpus receipts,
#: against their typed lines (`bench/ocr_cer.py`), this took the CER from 0.118 to 0.106 over a
#: fixed share of the box (0.2, or 2.5 letter gaps); shares 0.2 to 0.5, wide shares 0.6 to 1.0 and
#: ratios 2 to 3 were tried.
SPACE_SHARE = 0.3
WIDE_SPACE_SHARE = 0.8
BIMODAL_RATIO = 2.5
#: The recogniser leaves out many spaces but seldom puts one where there is none: a space it read
#: is kept where the page has a blank band of at least this share of the height there (and none
#: where the letters touch: its boxes, one per step of its model, can put one inside a word).
RECOGNISED_SPACE_SHARE = 0.1
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
#: A piece of ink narrower than this share of the line's median character box (the recogniser's,
#: about one letter's pitch) is part of a glyph, not a word: the stem of a "T" or "F" whose faint
#: arms fell below the ink threshold, or a bracket. It joins the words beside it (a stem both,
#: an opening bracket the next, a closing one the one before) unless a band of
#: `WIDE_SPACE_SHARE` parts them. Digits and narrow glyphs are left alone: a quantity "1" is a word
#: of its own. On the corpus receipts this mends "IN T ERNA T IONAL" and "( SUNGAI" and took the
#: CER from 0.098 to 0.096; shares 0.3 to 1.0 of the character box (and 0.15 to 0.45 of the
#: line's height, which merged lone letters) were tried.
THIN_PIECE_SHARE = 0.7
_OPENING = frozenset("([{")
_CLOSING = frozenset(")]}")
#: Where a run of at least this many digits meets a run of as many letters ("81760JOHOR",
#: "TAMPOI81200"), any blank band of `RECOGNISED_SPACE_SHARE` parts them, as a space the
#: recogniser read would: codes mix shorter runs ("U13", "CS1801"). On the corpus receipts this
#: took the CER from 0.0927 to 0.0925; runs of 2 did worse (0.0931), of 4 alike.
KIND_RUN = 3
#: Side, in pixels, of the neighbourhood a pixel is compared with, and how much darker than its
#: mean (in grey levels) ink is. On the corpus receipts windows of 21 to 61 pixels did alike.
INK_WINDOW = 21
INK_CONTRAST = 15
#: A row of a line's box belongs to its text when it holds more than this share of the ink of the
#: box's inkiest row; the rows where two touching lines meet hold little, and so do the ascenders
#: above the letters' main band, which need not be looked at to find the gaps between words.
ROW_INK_SHARE = 0.3
#: A line whose own rows (`own_rows`) are fewer than this share of its box's is not one the ink
#: can space: a dotted print or a rule through it left only a thin band of rows, whose gaps
#: cut the letters ("21. 2 0"); the recogniser's character boxes space it instead. On the corpus
#: receipts this took the CER from 0.0937 to 0.0929 (shares 0.15 to 0.4 did alike); 0.3 caught
#: lower-case lines too, whose letters fill under a third of their padded box on a form.
MIN_OWN_ROWS_SHARE = 0.15
#: A column is blank when fewer than this many of its pixels in the line are ink (noise specks).
NOISE_PIXELS = 2


def ink_mask(image: Image.Image) -> Any:
    """The page's ink as a boolean array: pixels darker by `INK_CONTRAST` than the mean of their
    `INK_WINDOW` neighbourhood. A threshold for the whole page (Otsu's) fails on a photographed
    receipt, whose paper darkens towards its edges and folds: there the paper itself became ink
    and filled the blank bands between words."""
    import cv2
    import numpy as np

    gray = np.asarray(image.convert("L"))
    ink = cv2.adaptiveThreshold(
        gray, 1, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, INK_WINDOW, INK_CONTRAST
    )
    return ink.astype(bool)


def word_pieces(
    ink: Any,
    corners: Sequence[tuple[float, float]],
    min_gap: float | None = None,
) -> list[tuple[float, float]]:
    """(left, right), in the page's x, of the runs of ink of the line whose box has these four
    `corners` (clockwise from the top left), split where a blank band at least `min_gap` pixels
    wide (by default `space_width` of the line's bands) runs across the line. A slanted line (a
    curled receipt) is first turned straight: a vertical band of the page would cut through its
    letters."""
    block, left, scale = _straightened(ink, corners)
    if block is None:
        return []
    rows = own_rows(block.sum(axis=1).tolist())
    if rows[1] - rows[0] < MIN_OWN_ROWS_SHARE * block.shape[0]:
        return []
    columns = (block[rows[0] : rows[1]].sum(axis=0) >= NOISE_PIXELS).tolist()
    if min_gap is None:
        min_gap = space_width(_blank_runs(columns), rows[1] - rows[0])
    pieces: list[tuple[float, float]] = []
    start: int | None = None
    blank = 0
    for k, inked in enumerate(columns):
        if inked:
            if start is None:
                start = k
            elif blank >= min_gap:
                pieces.append((left + start * scale, left + (k - blank) * scale))
                start = k
            blank = 0
        elif start is not None:
            blank += 1
    if start is not None:
        pieces.append((left + start * scale, left + (len(columns) - blank) * scale))
    return pieces


def _straightened(ink: Any, corners: Sequence[tuple[float, float]]) -> tuple[Any, float, float]:
    """The line's ink as an upright strip, the page x of its left edge and the page pixels per
    strip column (None for a box with no area)."""
    import cv2
    import numpy as np

    (tlx, tly), (trx, try_), (brx, bry), (blx, bly) = corners[:4]
    width = round(max(math.hypot(trx - tlx, try_ - tly), math.hypot(brx - blx, bry - bly)))
    height = round(max(math.hypot(blx - tlx, bly - tly), math.hypot(brx - trx, bry - try_)))
    if width < 1 or height < 1:
        return None, 0.0, 1.0
    level = abs(try_ - tly) < 1 and abs(bry - bly) < 1 and abs(blx - tlx) < 1 and abs(brx - trx) < 1
    if level:
        rows, cols = ink.shape
        top, bottom = max(0, int(tly)), min(rows, round(bly) + 1)
        first, end = max(0, int(tlx)), min(cols, round(trx) + 1)
        if bottom <= top or end <= first:
            return None, 0.0, 1.0
        return ink[top:bottom, first:end], float(first), 1.0
    source = np.array(corners[:4], dtype=np.float32)
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
    strip = cv2.warpPerspective(
        ink.astype(np.uint8),
        cv2.getPerspectiveTransform(source, target),
        (width, height),
        flags=cv2.INTER_NEAREST,
    ).astype(bool)
    left = (tlx + blx) / 2
    return strip, left, ((trx - tlx) + (brx - blx)) / (2 * width)


def own_rows(row_ink: list[int]) -> tuple[int, int]:
    """(first, end) of the rows of a line's box that hold the line itself: the run of rows with
    ink nearest the box's middle. The detector's box reaches into the lines above and below (a
    descender, an accent), and their ink would fill the blank columns between this line's words."""
    if not row_ink:
        return 0, 0
    floor = ROW_INK_SHARE * max(row_ink)
    runs: list[tuple[int, int]] = []
    start: int | None = None
    for k, count in enumerate([*row_ink, 0]):
        if count > floor and start is None:
            start = k
        elif count <= floor and start is not None:
            runs.append((start, k))
            start = None
    middle = len(row_ink) / 2
    if not runs:
        return 0, len(row_ink)
    return min(
        runs,
        key=lambda r: (
            0 if r[0] <= middle < r[1] else min(abs(r[0] - middle), abs(r[1] - middle)),
            -(r[1] - r[0]),
        ),
    )


def space_width(blanks: list[int], height: float) -> float:
    """The narrowest blank band that parts two words on a line of `height` pixels whose blank
    bands between inked columns are `blanks` pixels wide (see `SPACE_SHARE`)."""
    wide_only = max(1.0, WIDE_SPACE_SHARE * height)
    split = _two_kinds(blanks)
    if split is None:
        return wide_only
    threshold, narrow, wide = split
    if wide >= BIMODAL_RATIO * max(narrow, 1.0) and wide >= SPACE_SHARE * height:
        return max(1.0, min(wide_only, max(threshold, SPACE_SHARE * height)))
    return wide_only


def _two_kinds(values: list[int]) -> tuple[float, float, float] | None:
    """Otsu's split of `values` in two: (the threshold between them, the mean of the lower kind,
    the mean of the upper); None with fewer than two values or all of them equal."""
    ordered = sorted(values)
    best: tuple[float, float, float, float] | None = None
    for k in range(1, len(ordered)):
        if ordered[k] == ordered[k - 1]:
            continue
        lower, upper = ordered[:k], ordered[k:]
        low, high = sum(lower) / len(lower), sum(upper) / len(upper)
        spread = len(lower) * len(upper) * (high - low) ** 2
        if best is None or spread > best[0]:
            best = (spread, (ordered[k - 1] + ordered[k]) / 2, low, high)
    return None if best is None else best[1:]


def _blank_runs(columns: list[bool]) -> list[int]:
    """The widths of the blank runs between inked columns."""
    runs: list[int] = []
    blank, started = 0, False
    for inked in columns:
        if inked:
            if started and blank:
                runs.append(blank)
            started, blank = True, 0
        elif started:
            blank += 1
    return runs


def spaced_by_pieces(
    chars: list[str],
    spans: list[tuple[float, float]],
    pieces: list[tuple[float, float]],
    height: float,
    fine_pieces: list[tuple[float, float]] | None = None,
) -> tuple[str, list[tuple[str, float, float]]] | None:
    """The line's text with a space between characters that fall in different pieces and none
    inside a piece, except where the recogniser read a space and the two characters fall in
    different `fine_pieces` (the line cut at narrower bands, `RECOGNISED_SPACE_SHARE`); and its
    words, each with its left and right edge. None when the pieces cannot be trusted: none at
    all, or characters that would fall in them out of order."""
    if not pieces:
        return None
    pieces = _thin_pieces_joined(chars, spans, pieces, height)
    words: list[tuple[list[str], float, float]] = []
    last_piece = -1
    last_fine = -1
    recognised_space = False
    kinds = _kind_runs(chars)
    for index, (char, (a, b)) in enumerate(zip(chars, spans, strict=True)):
        if not char.strip():
            recognised_space = bool(words)
            continue
        # A number glued to a word (`KIND_RUN`) parts where the page has a gap between them.
        recognised_space = recognised_space or (index > 0 and "" != kinds[index - 1] != kinds[index] != "")
        centre = (a + b) / 2
        piece = _nearest(centre, pieces)
        if piece < last_piece:
            return None
        fine = _nearest(centre, fine_pieces) if fine_pieces else -1
        if (
            piece > last_piece
            and words
            and _one_word(words[-1][0][-1], char, pieces, last_piece, piece, height)
        ):
            last_piece = piece
        if piece > last_piece or (recognised_space and fine > last_fine >= 0):
            words.append(([], float(a), float(b)))
            last_piece = piece
        last_fine, recognised_space = fine, False
        letters, left, _ = words[-1]
        letters.append(char)
        words[-1] = (letters, left, float(b))
    if not words:
        return None
    out = [("".join(letters), left, right) for letters, left, right in words]
    return " ".join(word for word, _, _ in out), out


def _kind_runs(chars: list[str]) -> list[str]:
    """For each character, "digits" or "letters" when it is in a run of at least `KIND_RUN` of
    that kind with no narrow glyph at its ends, else ""."""
    kinds = ["digits" if c.isdigit() else "letters" if c.isalpha() else "" for c in chars]
    out = [""] * len(chars)
    start = 0
    for end in range(1, len(chars) + 1):
        if end == len(chars) or kinds[end] != kinds[start]:
            run = chars[start:end]
            if kinds[start] and end - start >= KIND_RUN and run[0] not in _NARROW and run[-1] not in _NARROW:
                out[start:end] = [kinds[start]] * (end - start)
            start = end
    return out


def _thin_pieces_joined(
    chars: list[str], spans: list[tuple[float, float]], pieces: list[tuple[float, float]], height: float
) -> list[tuple[float, float]]:
    """`pieces` with each thin one (`THIN_PIECE_SHARE`) joined to the word it is part of: a
    letter's stem to both neighbours nearer than a wide space (its arms reach either way), an
    opening bracket to the next, a closing one to the one before."""
    widths = [b - a for char, (a, b) in zip(chars, spans, strict=True) if char.strip()]
    if not widths:
        return pieces
    thin = THIN_PIECE_SHARE * statistics.median(widths)
    wide = WIDE_SPACE_SHARE * height
    held: list[str] = ["" for _ in pieces]
    for char, (a, b) in zip(chars, spans, strict=True):
        if char.strip():
            held[_nearest((a + b) / 2, pieces)] += char
    joined = list(pieces)
    # From the right, so joining piece k to k + 1 leaves the indices of the pieces before it.
    for k in range(len(pieces) - 1, -1, -1):
        left, right = joined[k]
        if right - left >= thin or not _part_of_a_word(held[k]):
            continue
        if held[k][0] not in _CLOSING and k + 1 < len(joined) and joined[k + 1][0] - right < wide:
            right = joined[k + 1][1]
            joined[k : k + 2] = [(left, right)]
        if held[k][-1] not in _OPENING and k > 0 and left - joined[k - 1][1] < wide:
            joined[k - 1 : k + 1] = [(joined[k - 1][0], right)]
    return joined


def _part_of_a_word(held: str) -> bool:
    """Whether what a thin piece holds is a bracket or letters that are wide in print (a lone
    thin "I", "1" or ":" can be a word of its own)."""
    if held in _OPENING or held in _CLOSING:
        return True
    return bool(held) and all(c.isalpha() and c not in _NARROW for c in held)


def _nearest(x: float, pieces: list[tuple[float, float]]) -> int:
    return min(range(len(pieces)), key=lambda p: _distance(x, pieces[p]))


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
