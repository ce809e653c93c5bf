"""Bilevel pages (faxes, 1-bit scans) are told from grey ones and despeckled before OCR."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image, ImageDraw

from extraction.formats.bilevel import despeckled, is_bilevel, one_bit_images

pytestmark = pytest.mark.unit


def _fax() -> Image.Image:
    """A black-and-white page: a thick bar of 'print' and lone black specks on the white below it."""
    image = Image.new("L", (400, 300), 255)
    ImageDraw.Draw(image).rectangle((50, 100, 350, 120), fill=0)
    rng = random.Random(4)
    for x in range(5, 400, 10):
        for y in range(205, 300, 10):
            image.putpixel((x + rng.randrange(-2, 3), y + rng.randrange(-2, 3)), 0)
    return image


def test_black_and_white_pages_are_bilevel_and_grey_ones_are_not() -> None:
    assert is_bilevel(_fax())
    assert is_bilevel(_fax().convert("1"))
    assert is_bilevel(_fax().convert("RGB"))
    grey = _fax()
    ImageDraw.Draw(grey).rectangle((50, 150, 350, 190), fill=128)
    assert not is_bilevel(grey)


def test_despeckling_drops_lone_specks_and_keeps_every_stroke() -> None:
    page = _fax()
    draw = ImageDraw.Draw(page)
    # Strokes one pixel thin (a hairline, a diagonal) and a one-pixel hole in the bar stay as they are.
    draw.line((50, 40, 350, 40), fill=0)
    draw.line((50, 50, 150, 90), fill=0)
    page.putpixel((200, 110), 255)
    assert despeckled(page).mode == "RGB"
    cleaned = despeckled(page).convert("L")
    specks_left = sum(1 for x in range(400) for y in range(200, 300) if cleaned.getpixel((x, y)) < 128)
    assert specks_left == 0
    assert all(cleaned.getpixel((x, 40)) == 0 for x in range(50, 351))
    assert cleaned.getpixel((100, 70)) == 0 and cleaned.getpixel((150, 90)) == 0
    assert cleaned.getpixel((200, 110)) == 0


def test_a_pdf_page_of_one_bit_images_is_told_from_a_grey_one() -> None:
    import pymupdf

    def page_with(image: Image.Image) -> bool:
        out = io.BytesIO()
        image.save(out, "PNG")
        doc = pymupdf.open()
        page = doc.new_page(width=400, height=300)
        page.insert_image(page.rect, stream=out.getvalue())
        reopened = pymupdf.open("pdf", doc.tobytes())
        return one_bit_images(reopened[0])

    assert page_with(_fax().convert("1"))
    grey = _fax()
    ImageDraw.Draw(grey).rectangle((50, 150, 350, 190), fill=128)
    assert not page_with(grey)
    assert not one_bit_images(pymupdf.open().new_page())
