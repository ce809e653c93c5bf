"""Plain text and CSV engines: provenance is a range of lines (1-based, inclusive), not a box.

A text file is one page without geometry. Paragraphs (separated by blank lines) become elements;
Markdown-style headings (`# Title`) and list items (`- item`, `1. item`) keep their meaning. A CSV
becomes one table element spanning the file plus one element per row, marked as parts of it.
"""

from __future__ import annotations

import csv
import io
import re

from extraction.formats.document import Document, Element, ElementType, Page, element_id
from extraction.formats.errors import InvalidDocument
from extraction.formats.markdown import table_markdown
from extraction.formats.sniff import CSV_DELIMITERS, CSV_SAMPLE_BYTES
from extraction.formats.textcodec import decode_text

_HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*#*\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+\u2022]|\d{1,3}[.)])\s+\S")
# The line breaks the csv module counts, so text and CSV line numbers agree with each other.
_LINE_BREAK = re.compile(r"\r\n|\n|\r")


def parse_text(data: bytes, filename: str) -> Document:
    text = _decode(data)
    elements: list[Element] = []
    block: list[tuple[int, str]] = []

    def flush() -> None:
        if block:
            elements.extend(_block_elements(block, len(elements)))
            block.clear()

    for number, line in enumerate(_LINE_BREAK.split(text), start=1):
        if line.strip():
            heading = _HEADING.match(line)
            if heading or (_LIST_ITEM.match(line) and block and not _LIST_ITEM.match(block[0][1])):
                flush()
            block.append((number, line))
            if heading:
                flush()
        else:
            flush()
    flush()
    return _single_page(filename, "text", elements)


def _block_elements(block: list[tuple[int, str]], offset: int) -> list[Element]:
    """A paragraph, a heading, or the list items of a block (one element each)."""
    heading = _HEADING.match(block[0][1])
    if heading and len(block) == 1:
        level = len(heading.group(1))
        return [_line_element(offset + 1, "title", heading.group(2), block[0][0], block[0][0], level)]
    if _LIST_ITEM.match(block[0][1]):
        items: list[list[tuple[int, str]]] = []
        for number, line in block:
            if _LIST_ITEM.match(line) or not items:
                items.append([(number, line)])
            else:
                items[-1].append((number, line))
        return [
            _line_element(
                offset + i, "list", "\n".join(line.strip() for _, line in item), item[0][0], item[-1][0]
            )
            for i, item in enumerate(items, start=1)
        ]
    text = "\n".join(line.rstrip() for _, line in block).strip("\n")
    return [_line_element(offset + 1, "text", text, block[0][0], block[-1][0])]


def _line_element(
    n: int, kind: ElementType, text: str, start: int, end: int, level: int | None = None
) -> Element:
    return Element(
        id=element_id(1, n), type=kind, page=1, text=text, line_start=start, line_end=end, level=level
    )


def parse_csv(data: bytes, filename: str) -> Document:
    text = _decode(data)
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(
            text[:CSV_SAMPLE_BYTES], delimiters=CSV_DELIMITERS
        )
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text, newline=""), dialect)
    rows: list[list[str]] = []
    spans: list[tuple[int, int]] = []
    start = 1
    try:
        for row in reader:
            end = reader.line_num
            if any(cell.strip() for cell in row):
                rows.append([cell.strip() for cell in row])
                spans.append((start, end))
            start = end + 1
    except csv.Error as exc:
        raise InvalidDocument(f"The CSV file is malformed near line {reader.line_num}.") from exc
    if not rows:
        return _single_page(filename, "csv", [])
    table_id = element_id(1, 1)
    elements = [
        Element(
            id=table_id,
            type="table",
            page=1,
            text=table_markdown(rows),
            rows=rows,
            line_start=spans[0][0],
            line_end=spans[-1][1],
        )
    ]
    for n, (row, (first, last)) in enumerate(zip(rows, spans, strict=True), start=2):
        elements.append(
            Element(
                id=element_id(1, n),
                type="text",
                page=1,
                text=" | ".join(row),
                line_start=first,
                line_end=last,
                parent=table_id,
            )
        )
    return _single_page(filename, "csv", elements)


def _decode(data: bytes) -> str:
    text = decode_text(data)
    if text is None:
        raise InvalidDocument("The file is not readable text (binary content or an unknown encoding).")
    return text


def _single_page(filename: str, fmt: str, elements: list[Element]) -> Document:
    page = Page(page=1, width=0, height=0, confidence=1.0 if elements else None)
    return Document(filename=filename, format=fmt, pages=[page], elements=elements, page_count=1)
