"""Matching a document against an example by design: the printed words and where they sit.

Per page, each printed word of the example (an anchor: a label, a heading; never a value) is paired
with the document's words of the same text (exactly, else fuzzily for OCR slips). A similarity
transform (shift, scale, rotation) is found on landmarks (anchors printed once on both pages) by
trying every two of them, then refined as an affine one by least squares on all the anchor pairs it
places, which absorbs a scan's or photo's slight stretch. The score is
the share of the example's anchors that land within `TOLERANCE` of their pair; a page matches at
`MATCH_SCORE` or more. Words in the same places but of another design share few anchors, and
designs that share labels place them elsewhere, so both score low.
"""

from __future__ import annotations

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
#: Least share of an example page's landmarks the document must print once (cheap rejection).
LANDMARK_SHARE = 0.4
#: Least share of the landmarks found that one similarity transform must place.
LANDMARK_AGREEMENT = 0.6
#: How far an anchor may land from its pair, as a share of the example page's diagonal.
TOLERANCE = 0.015
#: Least similarity (rapidfuzz ratio) of an OCR'd word to an anchor of four letters or more.
FUZZY_RATIO = 80
#: Most document words one anchor is paired with.
MAX_PAIRS = 3
#: How far an anchor's say in the map local to a slot reaches, as a share of the page's diagonal;
#: and the weight every anchor keeps however far it is (so a slot with few anchors near it still
#: gets a well-posed map).
LOCAL_REACH = 0.12
LOCAL_FLOOR = 0.02


@dataclass
class PageMatch:
    page: int
    #: Affine map from the example's page to the document's: x' = a x + b y + c, y' = d x + e y + f.
    transform: list[float]
    score: float
    #: The document words that landed on anchors (printed words of the design, not values),
    #: each with the anchor's text.
    static: dict[int, str] = field(default_factory=dict)
    #: Centers of the anchors that landed (example page, x + iy) and of their pairs (document).
    landed_from: list[complex] = field(default_factory=list)
    landed_to: list[complex] = field(default_factory=list)
    #: How far an anchor's say in a local map reaches (example page units; 0: global map only).
    reach: float = 0.0
    #: Every printed word of the example's page: its text as matching compares it, and its center.
    printed: list[tuple[str, complex]] = field(default_factory=list)
    #: Local maps already fitted, by the point they were fitted around.
    _local: dict[tuple[float, float], list[float]] = field(default_factory=dict, repr=False, compare=False)

    def point(self, x: float, y: float) -> tuple[float, float]:
        a, b, c, d, e, f = self.transform
        return a * x + b * y + c, d * x + e * y + f

    def local(self, x: float, y: float) -> list[float]:
        """The affine map that best places the anchors near (x, y), each weighted by its nearness
        (a Gaussian of `reach`): a phone's photo bends the page, so one map for the whole page
        puts a slot a row off where the page bends most; the anchors around the slot do not."""
        if self.reach <= 0 or len(self.landed_from) < 6:
            return self.transform
        key = (round(x, 1), round(y, 1))
        if key not in self._local:
            source = np.array(self.landed_from)
            target = np.array(self.landed_to)
            root = np.sqrt(np.exp(-((np.abs(source - complex(x, y)) / self.reach) ** 2)) + LOCAL_FLOOR)
            design = np.column_stack([source.real, source.imag, np.ones(len(source))]) * root[:, None]
            solved, _, rank, _ = np.linalg.lstsq(
                design, np.column_stack([target.real, target.imag]) * root[:, None]
            )
            self._local[key] = self.transform if rank < 3 else [float(v) for v in solved.T.ravel()]
        return self._local[key]

    def box(self, box: list[float]) -> Box:
        """`box` on the example's page mapped onto the document's, by the map local to it."""
        a, b, c, d, e, f = self.local((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        corners = [(a * x + b * y + c, d * x + e * y + f) for x in (box[0], box[2]) for y in (box[1], box[3])]
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
        found = match_page(page, PageWords.of(pages.get(page.page, [])))
        if found is not None:
            matched[page.page] = found
    return DesignMatch(matched) if matched else None


@dataclass
class PageWords:
    """A document page's words, indexed once for matching against many examples."""

    pieces: list[Piece]
    index: dict[str, list[int]]
    #: Words printed once on the page, by text: where landmarks are looked for.
    once: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, pieces: list[Piece]) -> PageWords:
        index: dict[str, list[int]] = {}
        for i, piece in enumerate(pieces):
            if piece.widget is None:
                key = normal_word(piece.text)
                if len(key) >= 2:
                    index.setdefault(key, []).append(i)
        return cls(pieces, index, {key: at[0] for key, at in index.items() if len(at) == 1})


def match_page(page: TaughtPage, words: PageWords) -> PageMatch | None:
    """`page` of an example matched on a document page's `words`, or None.

    First a cheap test on the example's landmarks (anchors printed once on its page, four letters
    or more): enough of them must be printed once on the document too, and one similarity
    transform, fitted on two of them, must place most of the ones found. Only then are all
    anchors paired (fuzzily where OCR misread one) and the transform refined on them.
    """
    keys = page.keys
    if len(keys) < MIN_INLIERS or not words.index:
        return None
    # Set arithmetic runs in C: most examples of a config are rejected here for microseconds.
    shared = page.landmarks.keys() & words.once.keys()
    if len(shared) < max(MIN_INLIERS, LANDMARK_SHARE * len(page.landmarks)):
        return None
    landmarks = [(page.landmarks[key], words.once[key]) for key in sorted(shared)]
    tolerance = TOLERANCE * float(np.hypot(page.width or 1000.0, page.height or 1000.0))
    source = np.array([_center(page.anchors[a].box) for a, _ in landmarks])
    target = np.array([_center(words.pieces[t].box) for _, t in landmarks])
    guess = _best_similarity(source, target, tolerance)
    if guess is None:
        return None
    pairs: list[tuple[int, int]] = []
    vocabulary = list(words.index)
    for a, key in enumerate(keys):
        targets = words.index.get(key, [])
        if not targets and len(key) >= 4:
            similar = process.extract(key, vocabulary, scorer=fuzz.ratio, score_cutoff=FUZZY_RATIO, limit=2)
            targets = [i for word, _, _ in similar for i in words.index[word]]
        pairs.extend((a, t) for t in targets[:MAX_PAIRS])
    return _refine(page, words, pairs, guess, tolerance)


def _center(box: list[float] | Box) -> complex:
    if isinstance(box, Box):
        return complex((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2)
    return complex((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


def _best_similarity(
    source: np.ndarray, target: np.ndarray, tolerance: float
) -> tuple[complex, complex] | None:
    """The similarity `z -> a z + b` (fitted on two landmarks) that places the most landmarks
    within `tolerance`, when it places `LANDMARK_AGREEMENT` of them; every pair is tried at once."""
    count = len(source)
    i, j = np.triu_indices(count, 1)
    span = source[j] - source[i]
    usable = np.abs(span) > 4 * tolerance
    i, j, span = i[usable], j[usable], span[usable]
    if not len(i):
        return None
    scale = (target[j] - target[i]) / span
    shift = target[i] - scale * source[i]
    mapped = scale[:, None] * source[None, :] + shift[:, None]
    close = np.abs(mapped - target[None, :]) < tolerance * np.abs(scale)[:, None]
    plausible = (np.abs(scale) > 0.2) & (np.abs(scale) < 10)
    votes = np.where(plausible, close.sum(axis=1), 0)
    best = int(np.argmax(votes))
    if votes[best] < max(MIN_INLIERS, LANDMARK_AGREEMENT * count):
        return None
    return complex(scale[best]), complex(shift[best])


def _refine(
    page: TaughtPage,
    words: PageWords,
    pairs: list[tuple[int, int]],
    guess: tuple[complex, complex],
    tolerance: float,
) -> PageMatch | None:
    """Every anchor pair the guessed transform places, an affine map fitted on them by least
    squares, and the share of anchors that map lands."""
    if len(pairs) < MIN_INLIERS:
        return None
    source = np.array([_center(page.anchors[a].box) for a, _ in pairs])
    target = np.array([_center(words.pieces[t].box) for _, t in pairs])
    owners = np.array([a for a, _ in pairs])
    scale, shift = guess
    inside = np.abs(scale * source + shift - target) < tolerance * abs(scale)
    if inside.sum() < 3:
        return None
    transform = _affine(source[inside], target[inside])
    a, b, c, d, e, f = transform
    refit = (a * source.real + b * source.imag + c) + 1j * (d * source.real + e * source.imag + f)
    inside = np.abs(refit - target) < tolerance * (float(np.sqrt(abs(a * e - b * d))) or 1.0)
    landed = set(owners[inside].tolist())
    score = len(landed) / len(page.keys)
    if len(landed) < MIN_INLIERS or score < MATCH_SCORE:
        return None
    static = {pairs[k][1]: page.anchors[pairs[k][0]].text for k in np.flatnonzero(inside).tolist()}
    reach = LOCAL_REACH * tolerance / TOLERANCE
    return PageMatch(
        page.page,
        [float(v) for v in transform],
        round(score, 4),
        static,
        source[inside].tolist(),
        target[inside].tolist(),
        reach,
        [(key, _center(anchor.box)) for key, anchor in zip(page.keys, page.anchors, strict=True)],
    )


def _affine(source: np.ndarray, target: np.ndarray) -> list[float]:
    """Least-squares affine map of `source` points onto `target` points (complex x + iy)."""
    design = np.column_stack([source.real, source.imag, np.ones(len(source))])
    (a, b, c), *_ = np.linalg.lstsq(design, target.real, rcond=None)
    (d, e, f), *_ = np.linalg.lstsq(design, target.imag, rcond=None)
    return [float(a), float(b), float(c), float(d), float(e), float(f)]
