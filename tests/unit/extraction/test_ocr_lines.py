"""What the OCR stage makes of the recogniser's raw lines, before any field is read."""

from __future__ import annotations

from PIL import Image

from extraction.formats.ocr import recognised_lines


def _read(text: str) -> str:
    page = Image.new("RGB", (200, 40), "white")
    (line,) = recognised_lines(page, [[[[0, 0], [199, 0], [199, 39], [0, 39]], text, 0.9]])
    return line.text


def test_full_width_punctuation_is_read_as_ascii() -> None:
    assert _read("AEON CO. \uff08M\uff09 BHD") == "AEON CO. (M) BHD"
    assert _read("Cashier \uff1a EIRA") == "Cashier : EIRA"


def test_a_middle_dot_between_words_is_the_space_it_stands_in() -> None:
    assert _read("INTERNATIONAL\u00b7SDN BHD") == "INTERNATIONAL SDN BHD"
