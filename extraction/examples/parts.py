"""A value that is part of one widget's or one line's text: `Portland, OR 97201` in one widget
holds a city, a state and a ZIP; `Doe, Jane` in one line a last and a first name.

The text is cut into segments at its commas and semicolons (a comma between digits, as in
`1,250.00`, is no cut), and each segment into words. Teaching keeps where the value sits: its
segment, the count of segments, and the words before and after it in its segment and in the
whole text. Reading cuts a later document's text at the same place. The value's own length may
vary (`Salt Lake City, UT 84101`); the words around it are the design's fixed parts. When a scan
loses a comma, so that the segments no longer agree, a value of the first segment is still read
from the start up to the taught count of words after it, and one of the last segment by its taught
length back from the end; a middle segment's value is then not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

#: A cut between segments: a comma or semicolon ending a word (not one between digits).
_CUT = re.compile(r"[,;](?=\s|$|[^\d\s])")
_WORD = re.compile(r"\S+")
_EDGES = " \t,;:|"


@dataclass(frozen=True)
class Part:
    #: The value's segment, and how many segments the taught text had.
    segment: int
    segments: int
    #: Words before and after the value within its segment.
    before: int
    after: int
    #: Words of the value, and words after it to the end of the whole text.
    length: int
    tail: int

    def to_json(self) -> list[int]:
        return [self.segment, self.segments, self.before, self.after, self.length, self.tail]

    @classmethod
    def from_json(cls, data: list[int]) -> Part:
        return cls(*(int(v) for v in data[:6]))


def _segments(text: str) -> list[list[tuple[int, int]]]:
    """Each segment's words as (start, end) character spans of `text`."""
    cuts = [m.start() for m in _CUT.finditer(text)]
    bounds = list(zip([0, *(c + 1 for c in cuts)], [*cuts, len(text)], strict=True))
    found = []
    for start, end in bounds:
        words = [(start + m.start(), start + m.end()) for m in _WORD.finditer(text[start:end])]
        if words:
            found.append(words)
    return found


def find_part(text: str, states: Callable[[str], bool]) -> Part | None:
    """Where in `text` the shortest run of words (within one segment) that `states` accepts sits;
    None when no such run is there or when it is the whole text."""
    segments = _segments(text)
    total = sum(len(s) for s in segments)
    best: tuple[int, int, int] | None = None
    for k, words in enumerate(segments):
        for start in range(len(words)):
            for end in range(start + 1, len(words) + 1):
                if best is not None and end - start >= best[2] - best[1]:
                    break
                if states(_span(text, words[start:end])):
                    best = (k, start, end)
                    break
    if best is None:
        return None
    k, start, end = best
    if end - start == total:
        return None
    later = sum(len(s) for s in segments[k + 1 :])
    words = segments[k]
    return Part(k, len(segments), start, len(words) - end, end - start, len(words) - end + later)


def cut(text: str, part: Part) -> str | None:
    """The words of `text` at `part`'s place; None when the text has no such place."""
    segments = _segments(text)
    if len(segments) == part.segments:
        words = segments[part.segment]
        end = len(words) - part.after
        if part.before >= end:
            return None
        return _span(text, words[part.before : end])
    flat = [w for s in segments for w in s]
    if part.segment == 0 and part.segments > 1:
        # A lost comma: the value runs from its taught start to the taught words after it.
        end = len(flat) - part.tail
        return _span(text, flat[part.before : end]) if part.before < end else None
    if part.segment == part.segments - 1 and part.segments > 1:
        end = len(flat) - part.tail
        start = end - part.length
        return _span(text, flat[start:end]) if start >= 0 and start < end else None
    return None


def _span(text: str, words: list[tuple[int, int]]) -> str:
    return text[words[0][0] : words[-1][1]].strip(_EDGES)
