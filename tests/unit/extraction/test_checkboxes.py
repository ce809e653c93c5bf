"""Check boxes found in page pixels: on a blurred, unevenly lit photo, and not in clean text."""

from __future__ import annotations

from typing import Any

from extraction.formats.checkboxes import _square_outlines, find_checkboxes
from extraction.formats.document import Box
from extraction.formats.ocr import OcrLine


def _line(text: str, height: int = 24) -> OcrLine:
    """One OCR line across the test page, `height` pixels high: the scale boxes are judged by."""
    points = ((0.0, 18.0), (600.0, 18.0), (600.0, 18.0 + height), (0.0, 18.0 + height))
    return OcrLine(text, points, 0.95, ((text, Box(0, 18, 600, 18 + height)),))


def _photographed(image: Any) -> Any:
    """`image` as a phone photographs it: dim at one side, grey ink, out of focus."""
    import numpy as np
    from PIL import Image, ImageFilter

    pixels = np.asarray(image.convert("L"), dtype=np.float32)
    # Ink printed grey, then light falling from the right to half of it at the left.
    pixels = np.where(pixels < 128, 95.0, pixels)
    light = np.linspace(0.5, 1.0, pixels.shape[1], dtype=np.float32)[None, :]
    dimmed = Image.fromarray(np.clip(pixels * light, 0, 255).astype(np.uint8))
    return dimmed.filter(ImageFilter.GaussianBlur(1.2))


def test_thin_boxes_in_the_dim_corner_of_a_blurred_photo_are_found() -> None:
    import cv2
    import numpy as np
    from PIL import Image, ImageDraw

    image = Image.new("L", (600, 60), 255)
    draw = ImageDraw.Draw(image)
    draw.rectangle((30, 20, 50, 40), outline=0, width=1)
    draw.line((34, 24, 46, 36), fill=0, width=2)
    draw.line((34, 36, 46, 24), fill=0, width=2)
    draw.rectangle((100, 20, 120, 40), outline=0, width=1)
    photo = _photographed(image)
    # The page's one threshold loses both outlines: the case the local threshold is there for.
    _, ink = cv2.threshold(np.asarray(photo), 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    assert _square_outlines(ink, 24) == []

    found = [(round(x / 10), ticked) for x, _, _, _, ticked in find_checkboxes(photo, [_line("x")])]
    assert sorted(found) == [(3, True), (10, False)]


def test_a_filled_box_stays_ticked() -> None:
    from PIL import Image, ImageDraw

    # A local threshold hollows a filled square out; the page's threshold reads it filled.
    image = Image.new("L", (600, 60), 255)
    ImageDraw.Draw(image).rectangle((100, 20, 120, 40), fill=0)
    assert [ticked for *_, ticked in find_checkboxes(image, [_line("x")])] == [True]


def test_letters_digits_and_table_cells_are_not_boxes() -> None:
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (600, 60), 255)
    draw = ImageDraw.Draw(image)
    draw.text((10, 16), "OD0 Q8 DOB 0000 Oo", fill=0, font=ImageFont.load_default(size=26))
    draw.text((330, 16), "OD0", fill=0, font=ImageFont.load_default(size=32))
    # A table row: cells of a line's height, wider than tall.
    for x in range(430, 590, 40):
        draw.rectangle((x, 18, x + 40, 42), outline=0, width=1)
    lines = [_line("OD0 Q8 DOB 0000 Oo OD0")]
    assert find_checkboxes(image, lines) == []
    assert find_checkboxes(_photographed(image), lines) == []
