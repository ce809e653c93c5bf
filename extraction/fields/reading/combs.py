"""Combs: one character per box ("1 2 2 0 3" for a ZIP code, "0 3 / 2 4 / 2 0 0 4" for a date).

A text layer or OCR gives each boxed character as a word of its own. A run of single-character
words read as one word is the value the boxes hold.
"""

from __future__ import annotations

import itertools

from extraction.formats.document import Box, Word

#: Characters printed between boxes, kept in the joined value ("03/24/2004").
SEPARATORS = frozenset("/-.")
#: A run needs this many letters or digits to be a comb: fewer are options ("M F") or initials.
MIN_COMB_CHARS = 3


def _single(word: Word) -> bool:
    return len(word.text) == 1 and (word.text.isalnum() or word.text in SEPARATORS)


#: A gap this many times the run's median gap between characters parts two words of a
#: letter-spaced heading ("P A T I E N T   I N F O"); boxes of a comb are evenly spaced.
WORD_GAP_SHARE = 1.6
#: ... and is over this share of the run's pitch (the step from one character's left edge to the
#: next): a scan's boxes read with uneven gaps, while a space between words is always wider.
WORD_GAP_PITCHES = 0.5


#: Two capitals stand in two boxes (a state code, "N Y") when the gap between them is this many
#: of their heights: wider than a typed space ("J R"), narrower than options set apart.
PAIR_GAP_HEIGHTS = (0.4, 1.2)


def _pair(run: list[Word]) -> list[Word]:
    a, b = run
    height = max(a.box.y1 - a.box.y0, 1e-6)
    gap = (b.box.x0 - a.box.x1) / height
    if a.text.isupper() and b.text.isupper() and PAIR_GAP_HEIGHTS[0] <= gap <= PAIR_GAP_HEIGHTS[1]:
        return [Word(a.text + b.text, a.box.union(b.box))]
    return run


def _joined(run: list[Word]) -> list[Word]:
    """The run as one word when it is a comb, else as it was; a trailing separator stays apart.
    Letter-spaced words ("P A T I E N T   N A M E") come out as the words they spell."""
    tail: list[Word] = []
    while run and run[-1].text in SEPARATORS:
        tail.insert(0, run.pop())
    if sum(1 for w in run if w.text.isalnum()) < MIN_COMB_CHARS:
        return (_pair(run) if len(run) == 2 else run) + tail
    gaps = [b.box.x0 - a.box.x1 for a, b in itertools.pairwise(run)]
    median = sorted(gaps)[len(gaps) // 2]
    steps = sorted(b.box.x0 - a.box.x0 for a, b in itertools.pairwise(run))
    least = max(WORD_GAP_SHARE * max(median, 0.5), WORD_GAP_PITCHES * steps[len(steps) // 2])
    segments: list[list[Word]] = [[run[0]]]
    for gap, word in zip(gaps, run[1:], strict=True):
        if gap > least:
            segments.append([word])
        else:
            segments[-1].append(word)
    out: list[Word] = []
    for segment in segments:
        box = segment[0].box
        for word in segment[1:]:
            box = box.union(word.box)
        out.append(Word("".join(w.text for w in segment), box))
    return out + tail


#: A word that OCR read across several boxes ("OR" of "W O R T H") is at most this long ...
MAX_MERGED_CHARS = 12
#: ... and as wide as that many boxes of its comb, give or take this share of the boxes' pitch.
MERGED_WIDTH_PITCHES = 0.3


#: Boxes of a comb stand at least this many of their line's heights apart, left edge to left
#: edge: a typed letter and the next word are closer.
MIN_PITCH_HEIGHTS = 0.8


def _pitch(words: list[Word]) -> tuple[float, float] | None:
    """The step between the left edges of neighbouring boxed characters and the width of one,
    from each single-character word and the word after it (None without such a pair, or when
    the step is a typed one)."""
    steps = [b.box.x0 - a.box.x0 for a, b in itertools.pairwise(words) if _single(a) and a.text.isalnum()]
    widths = [w.box.x1 - w.box.x0 for w in words if _single(w) and w.text.isalnum()]
    if not steps or not widths:
        return None
    pitch = sorted(steps)[len(steps) // 2]
    height = sorted(w.box.y1 - w.box.y0 for w in words)[len(words) // 2]
    if pitch < MIN_PITCH_HEIGHTS * height:
        return None
    return pitch, sorted(widths)[len(widths) // 2]


def _mergeable(word: Word) -> bool:
    text = word.text
    return 2 <= len(text) <= MAX_MERGED_CHARS and all(
        c.isupper() or c.isdigit() or c in SEPARATORS for c in text
    )


def split_merged_boxes(words: list[Word]) -> list[Word]:
    """`words` with each word that OCR read across several boxes of a comb split back into one
    word per character. Such a word stands next to a boxed character and is as wide as its
    characters' boxes at the comb's pitch; a typed word is much narrower than that."""
    found = _pitch(words)
    if found is None:
        return words
    pitch, width = found
    out: list[Word] = []
    for i, word in enumerate(words):
        n = len(word.text)
        beside = [words[j] for j in (i - 1, i + 1) if 0 <= j < len(words) and _single(words[j])]
        expected = (n - 1) * pitch + width
        fits = abs((word.box.x1 - word.box.x0) - expected) <= MERGED_WIDTH_PITCHES * pitch
        near = any(max(b.box.x0 - word.box.x1, word.box.x0 - b.box.x1) <= pitch for b in beside)
        if not (_mergeable(word) and beside and fits and near):
            out.append(word)
            continue
        step = (word.box.x1 - word.box.x0 - width) / (n - 1)
        for k, ch in enumerate(word.text):
            x0 = word.box.x0 + k * step
            out.append(Word(ch, Box(x0, word.box.y0, x0 + width, word.box.y1)))
    return out


def joined_combs(words: list[Word]) -> list[Word]:
    """`words` (left to right) with each run of single characters that starts with a letter or
    digit and holds at least `MIN_COMB_CHARS` of them joined into one word."""
    out: list[Word] = []
    run: list[Word] = []
    for word in split_merged_boxes(words):
        if _single(word) and (run or word.text.isalnum()):
            run.append(word)
            continue
        out.extend(_joined(run))
        run = []
        out.append(word)
    out.extend(_joined(run))
    return out
