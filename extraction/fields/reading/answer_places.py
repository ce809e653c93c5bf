"""Where a printed question's answer may stand on a scanned page: the geometry of text units
that `fields.strategies.questions` reads answers by (cells right of a question, lines under it, rows an
answer runs on past), apart from what the words say."""

from __future__ import annotations

from extraction.fields.reading.text_lines import TextUnit, same_row
from extraction.formats.document import Box

#: An answer under its question starts at most this many question heights under it ...
BELOW_MAX_GAP_HEIGHTS = 2.2
#: ... and at most this many question heights right of its end (an answer indented under it).
UNDER_INDENT_HEIGHTS = 3.0
#: The next line of a running answer starts at most this many line heights under the last.
CONTINUE_MAX_GAP_HEIGHTS = 0.8
#: The next line of a running answer has its middle at least this many line heights under the
#: last one's.
CONTINUE_MIN_STEP_HEIGHTS = 0.4
#: OCR pads boxes: text left of a line may end this many line heights past the line's start.
LEFT_OVERLAP_HEIGHTS = 0.5
#: A unit of at least this many characters whose box is this many times taller than wide is
#: text set upright (`is_upright`).
UPRIGHT_MIN_CHARS = 3
UPRIGHT_RATIO = 1.5
#: A cell right of a question starting within `NEAR_RIGHT_HEIGHTS` question heights of its end
#: comes before one more level with it starting past `FAR_RIGHT_HEIGHTS`.
NEAR_RIGHT_HEIGHTS = 3.0
#: A cell right of a question ends at least this many question heights past the question's end
#: (OCR pads the question's box over the start of a short answer typed close to it: "II").
PAST_END_HEIGHTS = 0.5
FAR_RIGHT_HEIGHTS = 6.0
#: An answer typed under its question's row starts at most this many question heights under it.
LOW_ANSWER_GAP_HEIGHTS = 1.0
#: OCR's confidence under which one word alone is a scrawl (a signature, initials), no answer
#: and no line of one.
SCRAWL_CONFIDENCE = 0.7
#: Other printed cells (`looks_printed`) that make a question's row a row of headers.
HEADER_ROW_MIN_OTHERS = 2
#: Scrawls looked past, one under the other.
MAX_SCRAWLS = 2


def is_upright(unit: TextUnit) -> bool:
    """Whether a unit's text runs up the page (a box much taller than wide, of a few characters
    or more): a number printed along the margin, no answer of the questions set across it."""
    box = unit.box
    return (
        box is not None
        and len(unit.text.strip()) >= UPRIGHT_MIN_CHARS
        and box.y1 - box.y0 > UPRIGHT_RATIO * (box.x1 - box.x0)
    )


def skips_line(last: TextUnit, nearest: TextUnit, left: float, right: float, units: list[TextUnit]) -> bool:
    """Whether a line set between an answer's last line and `nearest` runs across the answer's
    width: the next question's row ("Place: ..." under "Time: 9:30"), which an answer does not
    run on past even where it starts too far left to be a line of it."""
    a, b = last.box, nearest.box
    assert a is not None and b is not None
    height = max(a.y1 - a.y0, 1e-6)
    top = (a.y0 + a.y1) / 2 + CONTINUE_MIN_STEP_HEIGHTS * height
    bottom = (b.y0 + b.y1) / 2 - CONTINUE_MIN_STEP_HEIGHTS * height
    return any(
        u.box is not None
        and u is not last
        and u is not nearest
        and u.page == last.page
        and top < (u.box.y0 + u.box.y1) / 2 < bottom
        and min(u.box.x1, right) > max(u.box.x0, left)
        for u in units
    )


def has_left_neighbour(unit: TextUnit, units: list[TextUnit]) -> bool:
    """Whether text stands left of `unit` on its row (or a little lower, the question of an
    answer set high, or a little higher, of one set low): the next row's question, whose answer
    `unit` is, not a line of the answer above."""
    box = unit.box
    assert box is not None
    return any(
        u.box is not None
        and u is not unit
        and u.page == unit.page
        and u.box.x1 <= box.x0 + LEFT_OVERLAP_HEIGHTS * (box.y1 - box.y0)
        and u.box.x0 < box.x0
        and (on_row(u.box, box, 0.0) or on_row(box, u.box, 0.0))
        for u in units
    )


def has_right_neighbour(unit: TextUnit, units: list[TextUnit], right: float) -> bool:
    """Whether another cell starts right of `unit` on its row, before `right`: the row is split
    into cells under the answer (a table's header row), where a running answer's next line is
    one."""
    box = unit.box
    assert box is not None
    return any(
        u.box is not None
        and u is not unit
        and u.page == unit.page
        and box.x1 <= u.box.x0 < right
        and same_row(box, u.box)
        for u in units
    )


def cells_right(unit: TextUnit, units: list[TextUnit], skew: float) -> list[TextUnit]:
    """Cells right of `unit` on its row, nearest first among those within half a line of level:
    a scan's next question may sit more level with this one than its own answer does."""
    box = unit.box
    if box is None:
        return []
    height = max(box.y1 - box.y0, 1e-6)
    middle_x, middle_y = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2

    def key(u: TextUnit) -> tuple[int, float]:
        assert u.box is not None
        x, y = (u.box.x0 + u.box.x1) / 2, (u.box.y0 + u.box.y1) / 2
        return round(abs(y - middle_y - skew * (x - middle_x)) / height * 2), u.box.x0

    # A typed answer may start over the end of its question's box (`right_of` allows a character).
    found = [
        u
        for u in units
        if u is not unit
        and u.box is not None
        and u.page == unit.page
        and u.box.x0 >= (box.x0 + box.x1) / 2
        and u.box.x1 > box.x1 + PAST_END_HEIGHTS * height
        and on_row(box, u.box, skew * ((u.box.x0 + u.box.x1) / 2 - middle_x), low=True)
    ]
    ranked = sorted(found, key=key)
    near = [u for u in ranked if u.box is not None and u.box.x0 - box.x1 <= NEAR_RIGHT_HEIGHTS * height]
    if (
        ranked
        and near
        and ranked[0].box is not None
        and ranked[0].box.x0 - box.x1 > FAR_RIGHT_HEIGHTS * height
    ):
        # An answer set off its question's row by half a line, just after it, is nearer than
        # the far cell more level with the question (the next column's header).
        return [near[0], *(u for u in ranked if u is not near[0])]
    if ranked and ranked[0].box is not None and ranked[0].box.x0 - box.x1 > FAR_RIGHT_HEIGHTS * height:
        # Nor is the far cell the answer of a question whose answer is typed just under its
        # row, starting where the question ends ("Copies to:" over "Factory Cost Dept.").
        low = [
            u
            for u in units
            if u is not unit
            and u.box is not None
            and u.page == unit.page
            and abs(u.box.x0 - box.x1) <= height
            and box.y1 - 0.5 * height <= u.box.y0 <= box.y1 + LOW_ANSWER_GAP_HEIGHTS * height
        ]
        if len(low) == 1:
            return [low[0], *ranked]
    return ranked


def on_row(question: Box, other: Box, shift: float, *, low: bool = False) -> bool:
    """Whether `other` (moved down by `shift`, the page's slant) is on the question's row. A
    typed answer sits on the rule the question stands by, often higher than the question's own
    text: one raised by up to a whole line counts. `low`: so does one that starts above the
    question's foot (typed under the rule of a question printed high in its box)."""
    if same_row(question, other, shift):
        return True
    top, bottom = other.y0 - shift, other.y1 - shift
    if low and question.y0 < top < question.y1:
        return True
    # A typewriter's line may sit a whole line high: its foot on the question's top.
    return top < question.y0 and bottom >= question.y0


def lines_under(unit: TextUnit, units: list[TextUnit]) -> list[TextUnit]:
    """Units under `unit` that overlap it horizontally or start a little right of its end (an
    answer indented under its question, a column's entry under its header): by rows, then by
    how far each starts from the question."""
    box = unit.box
    if box is None:
        return []
    height = max(box.y1 - box.y0, 1e-6)
    found = [
        u
        for u in units
        if u.box is not None
        and u.page == unit.page
        and u is not unit
        and box.y0 + 0.5 * height < u.box.y0 <= box.y1 + BELOW_MAX_GAP_HEIGHTS * height
        and min(box.x1 + UNDER_INDENT_HEIGHTS * height, u.box.x1) > max(box.x0, u.box.x0) - height
    ]

    def key(u: TextUnit) -> tuple[int, float]:
        assert u.box is not None
        # By rows, then by how far the line starts from the question's span.
        return round((u.box.y0 - box.y1) / height), max(u.box.x0 - box.x1, box.x0 - u.box.x1, 0.0)

    return sorted(found, key=key)


def runs_of_lines(unit: TextUnit, units: list[TextUnit], wanted: int) -> list[tuple[list[TextUnit], str]]:
    """`unit` with the line under it, then (for a question of three words or more) with the
    two under it, and their texts joined."""
    runs: list[tuple[list[TextUnit], str]] = []
    for second in next_lines(unit, units):
        runs.append(([unit, second], f"{unit.text} {second.text}"))
    if wanted > 2:
        runs += [
            ([*lines, third], f"{text} {third.text}")
            for lines, text in list(runs)
            for third in next_lines(lines[-1], units)
        ]
    return runs


def next_lines(unit: TextUnit, units: list[TextUnit]) -> list[TextUnit]:
    """Lines just under `unit` that start under its start or are centred under it (a
    question printed in two centred lines): where its text may run on."""
    box = unit.box
    if box is None:
        return []
    height = max(box.y1 - box.y0, 1e-6)
    return [
        u
        for u in units
        if u.box is not None
        and u.page == unit.page
        and u is not unit
        and box.y0 + 0.5 * height < u.box.y0 <= box.y1 + CONTINUE_MAX_GAP_HEIGHTS * height
        and (
            abs(u.box.x0 - box.x0) <= height
            or abs((u.box.x0 + u.box.x1) / 2 - (box.x0 + box.x1) / 2) <= height
        )
    ]


def next_header(top: TextUnit | None, cell: TextUnit, units: list[TextUnit]) -> bool:
    """Whether `cell`, right of a question printed over several lines (`top` its first), is the
    last line of another text that starts level with the question's first: the next column's
    header in a row of headers ("RELEASED / TO ACCTG", "PAID OUT OF / 1988 BUDGET"), whose
    answers stand under them."""
    if top is None or top.box is None:
        return False
    return any(
        u.box is not None and u is not top and same_row(top.box, u.box) and cell in next_lines(u, units)
        for u in units
    )


def under_question(line: TextUnit, left: float, height: float, question: TextUnit) -> bool:
    """Whether `line`, under an answer set apart from its question, starts left of the answer
    and under the question: the next row of the questions' column (initials written under
    "cc:"), not a line of the answer. Under an answer on its question's line, the same holds
    only for a line that `looks_printed`: a longer one is the answer wrapped to the margin."""
    box, asked = line.box, question.box
    return box is not None and asked is not None and box.x0 < left - height and box.x0 < asked.x1


def looks_printed(text: str) -> bool:
    """Whether a short line reads as a printed label ("S.P.V." under "D.E.C. 534.1"): a word or
    two in capitals, no digits."""
    return text.isupper() and not any(c.isdigit() for c in text) and len(text.split()) <= 2


def in_header_row(question: TextUnit, cell: TextUnit, units: list[TextUnit]) -> bool:
    """Whether the question (in capitals) and the cell right of it stand in a row of printed
    headers: the cell a word or two in capitals without digits, as are `HEADER_ROW_MIN_OTHERS`
    more cells of the row."""
    if not (question.text.isupper() and looks_printed(cell.text)) or question.box is None:
        return False
    box = question.box
    return (
        sum(
            1
            for u in units
            if u is not question
            and u is not cell
            and u.box is not None
            and u.page == question.page
            and same_row(box, u.box)
            and looks_printed(u.text)
        )
        >= HEADER_ROW_MIN_OTHERS
    )


def is_scrawl(unit: TextUnit) -> bool:
    """Whether OCR read `unit` as one word it is unsure of: a signature or initials written over
    the form, no typed text."""
    return unit.confidence < SCRAWL_CONFIDENCE and len(unit.text.split()) == 1


def under_past_scrawl(unit: TextUnit, units: list[TextUnit]) -> list[TextUnit]:
    """The line under `unit`, or under the scrawl OCR read there (a signature over the typed
    name under it, "aemn": one word it is unsure of)."""
    under = lines_under(unit, units)[:1]
    for _ in range(MAX_SCRAWLS):
        if not under or not is_scrawl(under[0]):
            break
        under = lines_under(under[0], units)[:1]
    return under
