"""Make the example documents the README uses: one invented patient's intake form, three ways.

    .venv/bin/python examples/make_examples.py      # rewrites the files beside this script

- `intake.pdf`: a fillable form whose fields are named `first_name`, `last_name`, `dob`, `account`
  and so on, filled in (the intake-form-to-patient demo reads `account` from it);
- `intake-flat.pdf`: the same form printed, labels and values as page text, no form fields;
- `intake-scan.pdf`: that printed page scanned: a grey, slightly tilted image with no text layer,
  so it is read by OCR.

The patient is invented. The output is deterministic (no timestamps, a fixed noise seed), so running
the script again leaves the committed files unchanged unless the script changed.
"""

from __future__ import annotations

import io
import random
from pathlib import Path

import pymupdf
from PIL import Image, ImageFilter

HERE = Path(__file__).resolve().parent

#: (form field name, label printed beside it, value). `account` is the practice-management account
#: docs/agents.md's sandbox allows (`acct-1`); the date of birth reads the same in either day order.
FIELDS = [
    ("first_name", "First name", "Maria"),
    ("last_name", "Last name", "Delgado"),
    ("dob", "Date of birth", "04/26/1986"),
    ("sex", "Sex", "F"),
    ("phone", "Phone", "(303) 555-0148"),
    ("email", "Email", "maria.delgado@example.com"),
    ("address", "Address", "1420 Larimer St, Denver, CO 80202"),
    ("insurance", "Insurance", "Example Health PPO"),
    ("member_id", "Member ID", "EXH-448120937"),
    ("account", "Account", "acct-1"),
]

PAGE = pymupdf.Rect(0, 0, 612, 792)  # US Letter
LABEL_X, VALUE_X, VALUE_RIGHT = 72, 200, 520
TOP, ROW = 150, 34


def _header(page: pymupdf.Page) -> None:
    page.insert_text((72, 90), "Front Range Family Clinic", fontsize=16, fontname="hebo")
    page.insert_text((72, 115), "New Patient Intake Form", fontsize=13, fontname="helv")
    page.draw_line((72, 125), (540, 125), width=0.8)


def _rows() -> list[tuple[str, str, str, float]]:
    return [(name, label, value, TOP + i * ROW) for i, (name, label, value) in enumerate(FIELDS)]


def _signature(page: pymupdf.Page, y: float) -> None:
    page.insert_text(
        (72, y), "Signature: Maria Delgado        Date: 03/14/2025", fontsize=11, fontname="helv"
    )


def fillable() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=PAGE.width, height=PAGE.height)
    _header(page)
    for name, label, value, y in _rows():
        page.insert_text((LABEL_X, y + 14), f"{label}:", fontsize=12, fontname="helv")
        widget = pymupdf.Widget()
        widget.field_name = name
        widget.field_label = label
        widget.field_type = pymupdf.PDF_WIDGET_TYPE_TEXT
        widget.rect = pymupdf.Rect(VALUE_X, y, VALUE_RIGHT, y + 20)
        widget.field_value = value
        widget.text_fontsize = 11
        page.add_widget(widget)
    _signature(page, TOP + len(FIELDS) * ROW + 30)
    return _save(doc)


def flat() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=PAGE.width, height=PAGE.height)
    _header(page)
    for _name, label, value, y in _rows():
        page.insert_text((LABEL_X, y + 14), f"{label}:", fontsize=12, fontname="helv")
        page.insert_text((VALUE_X + 4, y + 14), value, fontsize=11, fontname="cour")
        page.draw_line((VALUE_X, y + 18), (VALUE_RIGHT, y + 18), width=0.4)
    _signature(page, TOP + len(FIELDS) * ROW + 30)
    return _save(doc)


def scan(printed: bytes) -> bytes:
    """The printed page as a scanner gives it: 200 dpi grey, tilted, speckled, JPEG in a PDF."""
    with pymupdf.open(stream=printed, filetype="pdf") as doc:
        pixmap = doc[0].get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
        picture = Image.open(io.BytesIO(pixmap.tobytes("png"))).convert("L")
    picture = picture.rotate(0.8, resample=Image.Resampling.BICUBIC, fillcolor=255, expand=False)
    noise = random.Random(18)
    pixels = picture.load()
    assert pixels is not None
    width, height = picture.size
    for _ in range(width * height // 400):
        x, y = noise.randrange(width), noise.randrange(height)
        pixels[x, y] = noise.randrange(120, 200)
    picture = picture.filter(ImageFilter.GaussianBlur(0.4))
    jpeg = io.BytesIO()
    picture.save(jpeg, format="JPEG", quality=50)
    doc = pymupdf.open()
    page = doc.new_page(width=PAGE.width, height=PAGE.height)
    page.insert_image(PAGE, stream=jpeg.getvalue())
    return _save(doc)


def _save(doc: pymupdf.Document) -> bytes:
    # No creation or modification dates, so the same script gives the same bytes.
    doc.set_metadata({"title": "New Patient Intake Form (example, invented patient)"})
    data = bytes(doc.tobytes(garbage=4, deflate=True, no_new_id=True))
    doc.close()
    return data


def main() -> None:
    printed = flat()
    outputs = {"intake.pdf": fillable(), "intake-flat.pdf": printed, "intake-scan.pdf": scan(printed)}
    for name, data in outputs.items():
        (HERE / name).write_bytes(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
