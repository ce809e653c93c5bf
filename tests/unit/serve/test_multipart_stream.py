"""The streaming reader of multipart uploads, fed a body in small pieces."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from starlette.requests import Request

from core.infra.errors import BadRequest, PayloadTooLarge
from serve.uploads import MAX_OTHER_FIELD_BYTES, file_field

pytestmark = pytest.mark.unit

BOUNDARY = "xYzBoundary"


def body(parts: Iterable[tuple[str, str | None, bytes]]) -> bytes:
    out = b""
    for name, filename, content in parts:
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
        out += f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n".encode()
        if filename:
            out += b"Content-Type: application/pdf\r\n"
        out += b"\r\n" + content + b"\r\n"
    return out + f"--{BOUNDARY}--\r\n".encode()


def request(raw: bytes, *, piece: int = 7, headers: dict[str, str] | None = None) -> Request:
    chunks = [raw[i : i + piece] for i in range(0, len(raw), piece)] or [b""]
    messages = [
        {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)
    ]

    async def receive() -> dict:
        return messages.pop(0)

    all_headers = {"content-type": f"multipart/form-data; boundary={BOUNDARY}", **(headers or {})}
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/v2/files",
        "headers": [(k.encode(), v.encode()) for k, v in all_headers.items()],
    }
    return Request(scope, receive)


async def collect(req: Request, max_bytes: int = 10_000) -> tuple[str | None, str | None, bytes]:
    part = await file_field(req, max_bytes=max_bytes)
    return part.filename, part.content_type, b"".join([c async for c in part.chunks])


async def test_the_file_arrives_intact_after_other_fields() -> None:
    content = b"%PDF-1.7\r\n--not-the-boundary\r\n" + bytes(range(256)) * 3
    raw = body(
        [("note", None, b"hello"), ("file", "r\xc3\xa9sum\xc3\xa9.pdf".encode().decode("latin-1"), content)]
    )
    filename, content_type, data = await collect(request(raw))
    assert data == content and content_type == "application/pdf"
    assert filename is not None and filename.endswith(".pdf")


async def test_missing_file_field() -> None:
    with pytest.raises(BadRequest, match="no field named 'file'"):
        await collect(request(body([("other", "a.pdf", b"x")])))


async def test_not_multipart() -> None:
    req = request(b"{}", headers={"content-type": "application/json"})
    with pytest.raises(BadRequest, match="multipart"):
        await collect(req)


async def test_oversized_other_fields_are_refused() -> None:
    raw = body([("junk", None, b"j" * (MAX_OTHER_FIELD_BYTES + 10)), ("file", "a.pdf", b"x")])
    with pytest.raises(BadRequest, match="too large"):
        await collect(request(raw, piece=64 * 1024))


async def test_declared_length_over_the_cap_is_refused_before_reading() -> None:
    req = request(body([("file", "a.pdf", b"x")]), headers={"content-length": str(10**9)})
    with pytest.raises(PayloadTooLarge):
        await collect(req)
