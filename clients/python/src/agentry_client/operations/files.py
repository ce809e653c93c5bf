"""Uploaded files (`/api/v2/files`) and how a document to send becomes a part or an id."""

from __future__ import annotations

import mimetypes
import os
from pathlib import Path

from ..models import FileInfo
from ..protocol import Call, Context, FilePart, Flow, exchange, fetch
from .common import V2, segment

#: A document to send: a path, or its bytes (then give a file name), or (file name, bytes).
FileSource = str | os.PathLike[str] | bytes | tuple[str, bytes]


def file_part(name: str, source: FileSource, filename: str | None = None) -> FilePart:
    """A multipart file part. The service judges the format from the bytes; the name is what
    citations and the task's `files` show."""
    if isinstance(source, tuple):
        filename, content = filename or source[0], source[1]
    elif isinstance(source, bytes):
        content = source
        filename = filename or "document"
    else:
        path = Path(source)
        content = path.read_bytes()
        filename = filename or path.name
    content_type = mimetypes.guess_type(filename)[0] or "application/octet-stream"
    return name, (filename, content, content_type)


def document_id(document: str | FileInfo) -> str:
    """An uploaded file stands for its `file_id`; a string is a `file://` id or a URL."""
    return document.file_id if isinstance(document, FileInfo) else document


def upload(ctx: Context, part: FilePart) -> Flow[FileInfo]:
    # Not resent after a broken connection: a second upload would be a second file.
    return fetch(ctx, Call("POST", f"{V2}/files", files=[part]), FileInfo)


def get_file(ctx: Context, file_id: str) -> Flow[FileInfo]:
    return fetch(ctx, Call("GET", f"{V2}/files/{segment(file_id)}", idempotent=True), FileInfo)


def file_content(ctx: Context, file_id: str) -> Flow[bytes]:
    reply = yield from exchange(ctx, Call("GET", f"{V2}/files/{segment(file_id)}/content", idempotent=True))
    return reply.content


def delete_file(ctx: Context, file_id: str) -> Flow[None]:
    yield from exchange(ctx, Call("DELETE", f"{V2}/files/{segment(file_id)}", idempotent=True))
