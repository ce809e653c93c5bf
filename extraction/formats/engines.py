"""One entry point for every format: sniff the bytes, run the matching engine, merge page ranges.

Engines are pure functions from bytes to a `Document`; this module adds the dispatch, the
translation of library failures into `DocumentError`s, and the merge of documents parsed from page
ranges of one file. The confidence and payload helpers are re-exported so that callers need only
this module.
"""

from __future__ import annotations

import logging

from extraction.formats.confidence import document_confidence
from extraction.formats.document import Document
from extraction.formats.errors import DocumentError, InvalidDocument, PageRangeError
from extraction.formats.payload import elements_payload, pages_payload
from extraction.formats.sniff import sniff_format

__all__ = [
    "IMAGE_FORMATS",
    "PAGED_FORMATS",
    "count_pages",
    "document_confidence",
    "elements_payload",
    "merge_documents",
    "page_plan",
    "pages_payload",
    "parse_bytes",
]

logger = logging.getLogger(__name__)

#: Formats read by OCR.
IMAGE_FORMATS = frozenset({"png", "jpeg", "tiff", "bmp", "webp"})
#: Formats whose page ranges can be parsed separately (and so split across workers).
PAGED_FORMATS = frozenset({"pdf", "tiff"})


def parse_bytes(data: bytes, filename: str, *, first_page: int = 1, last_page: int | None = None) -> Document:
    """Parse a document of any supported format.

    `first_page`..`last_page` (1-based, inclusive; None = to the end) selects pages of PDFs and
    multi-page TIFFs; other formats are always parsed whole. Raises a `DocumentError` when the
    file is unsupported, damaged, encrypted or over a safety limit, and `PageRangeError` for a
    range outside the document.
    """
    fmt = sniff_format(data, filename)
    try:
        return _dispatch(fmt, data, filename, first_page, last_page)
    except (DocumentError, PageRangeError, MemoryError):
        raise
    except Exception as exc:
        # Parsers of damaged files fail in their own ways (XML syntax, missing ZIP parts, bad
        # offsets). Only the exception's type is logged: its message may quote document text.
        logger.warning("%s engine failed on a document: %s", fmt, type(exc).__name__)
        raise InvalidDocument(f"The {fmt.upper()} file could not be read; it may be damaged.") from exc


def count_pages(data: bytes, fmt: str) -> int:
    """Pages of a document of format `fmt` (as `sniff_format` says), read from headers only, so
    a worker pool can plan page ranges before parsing. Formats that are not paged count 1."""
    if fmt == "pdf":
        from extraction.formats.pdf import pdf_page_count

        return pdf_page_count(data)
    if fmt == "tiff":
        from extraction.formats.limits import open_image

        with open_image(data) as image:
            return int(getattr(image, "n_frames", 1))
    return 1


def page_plan(data: bytes, fmt: str) -> tuple[int, bool]:
    """Pages of the document, and whether they are scanned (read by OCR), to size its page
    ranges: a TIFF's frames always are; a PDF's when most of its pages have no usable text layer."""
    if fmt == "pdf":
        from extraction.formats.pdf import pdf_page_plan

        return pdf_page_plan(data)
    return count_pages(data, fmt), fmt in IMAGE_FORMATS


def _dispatch(fmt: str, data: bytes, filename: str, first_page: int, last_page: int | None) -> Document:
    if fmt == "pdf":
        from extraction.formats.pdf import parse_pdf

        return parse_pdf(data, filename, first_page=first_page, last_page=last_page)
    if fmt in IMAGE_FORMATS:
        from extraction.formats.image import parse_image

        return parse_image(data, filename, fmt, first_page=first_page, last_page=last_page)
    if fmt == "docx":
        from extraction.formats.docx import parse_docx

        return parse_docx(data, filename)
    if fmt == "xlsx":
        from extraction.formats.xlsx import parse_xlsx

        return parse_xlsx(data, filename)
    if fmt == "pptx":
        from extraction.formats.pptx import parse_pptx

        return parse_pptx(data, filename)
    from extraction.formats.text import parse_csv, parse_text

    return parse_csv(data, filename) if fmt == "csv" else parse_text(data, filename)


def merge_documents(parts: list[Document]) -> Document:
    """Documents parsed from page ranges of one file, as one document in page order.

    Element ids are per page (`p{page}-e{n}`), so they stay unique and equal to what a single
    parse gives; a page present in several parts is taken from the first part that has it.
    """
    if not parts:
        raise ValueError("merge_documents needs at least one document")
    merged = Document(
        filename=parts[0].filename, format=parts[0].format, page_count=max(p.page_count for p in parts)
    )
    owner: dict[int, int] = {}
    for index, part in enumerate(parts):
        for page in part.pages:
            if page.page not in owner:
                owner[page.page] = index
                merged.pages.append(page)
    merged.pages.sort(key=lambda page: page.page)
    order = {page.page: rank for rank, page in enumerate(merged.pages)}
    elements = [
        element
        for index, part in enumerate(parts)
        for element in part.elements
        if owner.get(element.page) == index
    ]
    # A stable sort keeps each page's own reading order.
    merged.elements = sorted(elements, key=lambda element: order[element.page])
    # The file's embedded values are the same in every part that read them.
    merged.embedded = next((part.embedded for part in parts if part.embedded), [])
    return merged
