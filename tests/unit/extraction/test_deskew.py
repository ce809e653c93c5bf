"""A slanted scan is levelled before OCR, and its lines can be put back where the page had them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from extraction.formats.deskew import MIN_SKEW_DEGREES, deskewed, skew_angle, turned_back
from extraction.formats.document import Box
from extraction.formats.ocr import OcrLine

if TYPE_CHECKING:
    from PIL import Image


def _page_of_lines(angle: float) -> Image.Image:
    """A page of ten text-like bars, turned `angle` degrees counter-clockwise."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (800, 1000), (240, 240, 235))
    draw = ImageDraw.Draw(image)
    for row in range(10):
        y = 120 + 70 * row
        # Dashes of uneven length, as words are.
        x = 80
        for k in range(9):
            length = 40 + (k * 37 + row * 13) % 60
            draw.rectangle((x, y, x + length, y + 14), fill="black")
            x += length + 18
    return image.rotate(angle, fillcolor=(240, 240, 235)) if angle else image


@pytest.mark.parametrize("angle", [-2.5, -1.0, 0.8, 3.0])
def test_the_skew_is_the_turn_that_levels_the_lines(angle: float) -> None:
    image = _page_of_lines(angle)
    assert skew_angle(image) == pytest.approx(-angle, abs=0.15)
    level, turned = deskewed(image)
    assert turned == pytest.approx(-angle, abs=0.15)
    assert abs(skew_angle(level)) < 0.15
    assert level.size == image.size


def test_a_level_or_blank_page_is_left_alone() -> None:
    from PIL import Image

    level = _page_of_lines(0.0)
    assert abs(skew_angle(level)) < MIN_SKEW_DEGREES
    assert deskewed(level)[0] is level
    blank = Image.new("RGB", (300, 300), "white")
    assert skew_angle(blank) == 0.0
    assert deskewed(blank) == (blank, 0.0)


def test_lines_read_level_go_back_to_the_slanted_page() -> None:
    # A point right of the centre, on a page turned 2 degrees counter-clockwise to level it,
    # was lower on the page as scanned.
    line = OcrLine(
        "Name: Ann",
        ((500.0, 100.0), (700.0, 100.0), (700.0, 120.0), (500.0, 120.0)),
        0.9,
        (("Name:", Box(500, 100, 580, 120)), ("Ann", Box(600, 100, 700, 120))),
    )
    (back,) = turned_back([line], 2.0, 800, 200)
    assert back.text == "Name: Ann"
    (x0, y0), (x1, y1) = back.points[0], back.points[1]
    assert (y1 - y0) / (x1 - x0) == pytest.approx(0.0349, abs=0.001)
    # The word boxes enclose their turned corners.
    name_box = back.words[0][1]
    assert name_box.y1 - name_box.y0 > 20
    assert turned_back([line], 0.0, 800, 200) == [line]
