"""DEV ONLY: Documents built without the real engines, so field extraction can be measured early.

- receipts (`NNN.jpg` with `NNN.csv` beside it): the corpus's own OCR lines
  (`x1,y1,...,x4,y4,text`), one element per line, page size from the image;
- PDFs: PyMuPDF text lines with boxes (`page.get_text("dict")`) and form widgets.
`corpus_quality.py --in-process` uses this only when `extraction.formats.engines` is not importable (or
with `--dev-loader`); the figures it gives are not the product's figures.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from extraction.formats.document import Box, Document, Element, Line, Page


def load_document(path: Path) -> Document:
    if path.suffix.lower() == ".pdf":
        return _pdf(path)
    csv_path = path.with_suffix(".csv")
    if csv_path.exists():
        return _ocr_lines(path, csv_path)
    raise ValueError(f"the dev loader reads PDFs and corpus receipts only, not {path.name}")


def _ocr_lines(image: Path, csv_path: Path) -> Document:
    from PIL import Image

    with Image.open(image) as img:
        width, height = img.size
    elements: list[Element] = []
    for number, row in enumerate(csv_path.read_text(encoding="utf-8", errors="replace").splitlines()):
        parts = row.split(",", 8)
        if len(parts) < 9 or not parts[8].strip():
            continue
        xs = [float(v) for v in parts[0:8:2]]
        ys = [float(v) for v in parts[1:8:2]]
        box = Box(min(xs), min(ys), max(xs), max(ys))
        text = parts[8].strip()
        elements.append(
            Element(
                id=f"e{number}",
                type="text",
                page=1,
                text=text,
                box=box,
                source="ocr",
                lines=[Line(text=text, box=box)],
            )
        )
    elements.sort(key=lambda e: (e.box.y0 if e.box else 0.0, e.box.x0 if e.box else 0.0))
    return Document(image.name, "image", [Page(1, width, height, 1.0, "ocr")], elements)


def _decode_pdf_string(token: str) -> str:
    token = token.strip()
    if token.startswith("<") and token.endswith(">"):
        data = bytes.fromhex(token[1:-1])
        return data[2:].decode("utf-16-be") if data.startswith(b"\xfe\xff") else data.decode("latin-1")
    return token.strip("()")


def _radio_options(pdf: Any, widget: Any) -> list[str]:
    import re

    parent = pdf.xref_get_key(widget.xref, "Parent")
    if parent[0] != "xref":
        return []
    kind, value = pdf.xref_get_key(int(parent[1].split()[0]), "Opt")
    if kind != "array":
        return []
    return [_decode_pdf_string(t) for t in re.findall(r"<[0-9A-Fa-f]*>|\((?:[^()\\]|\\.)*\)", value)]


def _widget_value(pdf: Any, widget: Any) -> str:
    import pymupdf

    pymupdf_any: Any = pymupdf
    value = widget.field_value
    if widget.field_type == pymupdf_any.PDF_WIDGET_TYPE_CHECKBOX:
        return "false" if value in (None, "", "Off", False) else "true"
    if widget.field_type == pymupdf_any.PDF_WIDGET_TYPE_RADIOBUTTON:
        state = pdf.xref_get_key(widget.xref, "AS")[1].lstrip("/")
        if state in ("", "Off", "null"):
            return "Off"
        options = _radio_options(pdf, widget)
        return options[int(state)] if state.isdigit() and int(state) < len(options) else state
    return "" if value is None else str(value)


def _pdf(path: Path) -> Document:
    import pymupdf

    pymupdf_any: Any = pymupdf
    pdf: Any = pymupdf_any.open(path)
    pages: list[Page] = []
    elements: list[Element] = []
    for index, page in enumerate(pdf):
        number = index + 1
        pages.append(Page(number, page.rect.width, page.rect.height, 1.0, "text_layer"))
        for block in page.get_text("dict")["blocks"]:
            if block.get("type") != 0:
                continue
            lines = []
            for line in block["lines"]:
                text = "".join(span["text"] for span in line["spans"]).strip()
                if text:
                    lines.append(Line(text=text, box=Box(*line["bbox"])))
            if lines:
                elements.append(
                    Element(
                        id=f"p{number}b{len(elements)}",
                        type="text",
                        page=number,
                        text="\n".join(line.text for line in lines),
                        box=Box(*block["bbox"]),
                        lines=lines,
                    )
                )
        for widget in page.widgets() or []:
            if widget.field_type in (
                pymupdf_any.PDF_WIDGET_TYPE_BUTTON,
                pymupdf_any.PDF_WIDGET_TYPE_SIGNATURE,
            ):
                continue
            r = widget.rect
            elements.append(
                Element(
                    id=f"p{number}w{len(elements)}",
                    type="form_field",
                    page=number,
                    text=_widget_value(pdf, widget),
                    box=Box(r.x0, r.y0, r.x1, r.y1),
                    field_name=widget.field_name,
                    source="form_fields",
                )
            )
    return Document(path.name, "pdf", pages, elements)
