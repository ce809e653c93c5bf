"""Small documents of every format, generated with the libraries that write them."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from typing import Any

WORDS = ("INVOICE", "TOTAL", "AMOUNT")


def _pymupdf() -> Any:
    import pymupdf

    return pymupdf


def pdf_with_everything() -> bytes:
    """One page: a title, a paragraph, a bulleted list, a ruled 3 x 3 table and four form widgets."""
    pymupdf = _pymupdf()
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 72), "Quarterly Report", fontsize=24)
    page.insert_text((72, 110), "This paragraph explains the report in plain words.", fontsize=11)
    page.insert_text((72, 126), "It continues on a second line of body text.", fontsize=11)
    page.insert_text((72, 160), "\u2022 First point", fontsize=11)
    page.insert_text((72, 176), "\u2022 Second point", fontsize=11)
    # A ruled table: 3 rows x 3 columns.
    x = [72, 202, 332, 462]
    y = [200, 222, 244, 266]
    for yy in y:
        page.draw_line((x[0], yy), (x[-1], yy))
    for xx in x:
        page.draw_line((xx, y[0]), (xx, y[-1]))
    cells = [["Item", "Qty", "Price"], ["Apple", "3", "1.20"], ["Pear", "5", "0.80"]]
    for r, row in enumerate(cells):
        for c, text in enumerate(row):
            page.insert_text((x[c] + 4, y[r] + 15), text, fontsize=10)
    page.insert_text((72, 320), "Applicant name:", fontsize=11)
    _widget(page, pymupdf.PDF_WIDGET_TYPE_TEXT, "applicant", "Ada Lovelace", (180, 306, 380, 324))
    _widget(page, pymupdf.PDF_WIDGET_TYPE_CHECKBOX, "subscribed", True, (180, 340, 194, 354))
    _widget(page, pymupdf.PDF_WIDGET_TYPE_CHECKBOX, "unsubscribed", False, (220, 340, 234, 354))
    combo = pymupdf.Widget()
    combo.field_type = pymupdf.PDF_WIDGET_TYPE_COMBOBOX
    combo.field_name = "country"
    combo.choice_values = ["France", "Japan", "Peru"]
    combo.field_value = "Japan"
    combo.rect = pymupdf.Rect(180, 370, 300, 388)
    page.add_widget(combo)
    return bytes(doc.tobytes())


def _widget(page: Any, kind: int, name: str, value: Any, rect: tuple[float, ...]) -> None:
    pymupdf = _pymupdf()
    widget = pymupdf.Widget()
    widget.field_type = kind
    widget.field_name = name
    widget.field_value = value
    widget.rect = pymupdf.Rect(*rect)
    page.add_widget(widget)


def pdf_pages(count: int, *, rotation: int = 0) -> bytes:
    pymupdf = _pymupdf()
    doc = pymupdf.open()
    for number in range(1, count + 1):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 100), f"This is page number {number} of the test document.", fontsize=12)
        if rotation:
            page.set_rotation(rotation)
    return bytes(doc.tobytes())


def encrypted_pdf() -> bytes:
    pymupdf = _pymupdf()
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Secret contents of the document", fontsize=12)
    return bytes(doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner"))


def text_image(words: tuple[str, ...] = WORDS, *, dpi: int = 150) -> Any:
    """A Pillow image of large black words on white, rendered with PyMuPDF's built-in font."""
    from PIL import Image

    pymupdf = _pymupdf()
    doc = pymupdf.open()
    page = doc.new_page(width=420, height=80 + 60 * len(words))
    for i, word in enumerate(words):
        page.insert_text((40, 70 + 60 * i), word, fontsize=36)
    pix = page.get_pixmap(dpi=dpi, alpha=False)
    return Image.frombytes("RGB", (pix.width, pix.height), pix.samples)


def image_bytes(image: Any, fmt: str, **save: Any) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt, **save)
    return out.getvalue()


def scanned_pdf(words: tuple[str, ...] = WORDS) -> bytes:
    """A PDF page that holds only a picture of text (no text layer)."""
    pymupdf = _pymupdf()
    png = image_bytes(text_image(words), "PNG")
    doc = pymupdf.open()
    page = doc.new_page(width=420, height=80 + 60 * len(words))
    page.insert_image(page.rect, stream=png)
    return bytes(doc.tobytes())


def png_bomb(width: int = 100_000, height: int = 100_000) -> bytes:
    """A PNG whose header declares a huge canvas; its few data bytes would inflate to gigabytes."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


def docx_document() -> bytes:
    import docx

    document = docx.Document()
    document.add_heading("Annual Summary", 0)
    document.add_heading("Results", 1)
    document.add_paragraph("Revenue grew in every region.")
    document.add_paragraph("North", style="List Bullet")
    document.add_paragraph("South", style="List Bullet")
    table = document.add_table(rows=2, cols=2)
    for (r, c), text in {(0, 0): "Region", (0, 1): "Revenue", (1, 0): "North", (1, 1): "1,200"}.items():
        table.cell(r, c).text = text
    document.sections[0].footer.paragraphs[0].text = "Confidential"
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def xlsx_workbook() -> bytes:
    import datetime as dt

    import openpyxl

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Invoices"
    sheet["A1"], sheet["B1"], sheet["C1"] = "Number", "Date", "Total"
    sheet["A2"], sheet["B2"], sheet["C2"] = "INV-7", dt.datetime(2024, 3, 5), 1234.5
    sheet["C2"].number_format = "#,##0.00"
    sheet["A4"] = "Paid"
    sheet["B4"] = True
    notes = workbook.create_sheet("Notes")
    notes["B3"] = "Remember the deadline"
    workbook.create_sheet("Empty")
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def pptx_presentation() -> bytes:
    import pptx
    from pptx.util import Inches

    presentation = pptx.Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[1])
    slide.shapes.title.text = "Launch Plan"
    body = slide.placeholders[1].text_frame
    body.text = "Build the prototype"
    body.add_paragraph().text = "Ship to customers"
    second = presentation.slides.add_slide(presentation.slide_layouts[5])
    second.shapes.title.text = "Budget"
    table = second.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(4), Inches(1)).table
    for (r, c), text in {(0, 0): "Item", (0, 1): "Cost", (1, 0): "Servers", (1, 1): "900"}.items():
        table.cell(r, c).text = text
    box = second.shapes.add_textbox(Inches(1), Inches(4), Inches(4), Inches(1))
    box.text_frame.text = "Approved by the board"
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()


def zip_with(base: bytes, extra: dict[str, bytes]) -> bytes:
    """`base` (a ZIP) with more members added, deflated."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(base)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for item in source.infolist():
            target.writestr(item, source.read(item))
        for name, data in extra.items():
            target.writestr(name, data)
    return out.getvalue()
