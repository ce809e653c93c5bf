"""Circled options on a scanned page read from its pixels (`extraction.formats.circled`)."""

from __future__ import annotations

from PIL import Image, ImageDraw

from extraction.fields.reading.choices import marked_option
from extraction.fields.reading.vocabulary import GENDER_OPTIONS
from extraction.formats.circled import MARKED, with_circled
from extraction.formats.document import Box
from extraction.formats.ocr import OcrLine


def _line(text: str, words: list[tuple[str, Box]]) -> OcrLine:
    x0 = min(b.x0 for _, b in words)
    x1 = max(b.x1 for _, b in words)
    y0 = min(b.y0 for _, b in words)
    y1 = max(b.y1 for _, b in words)
    return OcrLine(text, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), 0.95, tuple(words))


def _page() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (600, 160), "white")
    return image, ImageDraw.Draw(image)


def test_a_ring_drawn_around_an_option_marks_it() -> None:
    image, draw = _page()
    # The words' own ink, then a ring around "Female" only.
    draw.rectangle((130, 30, 170, 50), fill="black")
    draw.rectangle((215, 30, 275, 50), fill="black")
    draw.ellipse((200, 20, 290, 60), outline="black", width=2)
    line = _line(
        "Sex: Male Female",
        [("Sex:", Box(40, 26, 80, 54)), ("Male", Box(128, 26, 172, 54)), ("Female", Box(213, 26, 277, 54))],
    )
    (read,) = with_circled(image, [line])
    assert read.text == f"Sex: Male {MARKED} Female"
    assert marked_option(read.text.split(":", 1)[1], GENDER_OPTIONS) == "Female"


def test_a_ruled_box_or_cell_around_a_word_is_no_ring() -> None:
    image, draw = _page()
    # A check box around a typed X (its corners inked) and a cell ruled around a value.
    draw.rectangle((100, 24, 130, 56), outline="black", width=2)
    draw.rectangle((108, 32, 122, 48), fill="black")
    draw.rectangle((300, 10, 560, 70), outline="black", width=2)
    draw.rectangle((320, 30, 420, 50), fill="black")
    line = _line("X Smith", [("X", Box(104, 28, 126, 52)), ("Smith", Box(318, 26, 422, 54))])
    (read,) = with_circled(image, [line])
    assert read.text == "X Smith"


def test_a_round_letter_inside_a_word_circles_nothing() -> None:
    image, draw = _page()
    # "Bob": the "o" is a ring of ink but spans only part of the word.
    draw.rectangle((100, 30, 112, 52), fill="black")
    draw.ellipse((116, 34, 134, 52), outline="black", width=3)
    draw.rectangle((138, 30, 150, 52), fill="black")
    line = _line("Bob", [("Bob", Box(98, 28, 152, 54))])
    assert with_circled(image, [line]) == [line]


def test_a_ring_touching_a_cells_rule_still_marks_its_option() -> None:
    image, draw = _page()
    # A ruled cell whose left rule the ring around "Male" touches: one piece of ink with the
    # whole grid until the long rules are taken out.
    draw.rectangle((96, 4, 560, 150), outline="black", width=2)
    draw.line((96, 80, 560, 80), fill="black", width=2)
    draw.rectangle((110, 30, 150, 50), fill="black")
    draw.rectangle((190, 30, 250, 50), fill="black")
    draw.ellipse((97, 20, 163, 60), outline="black", width=2)
    line = _line("Male Female", [("Male", Box(108, 26, 152, 54)), ("Female", Box(188, 26, 252, 54))])
    (read,) = with_circled(image, [line])
    assert read.text == f"{MARKED} Male Female"
