"""Image engine: PNG, JPEG, TIFF (each frame a page), BMP and WebP, read by OCR.

Boxes are in the image's own pixels after its EXIF orientation is applied, which is how a viewer
shows it and what the page sizes report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from extraction.formats.bilevel import despeckled, is_bilevel
from extraction.formats.checkboxes import with_checkboxes
from extraction.formats.circled import with_circled
from extraction.formats.comb_boxes import without_comb_boxes
from extraction.formats.confidence import weighted_confidence
from extraction.formats.deskew import deskewed
from extraction.formats.document import Document, Element, Page, assign_ids
from extraction.formats.errors import InvalidDocument, PageRangeError
from extraction.formats.limits import (
    MAX_IMAGE_PIXELS,
    MAX_PAGES,
    check_image_pixels,
    check_page_count,
    open_image,
)
from extraction.formats.ocr import ocr_image
from extraction.formats.reading_order import ocr_elements

if TYPE_CHECKING:
    from PIL import Image


def parse_image(
    data: bytes,
    filename: str,
    fmt: str,
    *,
    first_page: int = 1,
    last_page: int | None = None,
    max_pixels: int = MAX_IMAGE_PIXELS,
    max_pages: int = MAX_PAGES,
) -> Document:
    """OCR every frame from `first_page` to `last_page` (1-based, inclusive) of an image."""
    image = open_image(data, max_pixels)
    with image:
        count = int(getattr(image, "n_frames", 1))
        check_page_count(count, max_pages)
        last = count if last_page is None else min(last_page, count)
        if first_page < 1 or first_page > last:
            raise PageRangeError(f"page range {first_page}..{last_page} is outside 1..{count}")
        document = Document(filename=filename, format=fmt, page_count=count)
        for number in range(first_page, last + 1):
            frame = upright_frame(image, number - 1, max_pixels)
            page, elements = _ocr_page(frame, number)
            document.pages.append(page)
            document.elements.extend(elements)
    return document


def upright_frame(image: Image.Image, index: int, max_pixels: int = MAX_IMAGE_PIXELS) -> Image.Image:
    """Frame `index` (0-based) of `image` as RGB, turned upright by its EXIF orientation and
    levelled (`deskew.deskewed`: a scan's slant undone): the picture whose pixels the boxes of the
    image engine are given in, so the page drawn for a citation is the page that was read."""
    from PIL import ImageOps

    try:
        image.seek(index)
        check_image_pixels(image.width, image.height, max_pixels)
        upright = ImageOps.exif_transpose(image) or image
        # Before levelling: turning a page resamples it, and its specks would no longer be lone.
        rgb = despeckled(upright) if is_bilevel(upright) else upright.convert("RGB")
        return deskewed(rgb)[0]
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise InvalidDocument(f"Page {index + 1} of the image is damaged or truncated.") from exc


def _ocr_page(image: Image.Image, number: int) -> tuple[Page, list[Element]]:
    lines = ocr_image(without_comb_boxes(image))
    elements = ocr_elements(with_circled(image, with_checkboxes(image, lines)), number)
    assign_ids(elements)
    page = Page(
        page=number,
        width=image.width,
        height=image.height,
        confidence=weighted_confidence(elements),
        source="ocr",
    )
    return page, elements
