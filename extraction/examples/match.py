"""Matching a document against an example by design: the printed words and where they sit.

Per page, each printed word of the example (an anchor: a label, a heading; never a value) is paired
with the document's words of the same text (exactly, else fuzzily for OCR slips). A similarity
transform (shift, scale, rotation) is fitted on pairs by RANSAC, then refined as an affine one by
least squares on the pairs it keeps, which absorbs a scan's or photo's slight stretch. The score is
the share of the example's anchors that land within `TOLERANCE` of their pair; a page matches at
`MATCH_SCORE` or more. Words in the same places but of another design share few anchors, and
designs that share labels place them elsewhere, so both score low.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz import fuzz, process

from extraction.examples.taught import Taught, TaughtPage
from extraction.examples.words import Piece, normal_word, page_pieces
from extraction.formats.document import Box, Document

#: Least share of a page's anchors that must land in place for the page to match.
MATCH_SCORE = 0.5
#: Least anchors in place, so a page with a handful of words never matches by chance.
MIN_INLIERS = 5
#: Least share of anchors found by exact text before any geometry is tried (cheap rejection).
MIN_EXACT_SHARE = 0.2
#: How far an anchor may land from its pair, as a share of the example page's diagonal.
TOLERANCE = 0.015
#: Least similarity (rapidfuzz ratio) of an OCR'd word to an anchor of four letters or more.
FUZZY_RATIO = 80
#: Most document words one anchor is paired with.
MAX_PAIRS = 3
RANSAC_ROUNDS = 150


@dataclass
class PageMatch:
    page: int
    #: Affine map from the example's page to the document's: x' = a x + b y + c, y' = d x + e y + f.
    transform: list[float]
    score: float
    #: The document words that landed on anchors (printed words of the design, not values).
    static: set[int] = field(default_factory=set)

    def point(self, x: float, y: float) -> tuple[float, float]:
        a, b, c, d, e, f = self.transform
        return a * x + b * y + c, d * x + e * y + f

    def box(self, box: list[float]) -> Box:
        corners = [self.point(x, y) for x in (box[0], box[2]) for y in (box[1], box[3])]
        xs = [p[0] for p in corners]
        ys = [p[1] for p in corners]
        return Box(min(xs), min(ys), max(xs), max(ys))

    @property
    def scale(self) -> float:
        a, b, _, d, e, _ = self.transform
        return float(np.sqrt(abs(a * e - b * d))) or 1.0


@dataclass
class DesignMatch:
    """Pages of the document that follow the example's design, by page number."""

    pages: dict[int, PageMatch]

    @property
    def score(self) -> float:
        return sum(p.score for p in self.pages.values()) / max(len(self.pages), 1)


def match_design(doc: Document, taught: Taught) -> DesignMatch | None:
    """How `doc` follows `taught`'s design, page by page; None when no page does."""
    return match_pieces(page_pieces(doc), taught)


def match_pieces(pages: dict[int, list[Piece]], taught: Taught) -> DesignMatch | None:
    matched: dict[int, PageMatch] = {}
    for page in taught.pages:
        found = match_page(page, pages.get(page.page, []))
        if found is not None:
            matched[page.page] = found
    return DesignMatch(matched) if matched else None


def match_page(page: TaughtPage, pieces: list[Piece]) -> PageMatch | None:
    anchors = [(normal_word(a.text), a.box) for a in page.anchors]
    anchors = [(text, box) for text, box in anchors if len(text) >= 2]
    words = [(i, normal_word(p.text), p) for i, p in enumerate(pieces) if p.widget is None]
    if len(anchors) < MIN_INLIERS or not words:
        return None
    index: dict[str, list[int]] = {}
    for i, text, _ in words:
        index.setdefault(text, []).append(i)
    exact = sum(text in index for text, _ in anchors)
    if exact < MIN_EXACT_SHARE * len(anchors) or exact < MIN_INLIERS:
        return None
    vocabulary = list(index)
    pairs: list[tuple[int, int]] = []
    for a, (text, _) in enumerate(anchors):
        targets = index.get(text, [])
        if not targets and len(text) >= 4:
            similar = process.extract(text, vocabulary, scorer=fuzz.ratio, score_cutoff=FUZZY_RATIO, limit=2)
            targets = [i for word, _, _ in similar for i in index[word]]
        pairs.extend((a, t) for t in targets[:MAX_PAIRS])
    return _fit(page, anchors, pieces, pairs)


def _center(box: list[float] | Box) -> complex:
    if isinstance(box, Box):
        return complex((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2)
    return complex((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


def _fit(
    page: TaughtPage,
    anchors: list[tuple[str, list[float]]],
    pieces: list[Piece],
    pairs: list[tuple[int, int]],
) -> PageMatch | None:
    if len(pairs) < MIN_INLIERS:
        return None
    source = np.array([_center(anchors[a][1]) for a, _ in pairs])
    target = np.array([_center(pieces[t].box) for _, t in pairs])
    owners = np.array([a for a, _ in pairs])
    tolerance = TOLERANCE * float(np.hypot(page.width or 1000.0, page.height or 1000.0))
    counts: dict[int, int] = {}
    for owner, _ in pairs:
        counts[owner] = counts.get(owner, 0) + 1
    unique = [k for k, (owner, _) in enumerate(pairs) if counts[owner] == 1] or list(range(len(pairs)))
    rng = random.Random(0)
    best: tuple[int, np.ndarray] | None = None
    for _ in range(RANSAC_ROUNDS):
        i, j = rng.sample(unique, 2) if len(unique) >= 2 else (0, 1)
        span = source[j] - source[i]
        if abs(span) < 4 * tolerance:
            continue
        scale = (target[j] - target[i]) / span
        if not 0.2 < abs(scale) < 10:
            continue
        mapped = scale * source + (target[i] - scale * source[i])
        inside = np.abs(mapped - target) < tolerance * abs(scale)
        count = len(set(owners[inside].tolist()))
        if best is None or count > best[0]:
            best = (count, inside)
    if best is None or best[0] < MIN_INLIERS:
        return None
    inside = best[1]
    transform = _affine(source[inside], target[inside])
    a, b, c, d, e, f = transform
    refit = (a * source.real + b * source.imag + c) + 1j * (d * source.real + e * source.imag + f)
    inside = np.abs(refit - target) < tolerance * (float(np.sqrt(abs(a * e - b * d))) or 1.0)
    landed = set(owners[inside].tolist())
    score = len(landed) / len(anchors)
    if len(landed) < MIN_INLIERS or score < MATCH_SCORE:
        return None
    static = {pairs[k][1] for k in np.flatnonzero(inside).tolist()}
    return PageMatch(page.page, [float(v) for v in transform], round(score, 4), static)


def _affine(source: np.ndarray, target: np.ndarray) -> list[float]:
    """Least-squares affine map of `source` points onto `target` points (complex x + iy)."""
    design = np.column_stack([source.real, source.imag, np.ones(len(source))])
    (a, b, c), *_ = np.linalg.lstsq(design, target.real, rcond=None)
    (d, e, f), *_ = np.linalg.lstsq(design, target.imag, rcond=None)
    return [float(a), float(b), float(c), float(d), float(e), float(f)]
