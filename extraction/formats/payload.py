"""The JSON shapes of a parse result: `result.elements` and `result.pages` (docs/contract.md section 7)."""

from __future__ import annotations

from typing import Any

from extraction.formats.document import Document


def elements_payload(doc: Document) -> list[dict[str, Any]]:
    """`[{id, type, page, text, bounding_box, normalized_bounding_box}]` in reading order.

    The box keys are present only for elements with a box (PDF, image and slide content);
    spreadsheet elements carry `sheet` and `cell` and text-file elements `line_start` and
    `line_end` instead, as docs/spec.md's citation leaf describes. Form fields add `field_name`.
    """
    sizes = {page.page: (page.width, page.height) for page in doc.pages}
    items: list[dict[str, Any]] = []
    for element in doc.elements:
        item: dict[str, Any] = {
            "id": element.id,
            "type": element.type,
            "page": element.page,
            "text": element.text,
        }
        if element.box is not None:
            width, height = sizes.get(element.page, (0.0, 0.0))
            item["bounding_box"] = element.box.as_list()
            item["normalized_bounding_box"] = element.box.normalized(width, height)
        if element.sheet is not None:
            item["sheet"] = element.sheet
            item["cell"] = element.cell
        if element.line_start is not None:
            item["line_start"] = element.line_start
            item["line_end"] = element.line_end
        if element.field_name is not None:
            item["field_name"] = element.field_name
        items.append(item)
    return items


def pages_payload(doc: Document) -> list[dict[str, Any]]:
    """`[{page, width, height}]`, sizes in whole pixels (72 dpi for PDFs, native for images).

    Formats without geometry (Word, Excel, text) have pages of size 0; their `width` and `height`
    are omitted, as docs/spec.md does for pages too sparse to derive them.
    """
    items: list[dict[str, Any]] = []
    for page in doc.pages:
        item: dict[str, Any] = {"page": page.page}
        if page.width and page.height:
            item["width"] = round(page.width)
            item["height"] = round(page.height)
        items.append(item)
    return items
