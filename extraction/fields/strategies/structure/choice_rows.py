"""A choice whose options stand apart from its label: "Sex: ☐", "Male", "X Female".

A text layer gives each box with an X typed in it, and each option word, where they are printed:
the label's cell holds an empty box or nothing, and the options follow as cells of their own on
the same row. The options' text, read together up to the next label, says which one is marked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from extraction.fields.model.candidate import Candidate
from extraction.fields.reading.choices import BOX_MARKS
from extraction.fields.reading.normalize import SYNONYM_SCORE, match_label
from extraction.fields.reading.text_lines import TextUnit, same_row
from extraction.fields.strategies.label_pairs import COLON_RE, LABEL_THRESHOLD, PRIORS


def row_after(unit: TextUnit, units: list[TextUnit]) -> list[TextUnit]:
    """The cells right of `unit` on its row, left to right, up to the next one holding a label."""
    if unit.box is None:
        return []
    box = unit.box
    right = sorted(
        (
            u
            for u in units
            if u is not unit
            and u.page == unit.page
            and u.box is not None
            and u.box.x0 >= box.x1 - 1
            and same_row(box, u.box)
        ),
        key=lambda u: u.box.x0 if u.box else 0.0,
    )
    row: list[TextUnit] = []
    for u in right:
        if COLON_RE.search(u.text):
            break
        row.append(u)
    return row


def choice_candidates(units: list[TextUnit], name: str) -> Iterator[Candidate]:
    """The options of a choice a label of the field heads: in the cells after the label, after a
    one-word label inside another caption's cell, then on the row under a caption."""
    yield from choice_row_candidates(units, name)
    yield from inline_choice_candidates(units, name)
    yield from options_under_candidates(units, name)


def choice_row_candidates(units: list[TextUnit], name: str) -> Iterator[Candidate]:
    """The options after each label of the field whose own cell holds no option word: what the
    label's cell holds after it (an empty box) and the cells after it, as one value. A label
    without a colon ("Gender" before "☐ Male ☒ Female") counts when boxes follow it."""
    for unit in units:
        head, colon, rest = unit.text.partition(":")
        if any(c.isalpha() for c in rest):
            continue
        score = match_label(name, head)
        if score < LABEL_THRESHOLD or (not colon and score < SYNONYM_SCORE):
            continue
        row = row_after(unit, units)
        if not row or (not colon and not any(_BOX_RE.search(u.text) for u in row)):
            # Without a colon only a row of boxes says the cells after the label are its options.
            continue
        value = " ".join([rest.strip(), *(u.text for u in row)]).strip()
        strategy = "label_colon" if colon else "label_right"
        yield Candidate.of(value, PRIORS[strategy] * score, [unit, *row], value, strategy, head)


def inline_choice_candidates(units: list[TextUnit], name: str) -> Iterator[Candidate]:
    """The options after a one-word label of the field inside a cell that starts with another
    caption ("BIRTH DATE MM DD YY SEX 08 20 1960 ☐ M ☒ F"): the text after that word."""
    for unit in units:
        words = unit.text.split()
        for i, word in enumerate(words[1:-1], 1):
            if match_label(name, word.strip(":")) < SYNONYM_SCORE:
                continue
            rest = " ".join(words[i + 1 :])
            yield Candidate.of(rest, PRIORS["label_inline"], [unit], rest, "label_inline", word)
            break


#: How far from a choice's caption, in the caption's heights, its options may stand on the row
#: under it: a claim form prints "SEX" at the end of its cell's caption, the boxes under the
#: caption's start.
MAX_OPTION_REACH_HEIGHTS = 4.0
_BOX_RE = re.compile(f"[{BOX_MARKS}]")


def options_under_candidates(units: list[TextUnit], name: str) -> Iterator[Candidate]:
    """The options on the row under a caption of the field that holds nothing else ("SEX" over
    "☒ M ☐ F" set a little to its left): the boxed units near it, read together."""
    for unit in units:
        box = unit.box
        if box is None or match_label(name, unit.text) < SYNONYM_SCORE:
            continue
        height = box.y1 - box.y0
        reach = MAX_OPTION_REACH_HEIGHTS * height
        options = sorted(
            (
                u for u in units
                if u.page == unit.page and u.box is not None and _BOX_RE.search(u.text)
                and box.y1 - 0.3 * height <= u.box.y0 <= box.y1 + height
                and u.box.x1 >= box.x0 - reach and u.box.x0 <= box.x1 + reach
            ),
            key=lambda u: u.box.x0 if u.box else 0.0,
        )  # fmt: skip
        if options:
            value = " ".join(u.text for u in options)
            yield Candidate.of(
                value, PRIORS["label_below"] * SYNONYM_SCORE, options, value, "label_below", unit.text
            )
