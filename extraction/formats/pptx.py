"""PowerPoint engine (python-pptx): one page per slide, titles, text frames, lists and tables.

Slides do have geometry: boxes are the shapes' frames in points (72 per inch, like PDFs), origin
at the slide's top left, and page sizes are the slide size. Text inside a shape has no position of
its own, so every element of a shape carries the shape's box.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from extraction.formats.document import Box, Document, Element, ElementType, Page, assign_ids
from extraction.formats.limits import MAX_PAGES, check_page_count, check_zip_container
from extraction.formats.markdown import table_markdown
from extraction.formats.reading_order import reading_order

_EMU_PER_POINT = 12700
# Placeholder types (python-pptx PP_PLACEHOLDER): titles, and bodies whose paragraphs are bulleted
# by the slide master unless a paragraph says otherwise.
_TITLE_TYPES = {1: 1, 3: 1, 4: 2}  # TITLE, CENTER_TITLE -> level 1; SUBTITLE -> level 2
_BULLETED_TYPES = {2, 7}  # BODY, OBJECT


@dataclass(frozen=True)
class _Frame:
    """Maps a group's child coordinates (EMU) to slide coordinates (EMU)."""

    dx: float = 0.0
    dy: float = 0.0
    sx: float = 1.0
    sy: float = 1.0
    ox: float = 0.0
    oy: float = 0.0

    def box(self, shape: Any) -> Box | None:
        if None in (shape.left, shape.top, shape.width, shape.height):
            return None
        x0 = self.dx + (shape.left - self.ox) * self.sx
        y0 = self.dy + (shape.top - self.oy) * self.sy
        return Box(
            x0 / _EMU_PER_POINT,
            y0 / _EMU_PER_POINT,
            (x0 + shape.width * self.sx) / _EMU_PER_POINT,
            (y0 + shape.height * self.sy) / _EMU_PER_POINT,
        )


def parse_pptx(data: bytes, filename: str, *, max_pages: int = MAX_PAGES) -> Document:
    check_zip_container(data)
    import pptx

    presentation = pptx.Presentation(io.BytesIO(data))
    slides = list(presentation.slides)
    check_page_count(len(slides), max_pages)
    width = (presentation.slide_width or 0) / _EMU_PER_POINT
    height = (presentation.slide_height or 0) / _EMU_PER_POINT
    document = Document(filename=filename, format="pptx", page_count=len(slides))
    for number, slide in enumerate(slides, start=1):
        shapes = list(_shapes(slide.shapes, _Frame()))
        placed = [(shape, box) for shape, box in shapes if box is not None]
        unplaced = [(shape, box) for shape, box in shapes if box is None]
        ordered = reading_order(placed, lambda item: item[1] or Box(0, 0, 0, 0), width or 1.0) + unplaced
        elements = [e for shape, box in ordered for e in _shape_elements(shape, box, number)]
        assign_ids(elements)
        document.pages.append(
            Page(page=number, width=width, height=height, confidence=1.0 if elements else None)
        )
        document.elements.extend(elements)
    return document


def _shapes(shapes: Any, frame: _Frame) -> Iterator[tuple[Any, Box | None]]:
    """Leaf shapes with their slide boxes, descending into groups."""
    for shape in shapes:
        if shape.shape_type == 6:  # MSO_SHAPE_TYPE.GROUP
            yield from _shapes(shape.shapes, _child_frame(shape, frame))
        else:
            yield shape, frame.box(shape)


def _child_frame(group: Any, frame: _Frame) -> _Frame:
    xfrm = group._element.grpSpPr.find("{http://schemas.openxmlformats.org/drawingml/2006/main}xfrm")
    outer = frame.box(group)
    if xfrm is None or outer is None:
        return frame
    ns = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
    ch_off, ch_ext = xfrm.find(f"{ns}chOff"), xfrm.find(f"{ns}chExt")
    if ch_off is None or ch_ext is None or not int(ch_ext.get("cx", 0)) or not int(ch_ext.get("cy", 0)):
        return frame
    return _Frame(
        dx=outer.x0 * _EMU_PER_POINT,
        dy=outer.y0 * _EMU_PER_POINT,
        sx=(outer.x1 - outer.x0) * _EMU_PER_POINT / int(ch_ext.get("cx")),
        sy=(outer.y1 - outer.y0) * _EMU_PER_POINT / int(ch_ext.get("cy")),
        ox=int(ch_off.get("x", 0)),
        oy=int(ch_off.get("y", 0)),
    )


def _shape_elements(shape: Any, box: Box | None, number: int) -> list[Element]:
    if getattr(shape, "has_table", False):
        rows = [[cell.text.strip() for cell in row.cells] for row in shape.table.rows]
        rows = [row for row in rows if any(row)]
        if not rows:
            return []
        return [Element(id="", type="table", page=number, text=table_markdown(rows), box=box, rows=rows)]
    if not getattr(shape, "has_text_frame", False):
        return []
    placeholder = _placeholder_type(shape)
    paragraphs = [p for p in shape.text_frame.paragraphs if _text(p)]
    if not paragraphs:
        return []
    if placeholder in _TITLE_TYPES:
        text = " ".join(_text(p) for p in paragraphs)
        return [
            Element(id="", type="title", page=number, text=text, box=box, level=_TITLE_TYPES[placeholder])
        ]
    elements: list[Element] = []
    pending: list[str] = []

    def flush() -> None:
        if pending:
            elements.append(Element(id="", type="text", page=number, text="\n".join(pending), box=box))
            pending.clear()

    for paragraph in paragraphs:
        if _bulleted(paragraph, placeholder in _BULLETED_TYPES):
            flush()
            kind: ElementType = "list"
            elements.append(Element(id="", type=kind, page=number, text=_text(paragraph), box=box))
        else:
            pending.append(_text(paragraph))
    flush()
    return elements


def _placeholder_type(shape: Any) -> int | None:
    if not getattr(shape, "is_placeholder", False):
        return None
    try:
        return int(shape.placeholder_format.type)
    except (ValueError, AttributeError):
        return None


def _text(paragraph: Any) -> str:
    return str(paragraph.text).replace("\x0b", "\n").strip()


def _bulleted(paragraph: Any, bulleted_by_default: bool) -> bool:
    properties = paragraph._p.pPr
    if properties is not None:
        tags = {child.tag.rsplit("}", 1)[-1] for child in properties}
        if "buNone" in tags:
            return False
        if tags & {"buChar", "buAutoNum"}:
            return True
    return bulleted_by_default
