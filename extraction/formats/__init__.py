"""Format detection for uploads, in the terms of the HTTP edge (415 unsupported, 400 damaged)."""

from __future__ import annotations

from core.errors import AgentryError


def sniff_upload(data: bytes, filename: str | None) -> tuple[str, str]:
    """(format, content type) of an upload judged from its bytes; the `core.files.Sniffer`."""
    from extraction.errors import DocumentError
    from extraction.sniff import content_type, sniff_format

    try:
        fmt = sniff_format(data, filename)
    except DocumentError as exc:
        raise AgentryError(str(exc), status_code=exc.status_code) from None
    return fmt, content_type(fmt)
