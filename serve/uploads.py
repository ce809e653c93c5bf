"""Read the `file` field of a multipart upload as a stream.

FastAPI's `UploadFile` spools the whole body before the route runs, so a size cap checked in the
route comes too late. Here the body is parsed as it arrives and the file's bytes are handed on
chunk by chunk: the caller stops reading (and answers 413) the moment the cap is passed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request
from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header

from core.infra.errors import BadRequest, PayloadTooLarge
from core.stores.files import too_large_message

#: Bytes of form fields other than the file that are read (and ignored) before the file is refused.
MAX_OTHER_FIELD_BYTES = 1024 * 1024
#: Allowance for multipart headers and boundaries on top of the file itself.
MULTIPART_OVERHEAD_BYTES = 64 * 1024


@dataclass
class _Parse:
    """Parser callbacks turned into a queue of events: ("part", headers), ("data", b), ("end", None)."""

    events: deque[tuple[str, Any]] = field(default_factory=deque)
    headers: dict[bytes, bytes] = field(default_factory=dict)
    header_field: bytes = b""
    header_value: bytes = b""

    def callbacks(self) -> dict[str, Any]:
        return {
            "on_part_begin": self.on_part_begin,
            "on_header_field": self.on_header_field,
            "on_header_value": self.on_header_value,
            "on_header_end": self.on_header_end,
            "on_headers_finished": self.on_headers_finished,
            "on_part_data": self.on_part_data,
            "on_part_end": self.on_part_end,
        }

    def on_part_begin(self) -> None:
        self.headers = {}

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self.header_field += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self.header_value += data[start:end]

    def on_header_end(self) -> None:
        self.headers[self.header_field.strip().lower()] = self.header_value.strip()
        self.header_field = self.header_value = b""

    def on_headers_finished(self) -> None:
        self.events.append(("part", self.headers))

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        self.events.append(("data", bytes(data[start:end])))

    def on_part_end(self) -> None:
        self.events.append(("end", None))


@dataclass
class FilePart:
    """The file field: its declared name and type, and its bytes as they arrive."""

    filename: str | None
    content_type: str | None
    chunks: AsyncIterator[bytes]


async def multipart_events(
    request: Request, boundary: bytes, *, max_bytes: int | None = None
) -> AsyncIterator[tuple[str, Any]]:
    """The body's parts as they arrive: ("part", headers), then ("data", bytes)..., then ("end", None).

    The parser bounds each part's headers itself (8 lines of about 4 KB): a larger one is malformed.
    With `max_bytes`, a body (chunked, so of no declared length) that streams past it is a 413."""
    state = _Parse()
    parser = MultipartParser(boundary, state.callbacks())  # type: ignore[arg-type]
    received = 0
    try:
        async for chunk in request.stream():
            received += len(chunk)
            if max_bytes is not None and received > max_bytes:
                raise PayloadTooLarge(f"the multipart body is larger than {max_bytes} bytes")
            parser.write(chunk)
            while state.events:
                yield state.events.popleft()
        parser.finalize()
    except MultipartParseError:
        raise BadRequest("the multipart body is malformed") from None
    while state.events:
        yield state.events.popleft()


async def file_field(request: Request, *, name: str = "file", max_bytes: int) -> FilePart:
    """The multipart field `name` of the request, streamed; 400 when the body has none.

    A declared body longer than the cap allows is refused (413) before any of it is read.
    """
    content_type, options = parse_options_header(request.headers.get("content-type"))
    if content_type != b"multipart/form-data" or not options.get(b"boundary"):
        raise BadRequest(f"send the file as multipart/form-data in a field named {name!r}")
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > max_bytes + MULTIPART_OVERHEAD_BYTES:
        raise PayloadTooLarge(too_large_message(max_bytes))
    events = multipart_events(request, options[b"boundary"])
    other_bytes = 0
    async for kind, value in events:
        if kind == "data":
            other_bytes += len(value)
            if other_bytes > MAX_OTHER_FIELD_BYTES:
                raise BadRequest(f"the form fields besides {name!r} are too large")
            continue
        if kind != "part":
            continue
        _, disposition = parse_options_header(value.get(b"content-disposition"))
        if disposition.get(b"name", b"").decode("utf-8", "replace") != name:
            continue
        filename = disposition.get(b"filename")
        declared_type = value.get(b"content-type")
        return FilePart(
            filename=filename.decode("utf-8", "replace") if filename is not None else None,
            content_type=declared_type.decode("latin-1") if declared_type else None,
            chunks=_part_data(events),
        )
    raise BadRequest(f"the multipart body has no field named {name!r}")


async def _part_data(events: AsyncIterator[tuple[str, Any]]) -> AsyncIterator[bytes]:
    async for kind, value in events:
        if kind == "data":
            yield value
        elif kind == "end":
            return
