"""Citation dictionaries: where in a file a value was read (docs/spec.md, "Citation leaf").

Three shapes, by the kind of source:
- a page region: `{file, page, bounding_box: [x0, y0, x1, y1], normalized_bounding_box: [4 {x, y}]}`
  (`{file, page}` alone when the engine gave no box);
- a spreadsheet cell: `{file, sheet, cell}`;
- a text-file line range: `{file, line_start, line_end}`.
`citation_id` is not set here: numbering belongs to whoever assembles the citations of one output.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from extraction.fields.reading.text_lines import TextUnit
from extraction.formats.document import Box, Document, Element

Citation = dict[str, Any]


def region_citation(doc: Document, file_name: str, page: int, box: Box | None) -> Citation:
    citation: Citation = {"file": file_name, "page": page}
    info = doc.page(page)
    if box is not None:
        citation["bounding_box"] = box.as_list()
        width, height = (info.width, info.height) if info else (0.0, 0.0)
        citation["normalized_bounding_box"] = box.normalized(width, height)
    return citation


def element_citation(doc: Document, element: Element, file_name: str, box: Box | None = None) -> Citation:
    """Where `element` (or the part of it in `box`) sits."""
    if element.cell is not None:
        return {"file": file_name, "sheet": element.sheet, "cell": element.cell}
    if element.line_start is not None:
        end = element.line_end if element.line_end is not None else element.line_start
        return {"file": file_name, "line_start": element.line_start, "line_end": end}
    return region_citation(doc, file_name, element.page, box or element.box)


def unit_citation(doc: Document, unit: TextUnit, file_name: str) -> Citation:
    """Where one line of text sits."""
    if unit.line_start is not None:
        return {"file": file_name, "line_start": unit.line_start, "line_end": unit.line_end}
    if unit.is_cell:
        return element_citation(doc, unit.element, file_name)
    return region_citation(doc, file_name, unit.page, unit.box)


def value_box(unit: TextUnit, printed: str | None, value: Any = None) -> Box | None:
    """The box of the words of `unit`'s line that hold the value, when it is only part of its line
    ("78745" of "City/State/Zip: Austin, TX 78745"): where `printed` (the text the value was read
    from) stands, narrowed to the value's own text inside it when it is there ("78745" of "Austin,
    TX 78745"). The line's box when its words are not known, the text is not found in them, or it
    is the whole line."""
    line = next((ln for ln in unit.element.lines if ln.box is unit.box), None)
    if unit.box is None or line is None or len(line.words) < 2:
        return unit.box
    joined = " ".join(w.text for w in line.words)
    region = _find_words(joined, printed, 0, len(joined))
    if region is None:
        return unit.box
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        region = _find_words(joined, str(value), *region) or region
    chosen, start = [], 0
    for word in line.words:
        end = start + len(word.text)
        if start < region[1] and end > region[0]:
            chosen.append(word.box)
        start = end + 1
    if not chosen or len(chosen) == len(line.words):
        return unit.box
    box = chosen[0]
    for other in chosen[1:]:
        box = box.union(other)
    return box


def _find_words(text: str, wanted: str | None, start: int, end: int) -> tuple[int, int] | None:
    """Where `wanted` (spaces evened) stands in `text[start:end]`: as words of its own first (not
    the "F" of "Female"), else inside longer words ("Austin" of "Austin,")."""
    wanted = " ".join((wanted or "").split())
    if not wanted:
        return None
    own = re.compile(rf"(?<!\S){re.escape(wanted)}(?![^\s,.;:)])", re.IGNORECASE)
    found = own.search(text, start, end) or re.compile(re.escape(wanted), re.IGNORECASE).search(
        text, start, end
    )
    return (found.start(), found.end()) if found else None


def units_citations(
    doc: Document, units: Iterable[TextUnit], file_name: str, printed: str | None = None, value: Any = None
) -> list[Citation]:
    """Citations of several lines that hold one value: one region per page (the union of the line
    boxes, or of the value's own words where `printed`, its text as printed, is part of a line:
    `value_box`, narrowed to `value`), consecutive text lines as one range, cells one by one."""
    units = list(units)
    if not units:
        return []
    if all(u.line_start is not None for u in units):
        starts = [u.line_start for u in units if u.line_start is not None]
        ends = [u.line_end for u in units if u.line_end is not None]
        return [{"file": file_name, "line_start": min(starts), "line_end": max(ends)}]
    citations: list[Citation] = []
    boxes: dict[int, Box] = {}
    for unit in units:
        if unit.is_cell or unit.line_start is not None or unit.box is None:
            citations.append(unit_citation(doc, unit, file_name))
        else:
            box = value_box(unit, printed, value) or unit.box
            boxes[unit.page] = boxes[unit.page].union(box) if unit.page in boxes else box
    citations.extend(region_citation(doc, file_name, page, box) for page, box in boxes.items())
    return dedupe(citations)


def dedupe(citations: Iterable[Citation]) -> list[Citation]:
    seen: set[str] = set()
    unique: list[Citation] = []
    for citation in citations:
        key = repr(sorted(citation.items()))
        if key not in seen:
            seen.add(key)
            unique.append(citation)
    return unique
