"""Comb boxes erased from a scanned page before OCR (`extraction.formats.comb_boxes`)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from extraction.formats.comb_boxes import without_comb_boxes


def _ink(image: Image.Image, box: tuple[int, int, int, int]) -> int:
    return int((np.asarray(image.convert("L").crop(box)) < 128).sum())


def test_a_row_of_boxes_is_erased_but_their_letters_and_a_lone_check_box_stay() -> None:
    image = Image.new("RGB", (500, 120), "white")
    draw = ImageDraw.Draw(image)
    for i in range(4):
        x = 40 + 34 * i
        draw.rectangle((x, 20, x + 30, 50), outline="black", width=2)
        draw.rectangle((x + 10, 28, x + 20, 42), fill="black")  # the letter in the box
    draw.rectangle((300, 70, 320, 90), outline="black", width=2)  # a check box alone
    cleaned = without_comb_boxes(image)
    # The outlines are gone: the band along the row's top edge is white.
    assert _ink(cleaned, (40, 19, 170, 23)) == 0
    # The letters and the check box are left.
    assert _ink(cleaned, (50, 28, 61, 43)) == _ink(image, (50, 28, 61, 43)) > 0
    assert _ink(cleaned, (298, 68, 323, 93)) == _ink(image, (298, 68, 323, 93))


def test_a_page_without_combs_is_the_same_picture() -> None:
    image = Image.new("RGB", (300, 100), "white")
    ImageDraw.Draw(image).rectangle((20, 20, 120, 30), fill="black")
    assert without_comb_boxes(image) is image


def test_a_comb_drawn_as_one_outline_with_dividers_is_erased() -> None:
    image = Image.new("RGB", (500, 100), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((40, 20, 40 + 5 * 32, 52), outline="black", width=2)
    for i in range(1, 5):
        draw.line((40 + 32 * i, 20, 40 + 32 * i, 52), fill="black", width=2)
    draw.rectangle((50, 28, 60, 44), fill="black")  # a letter in the first cell
    draw.rectangle((40, 70, 400, 72), fill="black")  # a rule under the row stays
    cleaned = without_comb_boxes(image)
    assert _ink(cleaned, (38, 18, 205, 23)) == 0
    assert _ink(cleaned, (50, 28, 61, 45)) == _ink(image, (50, 28, 61, 45)) > 0
    assert _ink(cleaned, (40, 69, 400, 73)) == _ink(image, (40, 69, 400, 73))


def test_tall_letters_touching_their_underline_are_no_comb() -> None:
    image = Image.new("RGB", (500, 100), "white")
    draw = ImageDraw.Draw(image)
    for i in range(6):  # evenly spaced strokes standing on one rule, nothing along their top
        draw.line((40 + 32 * i, 20, 40 + 32 * i, 52), fill="black", width=2)
    draw.rectangle((40, 50, 40 + 5 * 32, 52), fill="black")
    assert without_comb_boxes(image) is image


def test_on_a_grey_page_the_outlines_take_the_papers_shade() -> None:
    # A phone's photo: the paper is grey, not white. White outlines left on it are bright frames
    # OCR's text finder stumbles on; painted in the paper's own shade, nothing of them is left.
    paper = (190, 186, 180)
    image = Image.new("RGB", (400, 100), paper)
    draw = ImageDraw.Draw(image)
    for i in range(5):
        x = 40 + 34 * i
        draw.rectangle((x, 20, x + 30, 50), outline="black", width=2)
        draw.rectangle((x + 12, 28, x + 18, 42), fill="black")
    pixels = np.asarray(without_comb_boxes(image).convert("RGB")).astype(int)
    band = pixels[17:25, 36:215]  # along the row's top edge, outlines and all
    assert np.abs(band - np.array(paper)).max() <= 2
    assert _ink(without_comb_boxes(image), (52, 28, 59, 43)) == _ink(image, (52, 28, 59, 43)) > 0
