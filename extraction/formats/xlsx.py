"""Excel engine (openpyxl, read-only, cached values): one page per sheet, in workbook order.

Each sheet gives one table element (its used cells as rows, `cell` the range it spans) and one
element per non-empty cell carrying `sheet` and `cell` ("B3"), marked as parts of that table, so a
citation can name the exact cell while Markdown shows the table once. Formulas report the value
Excel last saved with the file; a workbook never opened in Excel after generation may have none.
"""

from __future__ import annotations

import datetime as dt
import io
import re
from typing import Any

from extraction.formats.document import Document, Element, Page, element_id
from extraction.formats.errors import DocumentTooLarge
from extraction.formats.limits import MAX_SHEET_CELLS, check_zip_container
from extraction.formats.markdown import table_markdown

_DECIMALS = re.compile(r"0\.(0+)")


def parse_xlsx(data: bytes, filename: str, *, max_cells: int = MAX_SHEET_CELLS) -> Document:
    check_zip_container(data)
    import openpyxl
    from openpyxl.utils import get_column_letter

    workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    document = Document(filename=filename, format="xlsx")
    seen = 0
    try:
        for number, sheet in enumerate(workbook.worksheets, start=1):
            # Saved dimensions can be wrong (files written by other tools); read every row instead.
            sheet.reset_dimensions()
            cells: dict[tuple[int, int], str] = {}
            for row in sheet.iter_rows():
                for cell in row:
                    value = getattr(cell, "value", None)
                    if value is None:
                        continue
                    text = format_cell(value, getattr(cell, "number_format", "General"))
                    if text:
                        cells[(cell.row, cell.column)] = text
                        seen += 1
                if seen > max_cells:
                    raise DocumentTooLarge(
                        f"The workbook has more than {max_cells:,} filled cells; split it into smaller files."
                    )
            document.pages.append(
                Page(page=number, width=0, height=0, confidence=1.0 if cells else None, label=sheet.title)
            )
            document.elements.extend(_sheet_elements(number, sheet.title, cells, get_column_letter))
    finally:
        workbook.close()
    document.page_count = len(document.pages)
    return document


def _sheet_elements(
    number: int, title: str, cells: dict[tuple[int, int], str], column_letter: Any
) -> list[Element]:
    if not cells:
        return []
    rows = sorted({r for r, _ in cells})
    columns = sorted({c for _, c in cells})
    if len(rows) * len(columns) > MAX_SHEET_CELLS * 10:
        raise DocumentTooLarge(f"The sheet {title!r} is too sparse and wide to lay out as a table.")
    grid = [[cells.get((r, c), "") for c in columns] for r in rows]
    span = f"{column_letter(columns[0])}{rows[0]}:{column_letter(columns[-1])}{rows[-1]}"
    table_id = element_id(number, 1)
    elements = [
        Element(
            id=table_id,
            type="table",
            page=number,
            text=table_markdown(grid),
            sheet=title,
            cell=span,
            rows=grid,
        )
    ]
    for n, ((r, c), text) in enumerate(sorted(cells.items()), start=2):
        elements.append(
            Element(
                id=element_id(number, n),
                type="text",
                page=number,
                text=text,
                sheet=title,
                cell=f"{column_letter(c)}{r}",
                parent=table_id,
            )
        )
    return elements


def format_cell(value: Any, number_format: str = "General") -> str:
    """A cell's value as Excel would show it, for the common formats (fixed decimals, percent, dates)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0, 0):
            return value.date().isoformat()
        return value.isoformat(sep=" ")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    if isinstance(value, (int, float)):
        return _format_number(value, number_format or "General")
    return str(value).strip()


def _format_number(value: float, number_format: str) -> str:
    decimals = _DECIMALS.search(number_format)
    places = len(decimals.group(1)) if decimals else 0
    if "%" in number_format:
        return f"{value * 100:.{places}f}%"
    if decimals or (number_format != "General" and "0" in number_format):
        grouped = "," in number_format.split(".")[0]
        return f"{value:,.{places}f}" if grouped else f"{value:.{places}f}"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return f"{value:.15g}" if isinstance(value, float) else str(value)
