"""Word engine (python-docx): headings from styles, paragraphs, list items and tables in body order.

A .docx has no fixed pages or coordinates (layout happens in the viewer), so everything is page 1
without boxes; the element order is the document's order.
"""

from __future__ import annotations

import io
import re
from typing import Any

from extraction.formats.document import Document, Element, ElementType, Page, assign_ids
from extraction.formats.limits import check_zip_container
from extraction.formats.markdown import table_markdown

_HEADING_STYLE = re.compile(r"heading\s*(\d)", re.IGNORECASE)


def parse_docx(data: bytes, filename: str) -> Document:
    check_zip_container(data)
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    word = docx.Document(io.BytesIO(data))
    elements: list[Element] = []
    elements.extend(_header_footer(word, "header"))
    for child in word.element.body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            element = _paragraph(Paragraph(child, word))
            if element:
                elements.append(element)
        elif tag == "tbl":
            element = _table(Table(child, word))
            if element:
                elements.append(element)
    elements.extend(_header_footer(word, "footer"))
    assign_ids(elements)
    confidence = 1.0 if elements else None
    return Document(
        filename=filename,
        format="docx",
        page_count=1,
        pages=[Page(page=1, width=0, height=0, confidence=confidence)],
        elements=elements,
    )


def _paragraph(paragraph: Any) -> Element | None:
    text = paragraph.text.strip()
    if not text:
        return None
    kind: ElementType = "text"
    level: int | None = None
    style = paragraph.style
    names = " ".join(filter(None, (getattr(style, "name", None), getattr(style, "style_id", None))))
    heading = _HEADING_STYLE.search(names)
    if heading:
        kind, level = "title", max(int(heading.group(1)), 1)
    elif re.search(r"\btitle\b", names, re.IGNORECASE):
        kind, level = "title", 1
    elif re.search(r"\bsubtitle\b", names, re.IGNORECASE):
        kind, level = "title", 2
    elif _is_list(paragraph, names):
        kind = "list"
    return Element(id="", type=kind, page=1, text=text, level=level)


def _is_list(paragraph: Any, style_names: str) -> bool:
    properties = paragraph._p.pPr
    numbered = properties is not None and properties.numPr is not None
    return numbered or "list" in style_names.lower()


def _table(table: Any) -> Element | None:
    rows = [[cell.text.strip() for cell in row.cells] for row in table.rows]
    rows = [row for row in rows if any(row)]
    if not rows:
        return None
    return Element(id="", type="table", page=1, text=table_markdown(rows), rows=rows)


def _header_footer(word: Any, part: str) -> list[Element]:
    """Headers or footers of all sections, each distinct text once."""
    seen: set[str] = set()
    elements: list[Element] = []
    kind: ElementType = "header" if part == "header" else "footer"
    for section in word.sections:
        container = getattr(section, part)
        if container.is_linked_to_previous and seen:
            continue
        text = "\n".join(p.text.strip() for p in container.paragraphs if p.text.strip())
        if text and text not in seen:
            seen.add(text)
            elements.append(Element(id="", type=kind, page=1, text=text))
    return elements
