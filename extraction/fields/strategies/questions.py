"""Answers to a form's own printed questions, for field names that are the question's text.

A caller of an old scanned form asks for "REQUEST NO.", "Date Rec'd" or "Nature of work": words
printed on the page, not a concept the vocabulary knows. The question is found by its words
(fuzzily, as OCR damages them: "R6D COMMENTS" for "R & D COMMENTS"), and its answer is what
follows it on its line, else the next cell right of it on its row, else the line under it;
an answer runs on over the lines set under its first one, and ends at the next printed question
(a word ending in a colon, or another asked field's question). A question followed by nothing but
the next question is unanswered: None. A mark (`X`, a crossed box) right after the question, or
just before it, ticks its box: True. How sure an answer is comes from how it was found, how well
the question matched, and its length: OCR reads a long answer whole less often.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from extraction.fields.reading.answer_places import (
    CONTINUE_MAX_GAP_HEIGHTS,
    CONTINUE_MIN_STEP_HEIGHTS,
    cells_right,
    has_left_neighbour,
    has_right_neighbour,
    in_header_row,
    is_scrawl,
    is_upright,
    looks_printed,
    next_header,
    skips_line,
    under_past_scrawl,
    under_question,
)
from extraction.fields.reading.normalize import is_label
from extraction.fields.reading.ocr_reads import is_mark
from extraction.fields.reading.question_places import (
    AT_START_PLACEMENT,
    FULL_PLACEMENT,
    LABEL_TAIL_RE,
    Occurrence,
    inside_other,
    occurrences,
)
from extraction.fields.reading.question_words import (
    TOKEN_RE,
    compact_words,
    known_label_with_value,
    number_after,
)
from extraction.fields.reading.text_lines import TextUnit

#: Prior of each way of finding the answer: how often such an answer is right on old scans.
PRIORS: dict[str, float] = {"question_inline": 0.8, "question_right": 0.82, "question_below": 0.5}
#: Letters and digits of an answer read at the strategy's prior; each one more must be read right
#: too, which OCR of these old scans does this often.
FREE_CHARS = 8
CHAR_RIGHT = 0.985
#: An answer of more letters and digits than this is a long one, told apart in its evidence.
LONG_ANSWER_CHARS = 20
#: ... and its left edge at most this many line heights from the answer's left edge.
CONTINUE_MAX_SHIFT_HEIGHTS = 2.5
#: Longest answer, in lines.
MAX_ANSWER_LINES = 6

#: A printed label inside a line: a word of letters that ends in a colon (not a time, "10:30").
_LABEL_RE = re.compile(r"(?:^|\s)[^\W\d_][\w.'#/&()-]*\s?:(?!\S)")
#: A plural mark glued to a question's last word: "Name(s)", "Box(es)".
_PLURAL_RE = re.compile(r"\((?:s|es)\)", re.IGNORECASE)
#: A printed label that asks for a number or for several: "LOT NO.", "Account #", "DATE(s)", a
#: "NO." alone.
_NUMBER_LABEL_RE = re.compile(r"(?:^|[^\W\d_])\s*(?:\bno\.)?\s*(?:\bno\.|#|\((?:s|es)\))\s*$", re.IGNORECASE)
_LEADING_RE = re.compile(r"^[\s:;.,_]+")
_BLANK_RE = re.compile(r"^[\s_.:\-]*$")
#: The word of a label that asks for a number, printed in capitals alone after the question
#: ("#" alone is no value anyway; a typed "no" is an answer).
_NUMBER_WORD_RE = re.compile(r"\s*(?:NO\.?|No\.)\s*:?\s*")
#: A short label that ends with the word asking for a name: "Approved by", "Copies to".
_OPEN_LABEL_RE = re.compile(r"^\s*(?:[^\W\d_]+\s+){1,3}(?:by|to)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Answer:
    """A question's answer: its value (text, True for a ticked box, None when unanswered)."""

    value: str | bool | None
    units: list[TextUnit]
    strategy: str
    #: The prior of the strategy times how well the question was matched.
    score: float
    raw: str


def answer(
    question: str,
    units: list[TextUnit],
    others: list[str],
    skew: float = 0.0,
    *,
    strict: bool = False,
    seen: dict[str, list[Occurrence]] | None = None,
) -> Answer | None:
    """The answer to `question` (a caller's field name) on the page; None where it is not printed.

    `others` are the other questions asked of the same document: printed, they end an answer.
    `strict`: only where the question stands alone as a label, at the start of its cell and ended
    by a colon or by nothing ("Total" of "Total Qty: 4" is not the question "Total"). `seen`
    keeps the places of each question found on these `units`, for the next question asked.
    """
    seen = {} if seen is None else seen
    for name in {question, *others}:
        if name not in seen:
            seen[name] = occurrences(name, units)
    other_found = {o: seen[o] for o in others if o != question}
    least = FULL_PLACEMENT if strict else 0.0
    placed = [
        o
        for o in seen[question]
        if (o.placement > least - 1e-9 or _number_follows(o))
        and o.placement > 0
        and not inside_other(o, other_found)
    ]
    if not placed:
        return None
    # Each other question ends an answer where it is printed: at its best place (a form prints a
    # question once; its words elsewhere are text).
    stops: dict[int, list[int]] = {}
    for found in other_found.values():
        best = next((o for o in found if o.placement > 0), None)
        if best is not None:
            stops.setdefault(id(best.unit), []).append(best.start)
    first = _answer_at(placed[0], units, stops, skew)
    if first.value is not None:
        return first
    glued = _next_question(placed[0], other_found)
    if glued is not None:
        # "ANALYTICAL REQUIREMENTS:" asked as both words: one label, answered once, for both.
        joint = _answer_at(glued, units, stops, skew)
        if joint.value is not None:
            return joint
    # Left unanswered where it is printed best (a list of copies' names at the foot of the
    # page), the question may be answered where it is printed again.
    return next(
        (a for a in (_answer_at(o, units, stops, skew) for o in placed[1:]) if a.value is not None),
        first,
    )


def _number_follows(where: Occurrence) -> bool:
    """Whether the question starts its cell and a number or a date follows it ("Telephone
    (0 30) 555-2", "DATEJune 3, 1990"): a label with its value, though no colon ends it;
    more words after it would make it part of a longer label ("Total Qty: 4")."""
    return where.placement >= AT_START_PLACEMENT and number_after(where.unit.text, where.end)


def _next_question(where: Occurrence, others: dict[str, list[Occurrence]]) -> Occurrence | None:
    """Another asked question printed (at its best place) right after this one, nothing between."""
    for found in others.values():
        best = next((o for o in found if o.placement > 0), None)
        if (
            best is not None
            and best.unit is where.unit
            and best.start >= where.end
            and not where.unit.text[where.end : best.start].strip()
        ):
            return best
    return None


def _stop(unit: TextUnit, stops: dict[int, list[int]], after: int = 0) -> int:
    """Where the first other question printed in `unit` at or after `after` starts."""
    return min((s for s in stops.get(id(unit), []) if s >= after), default=len(unit.text))


def _answer_at(where: Occurrence, units: list[TextUnit], stops: dict[int, list[int]], skew: float) -> Answer:
    unit, match = where.unit, where.similarity
    before = unit.text[: where.start].split()
    if not before and where.top is not None:
        # A question printed over two lines, "JAN 23, X / 1995": its box ticked where it breaks.
        before = where.top.text.split()[-1:]
    if before and is_mark(before[-1]):
        # "X OTHER", "This Project is X Proposed": the box ticked just before the question.
        return Answer(True, [unit], "question_inline", PRIORS["question_inline"] * match, before[-1])
    end = where.end
    plural = _PLURAL_RE.match(unit.text, end)
    if plural:
        # "Brand(s)" asked as "Brand": the plural mark is the question's.
        end = plural.end()
    # The question's own marks after its last word ("PROJECT #", "Requested By:") are no answer.
    while end < len(unit.text) and (unit.text[end] in where.trailing or unit.text[end] in " :"):
        end += 1
    # Words up to a colon still belong to a question that has none of its own ("INITIATED BY:").
    tail = None if ":" in unit.text[where.end : end] else LABEL_TAIL_RE.match(unit.text[end:])
    offset = end + (tail.end() if tail else 0)
    text = _up_to_label(unit.text[offset:], _stop(unit, stops, where.end) - offset)
    if _NUMBER_WORD_RE.fullmatch(text):
        # "LORILLARD NO" asked as "LORILLARD": the word asking for the number ends the label.
        text = ""
    if not _BLANK_RE.match(text):
        leading = _LEADING_RE.match(text)
        lead = leading.end() if leading else 0
        return _finished(unit, text[lead:], offset + lead, units, stops, "question_inline", match, unit)
    for strategy, neighbours in (
        ("question_right", _beside(cells_right(unit, units, skew), stops)),
        ("question_below", under_past_scrawl(unit, units)),
    ):
        for neighbour in neighbours:
            if (
                _is_question(neighbour, stops)
                or (strategy == "question_right" and next_header(where.top, neighbour, units))
                or is_upright(neighbour)
                or compact_words(neighbour.text) == compact_words(unit.text)
                or (strategy == "question_right" and in_header_row(unit, neighbour, units))
            ):
                # The question's own words again are the next column's header ("(Mg/Cigt)").
                continue
            value = _up_to_label(neighbour.text, _stop(neighbour, stops))
            if _BLANK_RE.match(value):
                continue
            return _finished(neighbour, value.strip(), 0, units, stops, strategy, match, unit)
    return Answer(None, [unit], "question_unanswered", match, "")


def _finished(
    first: TextUnit,
    text: str,
    at: int,
    units: list[TextUnit],
    stops: dict[int, list[int]],
    strategy: str,
    match: float,
    question: TextUnit,
) -> Answer:
    """The answer that starts with `text` (at character `at` of `first`), run on over the lines
    under it; a lone mark is True. `question`: the unit the question is printed in."""
    score = PRIORS[strategy] * match
    words = text.split()
    if words and (is_mark(words[0]) or is_mark("".join(text.lstrip(" :").split()))):
        # A mark right after a question ("MALE x FEMALE") ticks it, whatever option follows; so
        # does one read with its box's sides apart ("( x)").
        return Answer(True, [first], strategy, score, words[0])
    parts, taken = [text.strip()], [first]
    left = _left_edge(first, at)
    last = first
    for _ in range(MAX_ANSWER_LINES - 1):
        right = max((u.box.x1 for u in taken if u.box is not None), default=left)
        following = _continuation(last, left, right, units, stops, question, apart=first is not question)
        if following is None:
            break
        parts.append(following.text.strip())
        taken.append(following)
        last = following
    raw = " ".join(p for p in parts if p)
    if sum(c.isalnum() for c in raw) > LONG_ANSWER_CHARS:
        # Evidence of its own (`calibration.evidence_key`): a long answer is rarely read whole.
        strategy += "_long"
    return Answer(raw.strip(), taken, strategy, score * length_share(raw), raw)


def length_share(text: str) -> float:
    """How often OCR reads a text of this length without a slip, relative to a short one: every
    letter and digit past the first `FREE_CHARS` must be right too."""
    chars = sum(c.isalnum() for c in text)
    return float(CHAR_RIGHT ** max(chars - FREE_CHARS, 0))


def _left_edge(unit: TextUnit, at: int) -> float:
    """Where character `at` of the unit's text stands, by its share of the text's width."""
    box = unit.box
    if box is None:
        return 0.0
    return box.x0 + (box.x1 - box.x0) * at / max(len(unit.text), 1)


def _continuation(
    last: TextUnit,
    left: float,
    right: float,
    units: list[TextUnit],
    stops: dict[int, list[int]],
    question: TextUnit,
    *,
    apart: bool,
) -> TextUnit | None:
    """The line an answer runs on to: just under its last line, starting near its left edge, and
    no question of its own; not a row of cells across the answer's width (a table's header under
    a one-line answer). `right`: the answer's right edge so far. The answer's own `question`
    beside a line set low is no other row's question. `apart`: the answer starts in a cell of
    its own, not on its question's line."""
    box = last.box
    if box is None:
        return None
    height = max(box.y1 - box.y0, 1e-6)
    middle = (box.y0 + box.y1) / 2
    below = [
        u
        for u in units
        if u.box is not None
        and u.page == last.page
        and u is not last
        # By the middles: OCR pads a line's box, so the boxes of lines set close overlap.
        and (u.box.y0 + u.box.y1) / 2 >= middle + CONTINUE_MIN_STEP_HEIGHTS * height
        and u.box.y0 <= box.y1 + CONTINUE_MAX_GAP_HEIGHTS * height
        and abs(u.box.x0 - left) <= CONTINUE_MAX_SHIFT_HEIGHTS * height
    ]
    if not below:
        return None
    nearest = min(below, key=lambda u: (u.box.y0 if u.box else 0.0, abs((u.box.x0 if u.box else 0.0) - left)))
    if (
        skips_line(last, nearest, left, right, units)
        or _is_question(nearest, stops)
        or _LABEL_RE.search(nearest.text)
        or is_scrawl(nearest)
        or has_left_neighbour(nearest, [u for u in units if u is not question])
        or has_right_neighbour(nearest, units, right)
        or (under_question(nearest, left, height, question) and (apart or looks_printed(nearest.text)))
    ):
        return None
    return nearest


def _beside(row: list[TextUnit], stops: dict[int, list[int]]) -> list[TextUnit]:
    """The answer cell of a row (`_right`'s order): the first, unless it is the next question and
    an answer set higher stands before it."""
    if not row or not _is_question(row[0], stops):
        return row[:1]
    first = row[0].box
    nearer = [
        u
        for u in row[1:]
        if u.box is not None and first is not None and u.box.x1 <= first.x0 and not _is_question(u, stops)
    ]
    return sorted(nearer, key=lambda u: u.box.x0 if u.box else 0.0)[:1] or row[:1]


def _is_question(unit: TextUnit, stops: dict[int, list[int]]) -> bool:
    """Whether `unit` starts with a printed question: another asked one, or `Words:`; or is
    one that asks for a number or several ("LOT NO.", "Account #", "RECEIPT DATE(s)"), which no
    answer ends with; or a known label alone."""
    if any(not TOKEN_RE.search(unit.text[:start]) for start in stops.get(id(unit), [])):
        return True
    label = _LABEL_RE.match(unit.text)
    if label is not None or _NUMBER_LABEL_RE.search(unit.text) is not None:
        return True
    if _OPEN_LABEL_RE.match(unit.text):
        # "Approved by", "Copies to": a label waiting for its name, which no answer ends with.
        return True
    # A known label alone ("DATE" of the next column) is printed, not written in; so is one in
    # capitals before a number or a date ("DATE 10/22/98"), a label with its value.
    return known_label_with_value(unit.text) or is_label(unit.text.strip(" .:"))


def _up_to_label(text: str, stop: int) -> str:
    """`text` up to `stop` (where another asked question starts) and up to the next `Label:`."""
    text = text[: max(stop, 0)]
    label = _LABEL_RE.search(text)
    if label is not None and label.start() > 0:
        return text[: label.start()]
    return text if label is None else ""
