"""The engines' document errors in the terms of the HTTP edge (docs/contract.md section 7).

Engines (`extraction.formats`) raise plain `DocumentError`s and know nothing of HTTP. The API, the
upload sniffer and the agent tools answer with the status given here: 415 for bytes of no format the
engines read, 413 for a document past a safety limit, 400 for anything else that is the document's
fault.
"""

from __future__ import annotations

import asyncio

from core.infra.errors import AgentryError, BadRequest, PayloadTooLarge, UnsupportedMediaType
from extraction.formats.errors import DocumentError, DocumentTooLarge, UnsupportedFormat
from extraction.formats.page_images import DEFAULT_WIDTH, PageImage, render_page
from extraction.formats.sniff import content_type, sniff_format


def edge_error(exc: DocumentError) -> AgentryError:
    """The API's error for a document the engines refused, with the engine's words."""
    if isinstance(exc, UnsupportedFormat):
        return UnsupportedMediaType(str(exc))
    if isinstance(exc, DocumentTooLarge):
        return PayloadTooLarge(str(exc))
    return BadRequest(str(exc))


def sniff_upload(data: bytes, filename: str | None) -> tuple[str, str]:
    """(format, content type) of an upload judged from its bytes; the `core.stores.files.Sniffer`."""
    try:
        fmt = sniff_format(data, filename)
    except DocumentError as exc:
        raise edge_error(exc) from None
    return fmt, content_type(fmt)


async def page_image(data: bytes, fmt: str, page: int, width: int = DEFAULT_WIDTH) -> PageImage:
    """`render_page` on a worker thread, its document errors as the API's."""
    try:
        return await asyncio.to_thread(render_page, data, fmt, page, width)
    except DocumentError as exc:
        raise edge_error(exc) from None
