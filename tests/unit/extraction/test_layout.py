import pytest

from extraction.formats.document import Box
from extraction.formats.ocr import OcrLine
from extraction.formats.reading_order import ocr_blocks, ocr_elements, reading_order

pytestmark = pytest.mark.unit

WIDTH = 600.0


def order(named: dict[str, Box]) -> list[str]:
    return reading_order(list(named), named.__getitem__, WIDTH)


def test_form_rows_read_left_to_right():
    boxes = {
        "value1": Box(300, 101, 400, 111),
        "label1": Box(50, 100, 120, 110),
        "label2": Box(50, 120, 120, 130),
        "value2": Box(300, 119, 400, 129),
    }
    assert order(boxes) == ["label1", "value1", "label2", "value2"]


def test_columns_under_a_full_width_title_then_a_footer():
    boxes = {
        "footer": Box(50, 700, 550, 710),
        "right1": Box(320, 100, 550, 200),
        "left2": Box(50, 210, 280, 300),
        "title": Box(50, 40, 550, 60),
        "left1": Box(50, 100, 280, 200),
        "right2": Box(320, 210, 550, 300),
    }
    assert order(boxes) == ["title", "left1", "left2", "right1", "right2", "footer"]


def line(text: str, x0: float, y0: float, x1: float, y1: float, score: float = 0.9) -> OcrLine:
    return OcrLine(text, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), score)


def test_ocr_pieces_on_one_row_become_one_line_and_gaps_split_blocks():
    lines = [
        line("9.00", 300, 101, 340, 119, 0.8),
        line("TOTAL", 50, 100, 120, 120, 1.0),
        line("CASH", 50, 124, 110, 142),
        line("THANK YOU", 100, 300, 250, 320),
    ]
    blocks = ocr_blocks(lines)
    assert [[row.text for row in block] for block in blocks] == [["TOTAL 9.00", "CASH"], ["THANK YOU"]]
    total = blocks[0][0]
    assert total.box == Box(50, 100, 340, 120)
    assert total.confidence == pytest.approx((1.0 * 5 + 0.8 * 4) / 9)
    scaled = ocr_blocks(lines, scale=2.0)[1][0].box
    assert scaled == Box(50, 150, 125, 160)


def test_ocr_elements_carry_source_and_confidence():
    (element,) = ocr_elements([line("HELLO", 10, 10, 60, 30, 0.7)], page=3)
    assert (element.page, element.type, element.text, element.source, element.confidence) == (
        3,
        "text",
        "HELLO",
        "ocr",
        0.7,
    )
