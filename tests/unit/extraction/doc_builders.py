"""Small hand-built Documents for extraction unit tests."""

from __future__ import annotations

from extraction.fields import FieldResult, extract_fields
from extraction.formats.document import Box, Document, Element, Line, Page, Word


class DocBuilder:
    """Adds elements in reading order to a one-page (or more) document."""

    def __init__(self, width: float = 600, height: float = 800, pages: int = 1, source: str = "text_layer"):
        self.doc = Document(
            "test.pdf",
            "pdf",
            [Page(n, width, height, 1.0, source) for n in range(1, pages + 1)],  # type: ignore[arg-type]
        )
        self.source = source

    def line(
        self,
        text: str,
        x0: float,
        y0: float,
        x1: float | None = None,
        y1: float | None = None,
        *,
        page: int = 1,
        confidence: float = 1.0,
    ) -> Element:
        """One element holding one visual line (as an OCR engine gives them)."""
        box = Box(x0, y0, x1 if x1 is not None else x0 + 8 * len(text), y1 if y1 is not None else y0 + 14)
        element = Element(
            id=f"e{len(self.doc.elements)}",
            type="text",
            page=page,
            text=text,
            box=box,
            confidence=confidence,
            source=self.source,  # type: ignore[arg-type]
            lines=[Line(text, box, confidence)],
        )
        self.doc.elements.append(element)
        return element

    def block(self, lines: list[tuple[str, Box]], *, page: int = 1) -> Element:
        """One element holding several visual lines (a PDF text block)."""
        box = lines[0][1]
        for _, b in lines[1:]:
            box = box.union(b)
        element = Element(
            id=f"e{len(self.doc.elements)}",
            type="text",
            page=page,
            text="\n".join(t for t, _ in lines),
            box=box,
            lines=[Line(t, b) for t, b in lines],
        )
        self.doc.elements.append(element)
        return element

    def form_field(self, name: str, value: str, box: Box | None = None, *, page: int = 1) -> Element:
        element = Element(
            id=f"e{len(self.doc.elements)}",
            type="form_field",
            page=page,
            text=value,
            box=box or Box(100, 100, 200, 120),
            field_name=name,
            source="form_fields",
        )
        self.doc.elements.append(element)
        return element

    def table(
        self, rows: list[list[str]], box: Box, *, page: int = 1, cell_boxes: list[Box] | None = None
    ) -> Element:
        """A table; `cell_boxes` (one per non-empty cell, row by row) as a PDF engine gives them."""
        cells = [c for row in rows for c in row if c.strip()]
        element = Element(
            id=f"e{len(self.doc.elements)}",
            type="table",
            page=page,
            text="\n".join(" | ".join(r) for r in rows),
            box=box,
            rows=rows,
            lines=[Line(t, b) for t, b in zip(cells, cell_boxes, strict=True)] if cell_boxes else [],
        )
        self.doc.elements.append(element)
        return element


def sheet_document(cells: dict[str, str], sheet: str = "Sheet1") -> Document:
    doc = Document("book.xlsx", "xlsx", [Page(1, 0, 0)])
    for ref, text in cells.items():
        doc.elements.append(Element(id=ref, type="text", page=1, text=text, sheet=sheet, cell=ref))
    return doc


def text_document(text: str) -> Document:
    """A text file: one element per line with its line number."""
    doc = Document("notes.txt", "text", [Page(1, 0, 0)])
    for number, line in enumerate(text.split("\n"), start=1):
        if line:
            doc.elements.append(
                Element(id=f"l{number}", type="text", page=1, text=line, line_start=number, line_end=number)
            )
    return doc


def extract(doc: Document, *names: str) -> dict[str, FieldResult]:
    """The field results rules-mode extraction gives for `names`, cited as `doc.pdf`."""
    return extract_fields(doc, list(names), file_name="doc.pdf")


def values(builder: DocBuilder, names: list[str]) -> dict[str, object]:
    """The values rules-mode extraction reads for `names` from the builder's document."""
    results = extract_fields(builder.doc, names, file_name="form.png")
    return {name: result.value for name, result in results.items()}


def word_line(b: DocBuilder, y: float, pieces: list[tuple[str, float]], height: float = 10.0) -> Element:
    """One text line whose words stand where `pieces` say (x of each word; 6 pt per character)."""
    words = [Word(t, Box(x, y, x + 6 * len(t), y + height)) for t, x in pieces]
    box = Box(words[0].box.x0, y, words[-1].box.x1, y + height)
    text = " ".join(t for t, _ in pieces)
    element = Element(id=f"e{len(b.doc.elements)}", type="text", page=1, text=text, box=box)
    element.lines = [Line(text, box, 1.0, words)]
    b.doc.elements.append(element)
    return element
