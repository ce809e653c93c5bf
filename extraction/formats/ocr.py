"""Offline OCR with RapidOCR: PP-OCRv6 (small) detection and recognition on onnxruntime, with
the model files that ship inside the `rapidocr` wheel.

One engine per process, created on first use: loading the models takes about 0.8 s and 70 MiB
(a process reading receipts then holds about 400 MiB, peaking near 600, as the PP-OCRv4 engine
before it did), which a Ray worker should pay once, and only if it ever sees an image. The engine is
given the shipped files by path, so it never reaches its download code: nothing is fetched at
run time, and a wheel without them fails loudly instead.
"""

from __future__ import annotations

import itertools
import statistics
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from extraction.formats.document import Box
from extraction.formats.ocr_tokens import resolved

if TYPE_CHECKING:
    from PIL import Image

#: Lines the recogniser scores below this are dropped as noise (RapidOCR's own default).
MIN_LINE_SCORE = 0.5
#: The model files of the pinned `rapidocr` release, in its `models` folder. PP-OCRv6 reads
#: Latin print far better than the PP-OCRv4 mobile model of `rapidocr-onnxruntime` did (corpus
#: receipts, `bench/ocr_cer.py`: lines read exactly 77.6% -> 84.8%), and spaces words itself.
DETECTION_MODEL = "PP-OCRv6_det_small.onnx"
RECOGNITION_MODEL = "PP-OCRv6_rec_small.onnx"
ORIENTATION_MODEL = "ch_ppocr_mobile_v2.0_cls_mobile.onnx"

#: Two characters of one recognised word this many line heights apart are two words: the recogniser
#: read past something between them that it does not write (a check box: "Male [X] Female" comes
#: back "MaleFemale"). Letters of a word are never that far apart; the spaces it reads are about a
#: third of a line height.
SKIPPED_GAP_HEIGHTS = 1.0

#: The recognition model, which also reads Chinese, reads a speck of dirt between two Latin words
#: as a middle dot ("INTERNATIONAL·SDN"); it is taken for the space it stands in.
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


@dataclass(frozen=True)
class RawLine:
    """A line as the recogniser gives it: corners, text, score, and its characters (spaces left
    out), each with its left and right edge."""

    points: Sequence[Sequence[float]]
    text: str
    score: float
    glyphs: Sequence[tuple[str, float, float]] = ()


def ocr_image(image: Image.Image) -> list[OcrLine]:
    """The text lines of an image, in the engine's order, with coordinates in the image's pixels.

    Lines are read as they stand (the page is upright by its EXIF and levelled). A page whose
    lines score as if read upside down is read again with the engine's per-line 180-degree
    classifier, and the better-scored reading is kept."""
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    lines = _read(rgb, turn_lines=False)
    if len(lines) >= TURNED_MIN_LINES and _median_score(lines) < TURNED_MEDIAN_SCORE:
        turned = _read(rgb, turn_lines=True)
        if _median_score(turned) > _median_score(lines):
            return turned
    return lines


#: A page whose median line score is under this reads as turned over: upright pages of every
#: corpus and generated set score 0.94 or more, the same pages turned over 0.60-0.76.
TURNED_MEDIAN_SCORE = 0.85
#: ... judged on at least this many lines (a few stray marks say nothing of the page).
TURNED_MIN_LINES = 3


def _median_score(lines: list[OcrLine]) -> float:
    return statistics.median(line.score for line in lines) if lines else 0.0


def _read(rgb: Image.Image, *, turn_lines: bool) -> list[OcrLine]:
    # `use_cls` is passed on every call: the engine keeps the last call's choice.
    output = _get_engine()(
        rgb, use_cls=turn_lines, return_word_box=True, return_single_char_box=True, text_score=MIN_LINE_SCORE
    )
    return recognised_lines(raw_lines(output))


def raw_lines(output: Any) -> list[RawLine]:
    """The lines of a `RapidOCROutput`: its boxes, texts and scores, and the character boxes of
    each line's `word_results` (one (char, score, corners) triple per character)."""
    if output.boxes is None:
        return []
    words = output.word_results or ()
    lines: list[RawLine] = []
    for index, (points, text, score) in enumerate(zip(output.boxes, output.txts, output.scores, strict=True)):
        chars = words[index] if index < len(words) else ()
        glyphs = [
            (str(char), min(float(p[0]) for p in corners), max(float(p[0]) for p in corners))
            for char, _, corners in chars
        ]
        lines.append(RawLine([(float(x), float(y)) for x, y in points], str(text), float(score), glyphs))
    return lines


def recognised_lines(raw: Sequence[RawLine]) -> list[OcrLine]:
    """The recogniser's lines with their characters read in the context of their token
    (`ocr_tokens`), their words boxed, noise dropped."""
    lines: list[OcrLine] = []
    for line in raw:
        text = " ".join(line.text.replace(_SPECK, " ").split())
        if not text or line.score < MIN_LINE_SCORE:
            continue
        corners = tuple((float(x), float(y)) for x, y in line.points)
        top, bottom = min(y for _, y in corners), max(y for _, y in corners)
        spans = _words(text, line.glyphs, SKIPPED_GAP_HEIGHTS * (bottom - top))
        if spans:
            text = " ".join(word for word, _, _ in spans)
        words = tuple((_plain(word), Box(x0, top, x1, bottom)) for word, x0, x1 in spans)
        lines.append(OcrLine(_plain(text), corners, line.score, words))
    return lines


def _words(
    text: str, glyphs: Sequence[tuple[str, float, float]], skipped_gap: float
) -> list[tuple[str, float, float]]:
    """The words of `text` (spaced as the recogniser read it, and parted where two of a word's
    characters stand more than `skipped_gap` apart), each with the left edge of its first
    character and the right edge of its last; none when the characters do not spell the text."""
    letters = [g for g in glyphs if g[0].strip() and g[0] != _SPECK]
    if "".join(g[0] for g in letters) != "".join(text.split()):
        return []
    runs: list[list[tuple[str, float, float]]] = []
    start = 0
    for word in text.split():
        run = letters[start : start + len(word)]
        start += len(word)
        runs.append([run[0]])
        for previous, glyph in itertools.pairwise(run):
            if glyph[1] - previous[2] > skipped_gap:
                runs.append([])
            runs[-1].append(glyph)
    return [("".join(g[0] for g in run), run[0][1], max(g[2] for g in run)) for run in runs]


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


def engine_params(threads: int | None) -> dict[str, Any]:
    """RapidOCR's settings: the shipped models by path, warnings only in the log, and `threads`."""
    import rapidocr

    models = Path(rapidocr.__file__).parent / "models"
    params: dict[str, Any] = {
        "Global.log_level": "warning",
        "Det.model_path": str(models / DETECTION_MODEL),
        "Rec.model_path": str(models / RECOGNITION_MODEL),
        "Cls.model_path": str(models / ORIENTATION_MODEL),
        # No per-line 180-degree classifier: pages reach the engine turned by their EXIF and
        # levelled (`upright_frame`), and the classifier turned some upright lines over (a page
        # scanned upside down is read again with it: `ocr_image`). Without it
        # (bench/ocr_cer.py, receipts): CER 0.0985 -> 0.0960, lines read exactly 84.8% -> 85.5%;
        # (bench/realforms_ocr.py) answers read exactly even 76.8% -> 77.6%, odd 76.6% -> 77.9%,
        # questions even 89.3% -> 90.3%, odd 84.4% -> 87.2%; and one model pass less per line.
        "Global.use_cls": False,
    }
    if threads is not None:
        params["EngineConfig.onnxruntime.intra_op_num_threads"] = threads
        params["EngineConfig.onnxruntime.inter_op_num_threads"] = 1
    return params


def _get_engine() -> Any:
    global _engine, _engine_threads
    with _engine_lock:
        if _engine is None or _engine_threads != _threads:
            from rapidocr import RapidOCR

            _engine = RapidOCR(params=engine_params(_threads))
            _engine_threads = _threads
        return _engine
