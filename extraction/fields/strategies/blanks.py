"""A field left blank: its label is printed and nothing is written after or under it.

Read only for a field the strategies found no value of (`extract.extract_fields`), so it never
changes a value; it tells a reviewer "left blank" ("Group Number:" and nothing) from "not on the
page" (no label of the field at all). It is strict on purpose: anything written beside or under
the label that is not itself another label means the field is not called blank, only not found.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from extraction.fields.model.context import FieldContext
from extraction.fields.reading.normalize import (
    SYNONYM_SCORE,
    caption_core,
    is_label_like,
    match_label,
)
from extraction.fields.reading.text_lines import TextUnit, below, right_of
from extraction.fields.strategies.label_pairs import (
    COLON_RE,
    LABEL_THRESHOLD,
    is_other_label,
    labelled_elsewhere,
)

#: Longest label, in words, looked for before a colon inside a line.
MAX_LABEL_WORDS = 6
#: What a form prints where the answer goes: rules, dots and dashes stand for nothing written.
_FILL_LINE_RE = re.compile(r"^[\s_.\-\u2013\u2014\u2026]*$")
_COLON_AT_RE = re.compile("[:\uff1a]")


def left_blank(ctx: FieldContext, name: str) -> bool:
    """Whether a label of the field is printed on the page with no answer after or under it."""
    for unit in ctx.units:
        for rest in _label_spots(unit.text, name):
            if _unanswered(rest, name) and _nothing_beside(ctx, unit, name, rest):
                return True
    return False


def _label_spots(text: str, name: str) -> Iterator[str]:
    """What follows each place `text` prints a label of the field: after a label ending at a colon
    (the last words before it), or nothing when the whole line is the label."""
    bare = COLON_RE.sub(" ", text).strip()
    core = caption_core(bare)
    score = match_label(name, core) if core else 0.0
    if score >= LABEL_THRESHOLD and (
        score >= SYNONYM_SCORE or text.rstrip().endswith((":", "\uff1a")) or is_label_like(core)
    ):
        yield ""
    for colon in _COLON_AT_RE.finditer(text):
        words = text[: colon.start()].split()
        for n in range(min(MAX_LABEL_WORDS, len(words)), 0, -1):
            # Inside a line only a clear label counts: a fuzzy one there is often some other text.
            if match_label(name, " ".join(words[-n:])) >= SYNONYM_SCORE:
                yield text[colon.end() :]
                break


def _unanswered(rest: str, name: str) -> bool:
    """Whether what follows a label on its line holds no answer: nothing, a fill-in rule, or the
    next label ("Group Number: Plan: Gold")."""
    if _FILL_LINE_RE.match(rest):
        return True
    head = _COLON_AT_RE.split(rest, maxsplit=1)[0].strip()
    return is_label_like(head) or is_other_label(rest.strip()) or labelled_elsewhere(rest.strip(), name)


def _labelish(unit: TextUnit | None, name: str) -> bool:
    """Whether a neighbour of the label is no answer to it: none, a rule, or another label."""
    if unit is None:
        return True
    text = unit.text.strip()
    return (
        bool(_FILL_LINE_RE.match(text))
        or is_other_label(text)
        or is_label_like(text)
        or labelled_elsewhere(text, name)
        or match_label(name, COLON_RE.sub(" ", text).strip()) >= LABEL_THRESHOLD
    )


def _nothing_beside(ctx: FieldContext, unit: TextUnit, name: str, rest: str) -> bool:
    """Whether no answer stands right of the label (when the line ends with it) or under it."""
    if not rest.strip():
        beside = right_of(unit, ctx.units, ctx.skews.get(unit.page, 0.0))
        if not _labelish(beside[0] if beside else None, name):
            return False
    under = below(unit, ctx.units)
    return _labelish(under[0] if under else None, name)
