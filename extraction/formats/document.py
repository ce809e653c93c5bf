"""The document model every engine produces: pages, elements and their provenance.

Engines are pure functions from bytes to a `Document`. Everything downstream (markdown, field
extraction, classification, citations) reads only this model, so a new format needs only an engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ElementType = Literal["title", "text", "list", "table", "image", "form_field", "header", "footer"]

#: Where a page's or a value's text came from; it is what `confidence_source` reports.
ConfidenceSource = Literal["text_layer", "form_fields", "ocr", "model"]

Point = dict[str, float]


@dataclass(frozen=True)
class Box:
    """A rectangle in page pixels, origin top-left (72 dpi for PDFs, native pixels for images)."""

    x0: float
    y0: float
    x1: float
    y1: float

    def as_list(self) -> list[float]:
        return [round(self.x0, 2), round(self.y0, 2), round(self.x1, 2), round(self.y1, 2)]

    def normalized(self, width: float, height: float) -> list[Point]:
        """Four corners clockwise from the top left, each coordinate scaled to 0..1."""
        w = width or 1.0
        h = height or 1.0

        def pt(x: float, y: float) -> Point:
            return {"x": round(min(max(x / w, 0.0), 1.0), 6), "y": round(min(max(y / h, 0.0), 1.0), 6)}

        return [pt(self.x0, self.y0), pt(self.x1, self.y0), pt(self.x1, self.y1), pt(self.x0, self.y1)]

    def union(self, other: Box) -> Box:
        return Box(
            min(self.x0, other.x0), min(self.y0, other.y0), max(self.x1, other.x1), max(self.y1, other.y1)
        )


@dataclass
class Element:
    """One unit of content in reading order, with where it sits in the source."""

    id: str
    type: ElementType
    page: int
    text: str
    box: Box | None = None
    #: Spreadsheet provenance (replaces the box).
    sheet: str | None = None
    cell: str | None = None
    #: Text-file provenance, 1-based inclusive (replaces the box).
    line_start: int | None = None
    line_end: int | None = None
    #: 0..1: how sure the engine is of `text` (1.0 for a text layer, the OCR score otherwise).
    confidence: float = 1.0
    source: ConfidenceSource = "text_layer"
    #: Heading level for titles (1 = largest), None otherwise.
    level: int | None = None
    #: Form widgets: the field's name; `text` holds its value.
    field_name: str | None = None
    #: Tables: rows of cell texts, so field extraction can read key-value rows.
    rows: list[list[str]] | None = None
    #: Lines inside this element with their own boxes, for citing a part of a block. For tables,
    #: one entry per non-empty cell in row-major order, with the cell's box.
    lines: list[Line] = field(default_factory=list)
    #: Id of the element this one is a finer-grained part of (a CSV row or a spreadsheet cell of its
    #: table). Renderers and `Document.text` skip parts, since their container already holds the text.
    parent: str | None = None


@dataclass(frozen=True)
class Word:
    """A word of a line with its own box: what the layout of a form (columns of labels over
    values, a value right of its label) is read from."""

    text: str
    box: Box


@dataclass
class Line:
    """A visual line of text with its box (PDF text lines, OCR lines)."""

    text: str
    box: Box
    confidence: float = 1.0
    #: The line's words left to right, when the engine knows where each one is.
    words: list[Word] = field(default_factory=list)


@dataclass
class Page:
    page: int
    #: Size in the unit of the element boxes; 0 when the format has no geometry (Word, Excel,
    #: text files), which the API reports by omitting width and height.
    width: float
    height: float
    #: Mean confidence of the page's text; None when the page has no text at all.
    confidence: float | None = None
    source: ConfidenceSource = "text_layer"
    #: A name the format gives the page (a spreadsheet's sheet name), None otherwise.
    label: str | None = None


@dataclass(frozen=True)
class EmbeddedValue:
    """A value the file states for machines besides its pages: an e-invoice attached to a PDF
    (`einvoice.py`). Not content of a page, so no element and no box."""

    #: What the value is, in `einvoice.py`'s vocabulary: `seller.city`, `totals.tax`, ...
    key: str
    #: The same in words, for people: "Seller city".
    label: str
    value: str
    #: The attachment it was read from.
    source: str


@dataclass
class Document:
    filename: str
    format: str
    pages: list[Page] = field(default_factory=list)
    elements: list[Element] = field(default_factory=list)
    #: Pages of the whole source; a document parsed from a page range holds only some of them.
    page_count: int = 0
    #: Values stated for machines in the file itself (an attached e-invoice), in its order.
    embedded: list[EmbeddedValue] = field(default_factory=list)

    def page(self, number: int) -> Page | None:
        return next((p for p in self.pages if p.page == number), None)

    @property
    def text(self) -> str:
        return "\n".join(e.text for e in self.elements if e.text and e.parent is None)


def assign_ids(elements: list[Element]) -> None:
    """Number elements in order within each page, so ids depend only on the page's own content."""
    counts: dict[int, int] = {}
    for element in elements:
        counts[element.page] = counts.get(element.page, 0) + 1
        element.id = element_id(element.page, counts[element.page])


def element_id(page: int, n: int) -> str:
    """The id of the `n`-th element (1-based) of `page`: unique in a document and stable when page
    ranges parsed apart are merged."""
    return f"p{page}-e{n}"
