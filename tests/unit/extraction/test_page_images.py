import io

import pytest

from extraction.formats.errors import UnsupportedFormat
from extraction.formats.limits import MAX_RENDER_PIXELS
from extraction.formats.page_images import PageNotInDocument, fitted_size, render_page
from tests.support import documents

pytestmark = pytest.mark.unit


def size_of(png: bytes) -> tuple[int, int]:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        return image.size


def test_a_rotated_pdf_page_is_drawn_as_displayed() -> None:
    import pymupdf

    doc = pymupdf.open()
    doc.new_page(width=595, height=842).set_rotation(90)
    rendered = render_page(doc.tobytes(), "pdf", 1, 1000)
    assert (rendered.width, rendered.height) == (1000, 707) == size_of(rendered.png)
    assert rendered.page_count == 1


def test_each_tiff_frame_is_a_page() -> None:
    from PIL import Image

    frames = [Image.new("RGB", (400, 100), "white"), Image.new("RGB", (100, 400), "white")]
    out = io.BytesIO()
    frames[0].save(out, format="TIFF", save_all=True, append_images=frames[1:])
    second = render_page(out.getvalue(), "tiff", 2, 200)
    assert (second.width, second.height, second.page_count) == (200, 800, 2)
    with pytest.raises(PageNotInDocument, match="2 pages"):
        render_page(out.getvalue(), "tiff", 3, 200)


def test_formats_without_pages_are_refused() -> None:
    with pytest.raises(UnsupportedFormat):
        render_page(documents.docx(["Hello"]), "docx", 1)


def test_a_very_tall_page_is_narrowed_to_the_pixel_bound() -> None:
    width, height = fitted_size(100, 100_000, 2000)
    assert width * height <= MAX_RENDER_PIXELS
    assert height == pytest.approx(width * 1000, abs=1)
    assert fitted_size(595, 842, 1000) == (1000, 1415)
