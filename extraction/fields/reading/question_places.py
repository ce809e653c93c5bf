"""Where a form prints a question asked as a field name: the runs of words most like it, and how
much each looks like a printed label there (at the start of its cell, before a colon), as
`fields.strategies.questions` reads answers by."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from extraction.fields.reading.answer_places import runs_of_lines
from extraction.fields.reading.ocr_reads import is_mark
from extraction.fields.reading.question_words import (
    EXACT_UP_TO_CHARS,
    MIN_SIMILARITY,
    TOKEN_RE,
    compact_words,
    same_case,
    similarity,
)
from extraction.fields.reading.text_lines import TextUnit

#: Placement (`_placement`) of a question that stands alone as a label.
FULL_PLACEMENT = 1.0
#: Placement of a question at the start of its cell, with no colon after it.
AT_START_PLACEMENT = 0.5
#: Placement of a question in capitals inside a line, neither at its start nor before a colon.
MID_LINE_PLACEMENT = 0.1
#: Words between a question and its colon that still belong to it ("INITIATED BY:" for
#: "INITIATED").
MAX_LABEL_TAIL_WORDS = 2

#: A question's own words up to its colon (`MAX_LABEL_TAIL_WORDS`), after its matched words.
LABEL_TAIL_RE = re.compile(
    rf"^\s*(?:[^\W\d_][\w.'/&()-]*\s+){{0,{MAX_LABEL_TAIL_WORDS - 1}}}[^\W\d_][\w.'/&()-]*\s?:"
)
#: An item number before a question: "(9)", "4.", "b)".
_ITEM_RE = re.compile(r"^\s*(?:\(?\d{1,2}\)|\d{1,2}\.|\(?[a-z]\))\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Occurrence:
    """Where a question is printed: its unit and the characters of it that are the question."""

    unit: TextUnit
    start: int
    end: int
    similarity: float
    #: How much it looks like a printed label here: at the start of its cell, before a colon.
    placement: float
    #: The marks the question ends with after its last word (`#` of "PROJECT #").
    trailing: str = ""
    #: The first line of a question printed over several ("RELEASED / TO ACCTG"): `unit` is
    #: its last.
    top: TextUnit | None = None


def occurrences(question: str, units: list[TextUnit]) -> list[Occurrence]:
    """Every place a run of words matches `question` at least `MIN_SIMILARITY`, best first."""
    wanted = len(TOKEN_RE.findall(question))
    if not wanted:
        return []
    last = list(TOKEN_RE.finditer(question))[-1]
    trailing = "".join(c for c in question[last.end() :] if not c.isspace())
    found: list[Occurrence] = []
    for unit in units:
        best = _best_in(question, trailing, unit, unit.text, 0)
        if best is None and wanted > 1:
            # A question printed over two lines ("Quantity, Cartons / of 200 each"), or three
            # ("NUMBER OF / SAMPLING / PERSONNEL:"): matched across them, it ends, and its
            # answer is looked for, on the last.
            best = next(
                (
                    replace(o, top=lines[0])
                    for lines, text in runs_of_lines(unit, units, wanted)
                    if (o := _best_in(question, trailing, lines[-1], text, len(text) - len(lines[-1].text)))
                    is not None
                ),
                None,
            )
        if best is not None:
            found.append(best)
    # The question printed whole comes first: "Division" alone, placed as a label, is like
    # "Division Mgr" only as far as OCR slips go, and the form prints "Division Mgr" elsewhere.
    # Between places alike, the one printed in the question's own case: a caller copies the
    # question from the form ("LORILLARD" of "LORILLARD NO", not of "Lorillard - Organic").
    return sorted(
        found,
        key=lambda o: (
            o.similarity < 1.0,
            -(o.similarity + o.placement),
            not same_case(question, o.unit.text[o.start : o.end]),
            o.unit.order,
        ),
    )


def _best_in(question: str, trailing: str, unit: TextUnit, text: str, shift: int) -> Occurrence | None:
    """The run of words of `text` most like `question`, as characters of `unit` (whose text
    starts at `shift` in `text`; a run that starts before it, on the line above, starts at 0)."""
    tokens = list(TOKEN_RE.finditer(text))
    # Runs of words are taken by their letters and digits, not by their count: OCR splits a word
    # at a misread letter ("L0g" is three runs) or glues two.
    size = len(compact_words(question))
    longest = size * (2 / MIN_SIMILARITY - 1) + 1  # + a colon read as a letter
    best: Occurrence | None = None
    for i in range(len(tokens)):
        chars = 0
        for n in range(1, len(tokens) - i + 1):
            chars += len(tokens[i + n - 1].group())
            if chars > longest:
                break
            start, end = tokens[i].start(), tokens[i + n - 1].end()
            if end <= shift or (shift and start >= shift):
                # Two lines count only for a question that runs from the one into the other.
                continue
            score = similarity(question, text[start:end])
            if score < MIN_SIMILARITY:
                continue
            place = _placement(text, start, end, trailing)
            if best is None or (score, place) > (best.similarity, best.placement):
                best = Occurrence(unit, max(start - shift, 0), end - shift, score, place, trailing)
    return best


def _placement(text: str, start: int, end: int, trailing: str = "") -> float:
    """0..1: a question at the start of its cell, after its item number at most (0.5), and
    followed by a colon or nothing (0.5; 0.4 when words of its own come first, "INITIATED BY:"
    for "INITIATED"). `trailing`: the question's own marks after its last word (`"` of
    `"TAR"`), which come before its colon. Neither: `MID_LINE_PLACEMENT` for a question in
    capitals followed by a space or a mark, else 0."""
    before = text[:start]
    at_start = not TOKEN_RE.search(before) or is_mark(before) or bool(_ITEM_RE.match(before))
    after = text[end:].lstrip(" .?)#" + trailing)
    # The question's own closing mark printed after it ("NO." of "... NO. V82-2") ends it as a
    # colon would.
    own_mark = bool(trailing) and text[end:].lstrip().startswith(trailing)
    closed = (
        0.5 if not after or after.startswith(":") or own_mark else 0.4 * bool(LABEL_TAIL_RE.match(text[end:]))
    )
    printed = text[start:end]
    # A label in capitals inside a row of them ("DATE ISSUED ... PROJECT SHEET NO. 4").
    capitals = (
        printed.isupper()
        and len(compact_words(printed)) > EXACT_UP_TO_CHARS
        and text[end : end + 1] in " .:#"
    )
    return 0.5 * at_start + closed or MID_LINE_PLACEMENT * capitals


def inside_other(occurrence: Occurrence, others: dict[str, list[Occurrence]]) -> bool:
    """Whether the words are part of another asked question printed there ("Sample" in "Sample
    Description"), or are another asked question printed more alike ("TELEX" read for the
    question "TELEFAX"): that question owns them."""
    for found in others.values():
        for other in found:
            if (
                other.unit is occurrence.unit
                and other.start <= occurrence.start
                and occurrence.end <= other.end
                and (
                    (other.end - other.start) > (occurrence.end - occurrence.start)
                    or other.similarity > occurrence.similarity
                )
            ):
                return True
    return False
