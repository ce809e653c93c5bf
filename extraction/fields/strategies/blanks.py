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
from extraction.fields.reading.text_lines import TextUnit, below, right_of, same_row
from extraction.fields.strategies.label_pairs import (
    COLON_RE,
    LABEL_THRESHOLD,
    is_other_label,
    labelled_elsewhere,
)

#: Longest label, in words, looked for before a colon inside a line.
MAX_LABEL_WORDS = 6
#: What a form prints where the answer goes: rules, dots and dashes (a rule is read as a colon,
#: `reading.fill_ins`) stand for nothing written.
_FILL_LINE_RE = re.compile(r"^[\s_.:\uff1a\-\u2013\u2014\u2026]*$")
_COLON_AT_RE = re.compile("[:\uff1a]")


def left_blank(ctx: FieldContext, name: str) -> bool:
    """Whether the page prints a label of the field, and nothing is written after or under any
    of its labels (a page may print one twice, for two people; one answered is no blank)."""
    spots = [
        _unanswered(rest, name) and _nothing_beside(ctx, unit, name, rest)
        for unit in ctx.units
        for rest in _label_spots(unit.text, name)
    ]
    return bool(spots) and all(spots)


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


def _written_over_row(ctx: FieldContext, unit: TextUnit, name: str) -> bool:
    """Whether something is written on the label's row apart from its line: text laid over it (a
    flattened form's typed answers are lines of their own) or a filled form field."""
    box = unit.box
    if box is None:
        return False
    for other in ctx.units:
        if other is unit or other.box is None or other.page != unit.page or not same_row(box, other.box):
            continue
        if min(box.x1, other.box.x1) > max(box.x0, other.box.x0) and not _labelish(other, name):
            return True
    return any(
        e.type == "form_field"
        and e.page == unit.page
        and e.box is not None
        and e.text.strip()
        and same_row(box, e.box)
        and e.box.x1 > box.x0
        for e in ctx.doc.elements
    )


def _nothing_beside(ctx: FieldContext, unit: TextUnit, name: str, rest: str) -> bool:
    """Whether no answer stands on the label's row (after it on its line, laid over it, right of
    it when the line ends with it) or under it."""
    if _written_over_row(ctx, unit, name):
        return False
    if not rest.strip():
        # The nearest thing right of it on its row, left to right: the next label, or its answer.
        beside = right_of(unit, ctx.units, ctx.skews.get(unit.page, 0.0))
        nearest = min(beside, key=lambda u: u.box.x0 if u.box else 0.0, default=None)
        if not _labelish(nearest, name):
            return False
    under = below(unit, ctx.units)
    return _labelish(under[0] if under else None, name)
