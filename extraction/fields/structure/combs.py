"""Combs: one character per box ("1 2 2 0 3" for a ZIP code, "0 3 / 2 4 / 2 0 0 4" for a date).

A text layer or OCR gives each boxed character as a word of its own. A run of single-character
words read as one word is the value the boxes hold.
"""

from __future__ import annotations

import itertools

from extraction.formats.document import Word

#: Characters printed between boxes, kept in the joined value ("03/24/2004").
SEPARATORS = frozenset("/-.")
#: A run needs this many letters or digits to be a comb: fewer are options ("M F") or initials.
MIN_COMB_CHARS = 3


def _single(word: Word) -> bool:
    return len(word.text) == 1 and (word.text.isalnum() or word.text in SEPARATORS)


#: A gap this many times the run's median gap between characters parts two words of a
#: letter-spaced heading ("P A T I E N T   I N F O"); boxes of a comb are evenly spaced.
WORD_GAP_SHARE = 1.6


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
    segments: list[list[Word]] = [[run[0]]]
    for gap, word in zip(gaps, run[1:], strict=True):
        if gap > WORD_GAP_SHARE * max(median, 0.5):
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


def joined_combs(words: list[Word]) -> list[Word]:
    """`words` (left to right) with each run of single characters that starts with a letter or
    digit and holds at least `MIN_COMB_CHARS` of them joined into one word."""
    out: list[Word] = []
    run: list[Word] = []
    for word in words:
        if _single(word) and (run or word.text.isalnum()):
            run.append(word)
            continue
        out.extend(_joined(run))
        run = []
        out.append(word)
    out.extend(_joined(run))
    return out
