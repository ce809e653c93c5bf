import pytest

from extraction.formats.document import Document
from extraction.formats.engines import document_confidence, parse_bytes
from extraction.formats.errors import InvalidDocument
from extraction.formats.image import parse_image
from tests.unit.extraction import builders

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def upright():
    return builders.text_image()


def words_of(document: Document) -> list[str]:
    return " ".join(e.text for e in document.elements).upper().split()


def test_png_words_are_found_with_boxes_in_image_pixels(upright):
    document = parse_bytes(builders.image_bytes(upright, "PNG"), "words.png")
    assert document.format == "png"
    page = document.pages[0]
    assert (page.width, page.height) == upright.size
    assert words_of(document) == list(builders.WORDS)
    # 150 dpi: the first word's baseline sits at 70 pt = 146 px, its capitals' tops near 45 pt =
    # 94 px, its left edge at 40 pt = 83 px; the detector's box holds them with some padding.
    first = document.elements[0].lines[0]
    assert first.box.x0 == pytest.approx(83, abs=15)
    assert 70 < first.box.y0 < 94 and 146 < first.box.y1 < 170
    for element in document.elements:
        assert element.source == "ocr" and 0.5 <= element.confidence <= 1.0
        assert element.box is not None and element.box.x1 <= page.width and element.box.y1 <= page.height
    overall, pages, source = document_confidence(document)
    assert source == "ocr" and pages == {"1": page.confidence}
    assert overall == pytest.approx(page.confidence) and 0.8 < overall < 1.0


def test_exif_orientation_is_applied(upright):
    from PIL import Image

    stored = upright.rotate(90, expand=True)  # what a camera held sideways writes
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90 degrees clockwise to display"
    data = builders.image_bytes(stored, "JPEG", exif=exif, quality=95)
    document = parse_image(data, "photo.jpg", "jpeg")
    assert (document.pages[0].width, document.pages[0].height) == upright.size
    assert words_of(document) == list(builders.WORDS)


def test_multi_page_tiff_is_one_page_per_frame():
    first = builders.text_image(("ALPHA",))
    second = builders.text_image(("OMEGA",))
    data = builders.image_bytes(first, "TIFF", save_all=True, append_images=[second])
    document = parse_bytes(data, "scan.tiff")
    assert [p.page for p in document.pages] == [1, 2]
    assert document.page_count == 2
    assert [(e.page, e.text.upper()) for e in document.elements] == [(1, "ALPHA"), (2, "OMEGA")]
    assert [e.id for e in document.elements] == ["p1-e1", "p2-e1"]
    only_second = parse_bytes(data, "scan.tiff", first_page=2)
    assert [p.page for p in only_second.pages] == [2]


@pytest.mark.parametrize("fmt", ["BMP", "WEBP"])
def test_other_image_formats(fmt):
    image = builders.text_image(("HELLO",))
    document = parse_bytes(
        builders.image_bytes(image, fmt, **({"lossless": True} if fmt == "WEBP" else {})), "x"
    )
    assert document.format == fmt.lower()
    assert words_of(document) == ["HELLO"]


def test_blank_image_has_no_text_and_no_confidence():
    from PIL import Image

    document = parse_bytes(builders.image_bytes(Image.new("RGB", (400, 300), "white"), "PNG"), "blank.png")
    assert document.elements == []
    assert document.pages[0].confidence is None
    assert document_confidence(document) == (0.0, {}, "ocr")


def test_truncated_image_is_invalid(upright):
    data = builders.image_bytes(upright, "PNG")
    with pytest.raises(InvalidDocument):
        parse_bytes(data[: len(data) // 3], "cut.png")


def test_a_page_scanned_upside_down_is_still_read(upright):
    # No EXIF says it is turned: its lines score as if upside down, so they are read again with
    # the per-line classifier, which turns each one over.
    turned = upright.rotate(180)
    document = parse_bytes(builders.image_bytes(turned, "PNG"), "turned.png")
    assert sorted(words_of(document)) == sorted(builders.WORDS)
