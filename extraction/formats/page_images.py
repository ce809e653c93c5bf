"""One page of a document rendered as a PNG, for drawing a citation's box over the page it cites.

Pages are numbered from 1, as citations' `page` is. A PDF page is rendered as displayed (its
rotation applied), which is the geometry its boxes are given in; an image's frame is turned upright
by its EXIF orientation, as the image engine reads it. Either way the picture keeps the page's
aspect ratio, so a normalised box scaled to the picture lands where the citation says.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

from extraction.formats.errors import DocumentError, InvalidDocument, UnsupportedFormat
from extraction.formats.limits import MAX_RENDER_PIXELS

#: Formats that have pages to draw; the others (Office, CSV, text) cite cells and lines, not boxes.
RENDERABLE_FORMATS = frozenset({"pdf", "png", "jpeg", "tiff", "bmp", "webp"})
#: Bounds and default of the requested width in pixels: wide enough for a thumbnail, at most a
#: sharp full-screen page.
MIN_WIDTH = 64
MAX_WIDTH = 2000
DEFAULT_WIDTH = 1000


class PageNotInDocument(DocumentError):
    """The caller asked for a page number the document does not have."""

    code = "page_out_of_range"


@dataclass(frozen=True)
class PageImage:
    png: bytes
    width: int
    height: int
    page_count: int


def fitted_size(page_width: float, page_height: float, width: int) -> tuple[int, int]:
    """The picture size for a page drawn `width` pixels wide, narrowed when a very tall page would
    pass `MAX_RENDER_PIXELS` (the same bound the OCR renderer keeps)."""
    if page_width <= 0 or page_height <= 0:
        raise InvalidDocument("The page has no area and cannot be drawn.")
    aspect = page_height / page_width
    width = min(width, max(1, math.floor(math.sqrt(MAX_RENDER_PIXELS / aspect))))
    return width, max(1, round(width * aspect))


def render_page(data: bytes, fmt: str, page: int, width: int = DEFAULT_WIDTH) -> PageImage:
    """Page `page` (1-based) of a document of format `fmt` as a PNG `width` pixels wide (fewer for
    a page too tall to draw at that width). Blocking: call it off the event loop."""
    if fmt not in RENDERABLE_FORMATS:
        raise UnsupportedFormat(f"A {fmt} file has no pages to draw; only PDF and image pages are rendered.")
    if fmt == "pdf":
        return _render_pdf(data, page, width)
    return _render_image(data, page, width)


def _check_page(page: int, count: int) -> None:
    if not 1 <= page <= count:
        pages = "1 page" if count == 1 else f"{count} pages"
        raise PageNotInDocument(f"Page {page} does not exist: the document has {pages}.")


def _render_pdf(data: bytes, page: int, width: int) -> PageImage:
    from extraction.formats.pdf import open_pdf
    from extraction.formats.pdf_geometry import load_pymupdf

    pymupdf = load_pymupdf()
    with open_pdf(data) as doc:
        count = int(doc.page_count)
        _check_page(page, count)
        shown = doc[page - 1]
        # `rect` is the page as displayed, rotation applied; the pixmap is drawn the same way.
        page_width, page_height = float(shown.rect.width), float(shown.rect.height)
        target_width, target_height = fitted_size(page_width, page_height, width)
        matrix = pymupdf.Matrix(target_width / page_width, target_height / page_height)
        try:
            # Annotations stay on: a form's filled-in values are widgets, and they are what is cited.
            pix = shown.get_pixmap(matrix=matrix, alpha=False, colorspace=pymupdf.csRGB)
        except RuntimeError as exc:
            raise InvalidDocument(f"Page {page} of the PDF is damaged and cannot be drawn.") from exc
        return PageImage(png=pix.tobytes("png"), width=pix.width, height=pix.height, page_count=count)


def _render_image(data: bytes, page: int, width: int) -> PageImage:
    from PIL import Image

    from extraction.formats.image import upright_frame
    from extraction.formats.limits import open_image

    with open_image(data) as image:
        count = int(getattr(image, "n_frames", 1))
        _check_page(page, count)
        frame = upright_frame(image, page - 1)
    size = fitted_size(frame.width, frame.height, width)
    picture = frame.resize(size, Image.Resampling.LANCZOS) if size != frame.size else frame
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return PageImage(png=out.getvalue(), width=picture.width, height=picture.height, page_count=count)
