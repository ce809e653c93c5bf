"""Render a `Document` as Markdown: the `content` of a parse with output_format markdown."""

from __future__ import annotations

import re

from extraction.formats.document import Document, Element

# Bullet glyphs seen in documents, including the private-use ones of the Symbol and Wingdings fonts.
_BULLETS = "\u2022\u2023\u2043\u2219\u25aa\u25ab\u25cf\u25cb\u25a0\u25a1\u25e6\u2013\u2014\u00b7\uf0b7\uf0a7-"
_BULLET = re.compile(rf"^\s*[{_BULLETS}]\s+")
_ENUMERATED = re.compile(r"^\s*\(?(?:\d{1,3}(?:\.\d{1,3})*|[a-zA-Z]|[ivxlcdmIVXLCDM]{1,6})[.)]\s+")


def is_list_item(text: str) -> bool:
    """True when `text` starts with a bullet or an enumerator ("1.", "a)", "(iv)") and then text."""
    marker = _BULLET.match(text) or _ENUMERATED.match(text)
    return bool(marker) and marker is not None and marker.end() < len(text.rstrip())


def to_markdown(doc: Document) -> str:
    """Pages in order, each opened by an `<!-- page N -->` comment (so a reader can cite pages),
    with headings as `#`, list items as `-`, tables as GitHub tables and form fields as
    `**name**: value`. Parts of a table (CSV rows, spreadsheet cells) render inside their table."""
    by_page: dict[int, list[Element]] = {}
    for element in doc.elements:
        if element.parent is None:
            by_page.setdefault(element.page, []).append(element)
    chunks: list[str] = []
    for page in doc.pages:
        chunks.append(f"<!-- page {page.page} -->")
        if page.label:
            chunks.append(f"## {_one_line(page.label)}")
        chunks.extend(rendered for e in by_page.get(page.page, []) if (rendered := render_element(e)))
    return "\n\n".join(chunks) + "\n" if chunks else ""


def render_element(element: Element) -> str:
    text = element.text.strip()
    if element.type == "title":
        level = min(max(element.level or 1, 1), 6)
        return f"{'#' * level} {_one_line(text)}" if text else ""
    if element.type == "list":
        return _list_item(text)
    if element.type == "table":
        return table_markdown(element.rows) if element.rows else text
    if element.type == "form_field":
        return f"**{_one_line(element.field_name or '')}**: {_one_line(text)}"
    if element.type == "image":
        return ""
    return text


def table_markdown(rows: list[list[str]]) -> str:
    """A GitHub Markdown table; the first row is the header."""
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    cells = [[_cell(value) for value in row] + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(cells[0]) + " |", "|" + "|".join(["---"] * width) + "|"]
    lines.extend("| " + " | ".join(row) + " |" for row in cells[1:])
    return "\n".join(lines)


def _list_item(text: str) -> str:
    first, _, rest = text.partition("\n")
    head = first.strip() if _ENUMERATED.match(first) else "- " + _BULLET.sub("", first).strip()
    if not rest:
        return head
    return head + "\n" + "\n".join("  " + line.strip() for line in rest.splitlines())


def _cell(value: str) -> str:
    return _one_line(value).replace("|", "\\|")


def _one_line(text: str) -> str:
    return " ".join(text.split())
