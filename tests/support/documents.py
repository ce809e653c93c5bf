"""Small documents generated on the fly for the extraction tests (nothing is downloaded)."""

from __future__ import annotations

import io
from typing import Any


def pdf_text(pages: list[list[str]]) -> bytes:
    """A PDF whose page i holds the lines pages[i] in 11 pt Helvetica."""
    import pymupdf

    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page(width=595, height=842)
        y = 72.0
        for line in lines:
            page.insert_text((72, y), line, fontsize=11, fontname="helv")
            y += 18
    data = doc.tobytes()
    doc.close()
    return bytes(data)


def pdf_scan(pages: list[list[str]]) -> bytes:
    """An image-only PDF (a scan: no text layer) whose page i shows the lines pages[i], read by OCR."""
    import pymupdf

    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page(width=595, height=842)
        page.insert_image(page.rect, stream=image("PNG", "\n".join(lines), size=(1240, 1754)))
    data = doc.tobytes(deflate=True)
    doc.close()
    return bytes(data)


def pdf_form(values: dict[str, str]) -> bytes:
    """A one-page PDF form: a label and a filled text widget per field."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 100.0
    for name, value in values.items():
        page.insert_text((72, y + 14), f"{name}:", fontsize=11, fontname="helv")
        widget = pymupdf.Widget()
        widget.field_name = name
        widget.field_type = pymupdf.PDF_WIDGET_TYPE_TEXT
        widget.rect = pymupdf.Rect(220, y, 500, y + 20)
        widget.field_value = value
        page.add_widget(widget)
        y += 40
    data = doc.tobytes()
    doc.close()
    return bytes(data)


def image(fmt: str, text: str = "Invoice 12345", size: tuple[int, int] = (600, 200)) -> bytes:
    """An image with black text on white, saved as `fmt` (PNG, JPEG, TIFF, BMP, WEBP)."""
    from PIL import Image, ImageDraw, ImageFont

    picture = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(picture)
    draw.multiline_text((20, 60), text, fill="black", font=ImageFont.load_default(size=40), spacing=24)
    out = io.BytesIO()
    picture.save(out, format=fmt)
    return out.getvalue()


def docx(paragraphs: list[str]) -> bytes:
    import docx as python_docx

    document = python_docx.Document()
    for text in paragraphs:
        document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def xlsx(rows: list[list[Any]]) -> bytes:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def pptx(titles: list[str]) -> bytes:
    import pptx as python_pptx

    deck = python_pptx.Presentation()
    for title in titles:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def zip_bomb_docx(expanded_bytes: int = 2 * 1024**3) -> bytes:
    """A .docx-shaped ZIP whose document part inflates to `expanded_bytes` of spaces."""
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            block = b" " * (1024 * 1024)
            for _ in range(expanded_bytes // len(block)):
                member.write(block)
    return out.getvalue()


def intake_form(name: str, birth: str, chart: str) -> bytes:
    """A flattened intake form of one design: printed labels and rules, the answers typed on the rules."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), "Riverside Clinic - Patient Intake Sheet", fontsize=15, fontname="helv")
    page.insert_text(
        (72, 80), "Please print clearly. Office use section at the bottom.", fontsize=9, fontname="helv"
    )
    y = 130
    for label, value in (("Patient name", name), ("Date of birth", birth), ("Chart ref.", chart)):
        page.insert_text((72, y), label, fontsize=11, fontname="helv")
        page.draw_line((200, y + 3), (520, y + 3))
        page.insert_text((210, y), value, fontsize=11, fontname="cour")
        y += 40
    page.insert_text((72, 700), "Signature of patient or guardian", fontsize=9, fontname="helv")
    page.insert_text((72, 720), "Form RC-114 rev. 3", fontsize=8, fontname="helv")
    data = doc.tobytes()
    doc.close()
    return bytes(data)
