"""Offline OCR with RapidOCR (PP-OCR models on onnxruntime, shipped inside the wheel).

One engine per process, created on first use: loading the models takes about half a second and
100 MB, which a Ray worker should pay once, and only if it ever sees an image.
"""

from __future__ import annotations

import itertools
import math
import statistics
import threading
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from extraction.formats.document import Box
from extraction.formats.ocr_tokens import resolved
from extraction.formats.word_gaps import RECOGNISED_SPACE_SHARE, ink_mask, spaced_by_pieces, word_pieces

if TYPE_CHECKING:
    from PIL import Image

#: Lines the recogniser scores below this are dropped as noise (RapidOCR's own default).
MIN_LINE_SCORE = 0.5
#: The recognition model often drops spaces in Latin text ("SDNBHD"); they are put back where the
#: gap between two character boxes is wider than this share of the line's median character width
#: and than `SPACE_GAP_SPREAD` times the line's median gap (so evenly spaced large letters are not
#: torn apart). On the SROIE receipts of the corpus this raised exactly matching lines from 63% to
#: 72% (ratios 0.4 to 0.8 and spreads 1.5 to 3 were tried).
SPACE_GAP_RATIO = 0.6
SPACE_GAP_SPREAD = 3.0

#: The recognition model, which also reads Chinese, reads a speck of dirt between two Latin words
#: as a middle dot ("INTERNATIONAL·SDN"); it is taken for the space it stands in, kept where the
#: page has a gap there like any space the recogniser read.
_SPECK = "\u00b7"

_engine: Any = None
_engine_threads: int | None = None
_threads: int | None = None
_engine_lock = threading.Lock()


@dataclass(frozen=True)
class OcrLine:
    """One recognised line: its text, its four corners (clockwise from the top left) and its score."""

    text: str
    points: tuple[tuple[float, float], ...]
    score: float
    #: The line's words with their own boxes, from the recogniser's character boxes (empty when
    #: it gave none).
    words: tuple[tuple[str, Box], ...] = ()

    @property
    def box(self) -> Box:
        xs = [p[0] for p in self.points]
        ys = [p[1] for p in self.points]
        return Box(min(xs), min(ys), max(xs), max(ys))


def ocr_image(image: Image.Image) -> list[OcrLine]:
    """The text lines of an image, in the engine's order, with coordinates in the image's pixels."""
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    result, _ = _get_engine()(rgb, return_word_box=True, text_score=MIN_LINE_SCORE)
    return recognised_lines(rgb, result)


def recognised_lines(rgb: Image.Image, result: Any) -> list[OcrLine]:
    """The lines of the engine's `result` on page `rgb`: spaced from the page's pixels, their
    characters read in the context of their token (`ocr_tokens`), noise dropped."""
    ink = ink_mask(rgb) if result else None
    lines: list[OcrLine] = []
    for item in result or []:
        points, text, score = item[0], str(item[1]).replace(_SPECK, " "), float(item[2])
        spans: list[tuple[str, float, float]] = []
        if len(item) >= 5:
            chars = [" " if str(c) == _SPECK else str(c) for c in item[4]]
            text, spans = _spaced(text, points, item[3], chars, ink)
        text = _plain(text.strip())
        if text and score >= MIN_LINE_SCORE:
            corners = tuple((float(x), float(y)) for x, y in points)
            top, bottom = min(y for _, y in corners), max(y for _, y in corners)
            words = tuple((_plain(word), Box(x0, top, x1, bottom)) for word, x0, x1 in spans)
            lines.append(OcrLine(text, corners, score, words))
    return lines


def _plain(text: str) -> str:
    """`text` in compatibility form, its look-alikes resolved (`ocr_tokens`). The recognition model
    also reads Chinese and often gives the full-width forms of punctuation (U+FF08 "(", U+FF1A ":") in Latin
    text; NFKC makes them the ASCII ones that labels and values are matched with."""
    return resolved(unicodedata.normalize("NFKC", text))


def set_ocr_threads(threads: int | None) -> None:
    """Cap the CPU threads of OCR in this process (None: onnxruntime's default, every core).

    A worker that was given one CPU of a shared pool should use one thread: onnxruntime otherwise
    spreads every call over all cores, and parallel workers then only take turns. Call it when a
    worker starts; an engine already created with another setting is replaced on next use.
    """
    global _threads
    with _engine_lock:
        _threads = threads


def _get_engine() -> Any:
    global _engine, _engine_threads
    with _engine_lock:
        if _engine is None or _engine_threads != _threads:
            from rapidocr_onnxruntime import RapidOCR

            options = (
                {} if _threads is None else {"intra_op_num_threads": _threads, "inter_op_num_threads": 1}
            )
            _engine = RapidOCR(**options)
            _engine_threads = _threads
        return _engine


def _spaced(
    text: str, points: Any, char_boxes: Any, chars: Any, ink: Any
) -> tuple[str, list[tuple[str, float, float]]]:
    """The line's text and words, spaced by the blank bands of the page between its words
    (`word_gaps`), else by the gaps between the recogniser's character boxes."""
    if char_boxes and len(char_boxes) == len(chars) and ink is not None:
        corners = [(float(x), float(y)) for x, y in points]
        height = math.dist(corners[0], corners[3])
        pieces = word_pieces(ink, corners)
        fine = word_pieces(ink, corners, min_gap=max(1.0, RECOGNISED_SPACE_SHARE * height))
        spans = [(min(p[0] for p in box), max(p[0] for p in box)) for box in char_boxes]
        spaced = spaced_by_pieces([str(c) for c in chars], spans, pieces, height, fine)
        if spaced is not None:
            return spaced
    return _respace(text, char_boxes, chars)


def _respace(text: str, char_boxes: Any, chars: Any) -> tuple[str, list[tuple[str, float, float]]]:
    """Put back the spaces the recogniser dropped, from the gaps between its character boxes; and
    the words so made, each with its left and right edge."""
    if not char_boxes or len(char_boxes) != len(chars) or "".join(map(str, chars)).strip() != text.strip():
        return text, []
    spans = [(min(p[0] for p in box), max(p[0] for p in box)) for box in char_boxes]
    kept = [i for i, ch in enumerate(chars) if ch != " "]
    if len(kept) < 3:
        return text, []
    median_width = statistics.median(spans[i][1] - spans[i][0] for i in kept)
    gaps = [spans[b][0] - spans[a][1] for a, b in itertools.pairwise(kept) if b - a == 1]
    threshold = max(
        SPACE_GAP_RATIO * median_width, SPACE_GAP_SPREAD * max(statistics.median(gaps) if gaps else 0, 1)
    )
    out: list[str] = []
    words: list[list[int]] = []
    for k, i in enumerate(kept):
        if k:
            prev = kept[k - 1]
            # Characters between two kept ones are the model's own spaces.
            if i - prev > 1 or spans[i][0] - spans[prev][1] > threshold:
                out.append(" ")
                words.append([])
        if not words:
            words.append([])
        words[-1].append(i)
        out.append(str(chars[i]))
    boxes = [
        ("".join(str(chars[i]) for i in word), float(spans[word[0]][0]), float(spans[word[-1]][1]))
        for word in words
        if word
    ]
    return "".join(out), boxes
