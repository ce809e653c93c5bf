"""A whole multipart form (text fields and files) read as it arrives, every part bounded.

Starlette's `request.form()` spools every file of any size to temp disk before the route runs; a run
or a reply with attachments reads its form here instead: each file is streamed to a spool file and
refused (413, the spool removed) the moment it passes the upload cap of `/api/v2/files`, and the
number of parts, of files and the bytes of the text fields are bounded too. The spools live only
as long as the `async with` block that reads the form: nothing is left on disk whatever happens.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from fastapi import Request
from python_multipart.multipart import parse_options_header

from core.infra.errors import BadRequest, PayloadTooLarge
from core.stores.files import too_large_message
from serve.uploads import MULTIPART_OVERHEAD_BYTES, multipart_events

#: Parts of one form, files and fields together: a run's form has seven kinds of field, one file or
#: file id per part, and at most `max_files` of each.
MAX_PARTS = 64


@dataclass(frozen=True)
class FormLimits:
    file_fields: frozenset[str]
    max_file_bytes: int
    max_files: int
    #: Bytes of all text fields together (a JSON body of the same run has the JSON body limit).
    max_field_bytes: int
    spool_dir: Path


@dataclass
class SpooledFile:
    """A file of the form, on disk in the spool until the form's block ends."""

    filename: str | None
    path: Path
    size: int


@dataclass
class Form:
    fields: dict[str, list[str]] = field(default_factory=dict)
    files: list[SpooledFile] = field(default_factory=list)

    def get(self, name: str) -> str | None:
        values = self.fields.get(name)
        return values[0] if values else None

    def getlist(self, name: str) -> list[str]:
        return self.fields.get(name, [])


@asynccontextmanager
async def read_form(request: Request, limits: FormLimits) -> AsyncIterator[Form]:
    """The request's multipart form; its spooled files are removed when the block ends."""
    form = Form()
    try:
        await _read(request, limits, form)
        yield form
    finally:
        for spooled in form.files:
            await asyncio.to_thread(spooled.path.unlink, missing_ok=True)


def _most_bytes(limits: FormLimits) -> int:
    return (
        limits.max_files * limits.max_file_bytes
        + limits.max_field_bytes
        + MAX_PARTS * MULTIPART_OVERHEAD_BYTES
    )


async def _read(request: Request, limits: FormLimits, form: Form) -> None:
    _, options = parse_options_header(request.headers.get("content-type"))
    if not options.get(b"boundary"):
        raise BadRequest("the multipart body has no boundary")
    most = _most_bytes(limits)
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > most:
        raise PayloadTooLarge(f"the multipart body is larger than {most} bytes")
    events = multipart_events(request, options[b"boundary"], max_bytes=most)
    parts = 0
    field_bytes = 0
    async for kind, headers in events:
        if kind != "part":
            continue
        parts += 1
        if parts > MAX_PARTS:
            raise BadRequest(f"the multipart body has more than {MAX_PARTS} parts")
        _, disposition = parse_options_header(headers.get(b"content-disposition"))
        name = disposition.get(b"name", b"").decode("utf-8", "replace")
        filename = disposition.get(b"filename")
        if filename is None:
            value = await _field(events, limits.max_field_bytes, field_bytes)
            field_bytes += len(value)
            form.fields.setdefault(name, []).append(_decode(value, name))
            continue
        if name not in limits.file_fields:
            # A field the route does not read, as before; its bytes pass, under the same cap, unkept.
            await _spool(events, None, limits.max_file_bytes)
            continue
        if len(form.files) >= limits.max_files:
            raise BadRequest(f"at most {limits.max_files} files per request")
        spool = await asyncio.to_thread(_open_spool, limits.spool_dir)
        spooled = SpooledFile(filename=filename.decode("utf-8", "replace"), path=Path(spool.name), size=0)
        # Listed before its bytes are read, so the block's end removes it however the read ends.
        form.files.append(spooled)
        try:
            spooled.size = await _spool(events, spool, limits.max_file_bytes)
        finally:
            await asyncio.to_thread(spool.close)


async def _field(events: AsyncIterator[tuple[str, Any]], limit: int, used: int) -> bytes:
    """A text field's bytes; 413 once they and the fields before it pass `limit`."""
    chunks: list[bytes] = []
    size = used
    async for kind, value in events:
        if kind == "end":
            break
        if kind == "data":
            size += len(value)
            if size > limit:
                raise PayloadTooLarge(f"the form's text fields are larger than the limit of {limit} bytes")
            chunks.append(value)
    return b"".join(chunks)


def _decode(value: bytes, name: str) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest(f"the multipart field {name!r} is not UTF-8 text") from None


async def _spool(events: AsyncIterator[tuple[str, Any]], spool: IO[bytes] | None, max_bytes: int) -> int:
    """The file part's bytes into `spool` (dropped without one): 413 as soon as they pass `max_bytes`."""
    size = 0
    async for kind, value in events:
        if kind == "end":
            break
        if kind == "data":
            size += len(value)
            if size > max_bytes:
                raise PayloadTooLarge(too_large_message(max_bytes))
            if spool is not None:
                await asyncio.to_thread(spool.write, value)
    return size


def _open_spool(spool_dir: Path) -> IO[bytes]:
    os.makedirs(spool_dir, exist_ok=True)
    return tempfile.NamedTemporaryFile(prefix="form-", dir=spool_dir, delete=False)


async def file_chunks(spooled: SpooledFile, chunk_bytes: int) -> AsyncIterator[bytes]:
    """A spooled file's bytes, read back in chunks."""
    f = await asyncio.to_thread(spooled.path.open, "rb")
    try:
        while chunk := await asyncio.to_thread(f.read, chunk_bytes):
            yield chunk
    finally:
        await asyncio.to_thread(f.close)
