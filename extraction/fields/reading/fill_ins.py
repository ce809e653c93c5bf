"""Fill-in rules: values typed on a run of underscores (`First Name ___Ann___`), or laid over one.

A form made in a word processor types each value between two runs ("Last Name ____Ravensworth____
Phone ____..."): the run closing a value ends that value's cell, however small the gap after it.
A flattened fillable form prints each value as text of its own over the rule, often a little
above the label's baseline, so an engine reads it as a line of its own: it belongs in the rule it
stands on, right after its label.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from extraction.formats.document import Box, Line, Word

#: A fill-in rule: a run of underscores.
RUN_RE = re.compile(r"_{2,}")
#: A run of underscores ending the text right after a value (the rule's rest after a typed value).
CLOSING_END_RE = re.compile(r"(?<=[^\s_])_{2,}\s*$")
#: What OCR keeps of a rule around a value typed on it: underscores glued to the value's ends.
_RULE_ENDS_RE = re.compile(r"^_+(?=\w)|(?<=\w)_+$")


def without_rule_ends(text: str) -> str:
    """`text` without the underscores OCR left glued to its ends ("_Ignatia_" is "Ignatia"): no
    value starts or ends with one."""
    return _RULE_ENDS_RE.sub("", text)


def _split(word: Word, at: int) -> tuple[Word, Word]:
    """`word` cut after its `at`-th character, the box shared by character count."""
    box = word.box
    x = box.x0 + (box.x1 - box.x0) * at / max(len(word.text), 1)
    return (
        Word(word.text[:at], Box(box.x0, box.y0, x, box.y1)),
        Word(word.text[at:], Box(x, box.y0, box.x1, box.y1)),
    )


def closing_cuts(text: str) -> list[int]:
    """Where in `text` a run closes a value typed between two runs (the offset after the run): a
    run glued to the value's last character, with an opening run before it since the last cut."""
    cuts: list[int] = []
    last = 0
    for run in RUN_RE.finditer(text):
        glued = run.start() > 0 and not text[run.start() - 1].isspace()
        if glued and RUN_RE.search(text, last, run.start()):
            cuts.append(run.end())
            last = run.end()
    return cuts


def enclosed_cells(words: Sequence[Word]) -> list[list[Word]]:
    """A line's words, cut after each run that closes a typed value (a word holding a cut inside,
    "Pemberton__Phone", split in two there)."""
    cuts = closing_cuts(" ".join(w.text for w in words))
    if not cuts:
        return [list(words)]
    groups: list[list[Word]] = [[]]
    start = 0
    for word in words:
        end = start + len(word.text)
        rest = word
        for cut in (c for c in cuts if start < c < end):
            piece, rest = _split(rest, cut - (end - len(rest.text)))
            groups[-1].append(piece)
            groups.append([])
        groups[-1].append(rest)
        if end in cuts:
            groups.append([])
        start = end + 1
    return [g for g in groups if g]


def _overlaps_row(a: Box, b: Box) -> bool:
    return min(a.y1, b.y1) - max(a.y0, b.y0) >= 0.4 * min(a.y1 - a.y0, b.y1 - b.y0)


def _on_rule(rule: Box, word: Word) -> bool:
    """Whether `word` stands over `rule`, on its row: its middle over the rule, or within half a
    line height of its ends (a value typed where the rule starts may begin a little before it)."""
    middle = (word.box.x0 + word.box.x1) / 2
    slack = (rule.y1 - rule.y0) / 2
    return rule.x0 - slack <= middle <= rule.x1 + slack and _overlaps_row(rule, word.box)


def laid_over(lines: Sequence[Line]) -> tuple[dict[int, list[Word]], set[int]]:
    """Values laid over the fill-in rules of other lines of one page: for each line with such a
    rule (by `id`), its words with each value set right after its rule (and the rule's rest glued
    to the value, so the value reads as closed); and the `id`s of the lines taken in so. A line
    is taken whole or not at all (an engine may read the values over two rules as one line)."""
    rules = [(host, w) for host in lines for w in host.words if RUN_RE.fullmatch(w.text)]
    over: dict[int, list[Word]] = {}
    taken: set[int] = set()
    for line in lines:
        if any(RUN_RE.search(w.text) for w in line.words):
            continue
        places = [
            next((id(r) for h, r in rules if h is not line and _on_rule(r.box, w)), None) for w in line.words
        ]
        if not line.words or None in places:
            continue
        taken.add(id(line))
        for word, place in zip(line.words, places, strict=True):
            over.setdefault(place or 0, []).append(word)
    filled: dict[int, list[Word]] = {}
    for host in lines:
        if not any(id(w) in over for w in host.words):
            continue
        words: list[Word] = []
        for word in host.words:
            words.append(word)
            if id(word) in over:
                *head, last = sorted(over[id(word)], key=lambda w: w.box.x0)
                words.extend([*head, Word(last.text + "__", last.box)])
        filled[id(host)] = words
    return filled, taken
