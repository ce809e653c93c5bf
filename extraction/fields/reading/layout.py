"""The layout a form's values are read from: cells of words, and the section each one is in.

Engines give visual lines, and where they know them, the words of each line with boxes. A form's
line often holds several label/value cells ("First: Anthony      Middle: Thomas      Last: ..."),
or several labels over several values in the line below ("FIRST NAME    MIDDLE NAME    LAST
NAME"). Splitting a line where its words stand far apart gives those cells, each a `TextUnit`
of its own, so the geometric pairing of `text_lines` (right of a label, under it) works cell by
cell. Sections ("Emergency Contact", "Policy Holder") say whose values the cells under them are.
"""

from __future__ import annotations

import re
from dataclasses import replace

from extraction.fields.reading.asked_questions import asked_as_label
from extraction.fields.reading.combs import joined_combs
from extraction.fields.reading.fill_ins import (
    CLOSING_END_RE,
    RUN_RE,
    enclosed_cells,
    laid_over,
    without_rule_ends,
)
from extraction.fields.reading.normalize import concept_of, label_tokens
from extraction.fields.reading.text_lines import TextUnit, same_row, text_units
from extraction.fields.reading.vocabulary import heads_other_party
from extraction.formats.document import Box, Document, Word

#: Words further apart than this many line heights stand in different cells.
CELL_GAP_HEIGHTS = 1.2
#: A section heading is short.
MAX_HEADING_WORDS = 6
#: Words of headings that open a section of the patient's own, the insurer's or the doctor's
#: facts (ending a section of someone else's).
_SECTION_WORDS = frozenset(
    {
        "information",
        "info",
        # A form's title ("Registration Form", "Patient Intake") opens the patient's facts too.
        "registration",
        "intake",
        "patient",
        "personal",
        "demographics",
        "demographic",
        "about",
        "insurance",
        "primary",
        "secondary",
        "physician",
        "provider",
        "doctor",
        "care",
        "medical",
        "history",
        "contact",
        "emergency",
        "holder",
        "subscriber",
        "guarantor",
        "responsible",
        "employer",
        "policy",
        "insured",
    }
)


def cells(words: list[Word], height: float) -> list[list[Word]]:
    """`words` (left to right) grouped where the gap between two is over `CELL_GAP_HEIGHTS`
    line heights."""
    groups: list[list[Word]] = []
    for word in words:
        if groups and word.box.x0 - groups[-1][-1].box.x1 <= CELL_GAP_HEIGHTS * height:
            groups[-1].append(word)
        else:
            groups.append([word])
    return groups


def _union(boxes: list[Box]) -> Box:
    box = boxes[0]
    for other in boxes[1:]:
        box = box.union(other)
    return box


def cell_units(doc: Document) -> list[TextUnit]:
    """Every line of text in reading order, a line whose words stand apart as one unit per cell."""
    out: list[TextUnit] = []
    lines_by_element = {id(e): e.lines for e in doc.elements}
    filled: dict[int, list[Word]] = {}
    taken: set[int] = set()
    for page in {e.page for e in doc.elements}:
        page_lines = [ln for e in doc.elements if e.page == page for ln in e.lines if ln.words]
        page_filled, page_taken = laid_over(page_lines)
        filled.update(page_filled)
        taken |= page_taken
    for unit in text_units(doc):
        line = next(
            (ln for ln in lines_by_element.get(id(unit.element), []) if ln.box == unit.box and ln.words),
            None,
        )
        if line is not None and id(line) in taken:
            # A value laid over another line's fill-in rule is read in that line.
            continue
        words = filled.get(id(line), line.words) if line is not None else []
        height = line.box.y1 - line.box.y0 if line is not None else 0.0
        groups = [group for part in enclosed_cells(words) for group in cells(part, height)] if words else []
        joined = [joined_combs(g) for g in groups]
        unchanged = line is None or words is line.words
        if (
            unchanged
            and len(groups) < 2
            and all(len(j) == len(g) for j, g in zip(joined, groups, strict=True))
        ):
            out.append(replace(unit, text=asked_as_label(leaders_as_colons(unit.text)), order=len(out)))
            continue
        for group in joined:
            text = asked_as_label(leaders_as_colons(" ".join(w.text for w in group)))
            out.append(replace(unit, text=text, box=_union([w.box for w in group]), order=len(out)))
    return out


#: Dot leaders or underscores between a label and its value ("Surname ........ Ravensworth").
_LEADER_RE = re.compile(r"\s*(?:\.{3,}|_{2,}|…+)\s*")


def leaders_as_colons(text: str) -> str:
    """`text` with leaders between words read as the colon they stand for; the rule's rest after
    a value typed on it ("Surname ___Ravensworth___") is no colon: the value ends there, and
    what OCR kept of such a rule glued to the value ("_Ravensworth") is dropped."""
    closing = CLOSING_END_RE.search(text)
    if closing and RUN_RE.search(text, 0, closing.start()):
        text = text[: closing.start()]
    text = _LEADER_RE.sub(": ", text).strip() if _LEADER_RE.search(text) else text
    return without_rule_ends(text)


def is_heading(unit: TextUnit) -> bool:
    """A section heading: a short line without a value that names a section (a title element
    alone is not one: forms set values in large type too)."""
    text = unit.text.strip()
    if ":" in text.rstrip(":") or any(c.isdigit() for c in text):
        return False
    tokens = label_tokens(text)
    if not tokens or len(tokens) > MAX_HEADING_WORDS:
        return False
    return bool(set(tokens) & _SECTION_WORDS)


def other_party_units(units: list[TextUnit]) -> set[int]:
    """Orders of the units inside a section about someone other than the patient (from its
    heading to the next heading), so their values are never taken for the patient's. A heading
    stands alone on its row: "Subscriber Marisol Trevelyan" beside "State NV" is a label and its
    value in a column of them."""
    inside: set[int] = set()
    current = False
    page = None
    for unit in units:
        if unit.page != page:
            page, current = unit.page, False
        if is_heading(unit) and _alone_on_row(unit, units):
            current = heads_other_party(unit.text)
            continue
        if current:
            inside.add(unit.order)
    return inside


def provider_sections(units: list[TextUnit]) -> dict[int, str]:
    """The heading of each unit inside a section about a doctor ("Primary Care Physician",
    "Physician Information"), by the unit's order: a plain "Last Name" there is the doctor's,
    and the heading says which doctor (a referring one, or the patient's own). Such a heading
    stands alone on its row: a grid cell's caption "PRIMARY CARE PROVIDER" beside "PATIENT
    E-MAIL" heads its own cell only."""
    inside: dict[int, str] = {}
    heading: str | None = None
    page = None
    for unit in units:
        if unit.page != page:
            page, heading = unit.page, None
        if is_heading(unit):
            doctor = concept_of(unit.text) == "provider" and _alone_on_row(unit, units)
            heading = unit.text if doctor else None
            continue
        if heading is not None:
            inside[unit.order] = heading
    return inside


def _alone_on_row(unit: TextUnit, units: list[TextUnit]) -> bool:
    if unit.box is None:
        return False
    box = unit.box
    return not any(
        u.page == unit.page and u.order != unit.order and u.box is not None and same_row(box, u.box)
        for u in units
    )


#: A label above a widget ends at most this many widget heights over its top.
ABOVE_MAX_GAP_HEIGHTS = 1.5
#: A label left of a widget is at most this many widget heights tall.
LEFT_MAX_HEIGHTS = 1.6
#: A label left of a widget ends at most this share of the page width before it.
LEFT_MAX_GAP_SHARE = 0.25


def widget_labels(doc: Document, units: list[TextUnit]) -> dict[int, list[str]]:
    """The text printed next to each form widget (by `id` of its element): the nearest cell on
    its left on the same row and the nearest one just above it; for a check box, also the word on
    its right, which names the option it ticks."""
    labels: dict[int, list[str]] = {}
    for widget in doc.elements:
        if widget.type != "form_field" or widget.box is None:
            continue
        box = widget.box
        page = doc.page(widget.page)
        width = page.width if page is not None and page.width else 612.0
        height = max(box.y1 - box.y0, 1.0)
        same_page = [u for u in units if u.page == widget.page and u.box is not None]
        row = [u for u in same_page if u.box is not None and _same_row(u.box, box)]
        # A label cell enclosing the widget (a table cell with its label at the top), or one
        # of about the widget's height on its left.
        inside = [u for u in same_page if u.box is not None and _contains(u.box, box)]
        left = [
            u
            for u in row
            if u.box is not None
            and u.box.y1 - u.box.y0 <= LEFT_MAX_HEIGHTS * height
            and u.box.x1 <= box.x0 + 2
            and box.x0 - u.box.x1 <= LEFT_MAX_GAP_SHARE * width
        ]
        above = [
            u
            for u in same_page
            if u.box is not None
            and -2 <= box.y0 - u.box.y1 <= ABOVE_MAX_GAP_HEIGHTS * height
            and min(u.box.x1, box.x1) > max(u.box.x0, box.x0)
        ]
        found: list[str] = [u.text for u in inside]
        if left:
            found.append(max(left, key=lambda u: u.box.x1 if u.box else 0.0).text)
        if above:
            found.append(max(above, key=lambda u: u.box.y1 if u.box else 0.0).text)
        if widget.text in ("true", "false"):
            right = [u for u in row if u.box is not None and u.box.x0 >= box.x1 - 2]
            if right:
                found.append(min(right, key=lambda u: u.box.x0 if u.box else 0.0).text)
        labels[id(widget)] = found
    return labels


def _contains(outer: Box, inner: Box) -> bool:
    return (
        outer.x0 <= inner.x0 + 1
        and outer.y0 <= inner.y0 + 1
        and inner.x1 <= outer.x1 + 1
        and inner.y1 <= outer.y1 + 1
    )


def _same_row(a: Box, b: Box) -> bool:
    overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
    return overlap >= 0.5 * min(a.y1 - a.y0, b.y1 - b.y0)
