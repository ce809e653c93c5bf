"""Citation dictionaries: where in a file a value was read (docs/spec.md, "Citation leaf").

Three shapes, by the kind of source:
- a page region: `{file, page, bounding_box: [x0, y0, x1, y1], normalized_bounding_box: [4 {x, y}]}`
  (`{file, page}` alone when the engine gave no box);
- a spreadsheet cell: `{file, sheet, cell}`;
- a text-file line range: `{file, line_start, line_end}`.
`citation_id` is not set here: numbering belongs to whoever assembles the citations of one output.
"""

from __future__ import annotations

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


def units_citations(doc: Document, units: Iterable[TextUnit], file_name: str) -> list[Citation]:
    """Citations of several lines that hold one value: one region per page (the union of the line
    boxes), consecutive text lines as one range, cells one by one."""
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
            boxes[unit.page] = boxes[unit.page].union(unit.box) if unit.page in boxes else unit.box
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
