"""Ruled tables of a PDF page (PyMuPDF's line strategy), with cell texts and cell boxes.

Table finding is the costliest step of PDF parsing, so it runs only on pages whose vector graphics
could form a grid at all. Cell texts come from the page's own text spans rather than the table
finder's character joiner, which drops the spaces of PDFs that position words without space glyphs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from extraction.formats.document import Box, Line
from extraction.formats.pdf_geometry import PdfPage, center_in, to_box

#: A 2 x 2 grid needs three distinct horizontal and three distinct vertical edges; PyMuPDF's line
#: strategy builds tables from nothing else, so pages with fewer cannot hold a table. On the
#: corpus this skips 403 of 425 pages and loses none of the tables found on all pages.
MIN_GRID_EDGES = 3
#: Edges shorter than this (points) are glyph decorations or underline ends, not cell borders.
MIN_EDGE_LENGTH = 3.0
#: A filled rectangle thinner than this (points) is drawn as a rule line.
RULE_THICKNESS = 3.0
#: Fills covering this share of the page are backgrounds, not cells.
BACKGROUND_SHARE = 0.9
#: A found table with fewer filled cells than this share (after dropping empty rows and columns)
#: is a layout grid (a form's boxes), whose text reads better as ordinary blocks.
MIN_TABLE_FILL = 0.3

#: A text span: its text and box on the displayed page.
Span = tuple[str, Box]


@dataclass
class PdfTable:
    rows: list[list[str]]
    box: Box
    #: One line per non-empty cell, row-major, with the cell's box.
    cells: list[Line]


def find_tables(
    page: PdfPage, drawings: list[dict[str, Any]], spans: list[Span], turn: Any, page_area: float
) -> list[PdfTable]:
    """Tables of at least 2 x 2 cells; `drawings` is `page.get_cdrawings()`, already at hand."""
    if not may_hold_grid(drawings, page_area):
        return []
    tables: list[PdfTable] = []
    for found in _run_finder(page):
        if found.row_count < 2 or found.col_count < 2:
            continue
        rows: list[list[str]] = []
        cells: list[Line] = []
        for row in found.rows:
            texts: list[str] = []
            for cell in row.cells:
                content = ""
                if cell is not None:
                    cell_box = to_box(cell, turn)
                    content = _text_inside(spans, cell_box)
                    if content:
                        cells.append(Line(content, cell_box))
                texts.append(content)
            rows.append(texts)
        rows = _drop_empty(rows)
        filled = sum(1 for row in rows for value in row if value)
        if rows and filled >= MIN_TABLE_FILL * len(rows) * len(rows[0]):
            tables.append(PdfTable(rows, to_box(found.bbox, turn), cells))
    return tables


def may_hold_grid(drawings: list[dict[str, Any]], page_area: float) -> bool:
    horizontal: set[int] = set()
    vertical: set[int] = set()
    for path in drawings:
        for item in path["items"]:
            if item[0] == "l":
                (x0, y0), (x1, y1) = item[1], item[2]
                if abs(y1 - y0) < 1 and abs(x1 - x0) >= MIN_EDGE_LENGTH:
                    horizontal.add(round(y0))
                elif abs(x1 - x0) < 1 and abs(y1 - y0) >= MIN_EDGE_LENGTH:
                    vertical.add(round(x0))
            elif item[0] == "re":
                x0, y0, x1, y1 = item[1]
                w, h = abs(x1 - x0), abs(y1 - y0)
                if w * h >= BACKGROUND_SHARE * page_area:
                    continue
                if h < RULE_THICKNESS and w >= MIN_EDGE_LENGTH:
                    horizontal.add(round(y0))
                elif w < RULE_THICKNESS and h >= MIN_EDGE_LENGTH:
                    vertical.add(round(x0))
                elif w >= MIN_EDGE_LENGTH and h >= MIN_EDGE_LENGTH:
                    horizontal.update((round(y0), round(y1)))
                    vertical.update((round(x0), round(x1)))
        if len(horizontal) >= MIN_GRID_EDGES and len(vertical) >= MIN_GRID_EDGES:
            return True
    return False


def _run_finder(page: PdfPage) -> list[Any]:
    # PyMuPDF 2 also gates tables by its layout model (about 1 s a page on a CPU); on ruled pages
    # the line strategy alone is reliable. Older PyMuPDF has no such switch.
    try:
        found = page.find_tables(use_layout=False)
    except TypeError:
        found = page.find_tables()
    return list(found.tables)


def _text_inside(spans: list[Span], area: Box) -> str:
    """The cell's spans line by line, each line left to right: spans of one visual line (a value
    in another face, a drawn mark) whose tops differ still read in the order they stand."""
    inside = sorted(
        ((text, box) for text, box in spans if center_in(box, [area])), key=lambda s: s[1].y0 + s[1].y1
    )
    lines: list[list[Span]] = []
    for span in inside:
        middle = (span[1].y0 + span[1].y1) / 2
        if lines and min(b.y0 for _, b in lines[-1]) <= middle <= max(b.y1 for _, b in lines[-1]):
            lines[-1].append(span)
        else:
            lines.append([span])
    ordered = (s for line in lines for s in sorted(line, key=lambda s: s[1].x0))
    return " ".join(text.strip() for text, _ in ordered).strip()


def _drop_empty(rows: list[list[str]]) -> list[list[str]]:
    """Rows and columns without any text removed (grids drawn for layout leave many)."""
    rows = [row for row in rows if any(row)]
    if not rows:
        return []
    keep = [c for c in range(len(rows[0])) if any(row[c] for row in rows)]
    return [[row[c] for c in keep] for row in rows]
