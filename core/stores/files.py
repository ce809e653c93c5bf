"""Uploaded files: bytes in the blob store, a record in Redis, and signed links to the bytes.

An upload is staged to a local spool file while it streams in, so the size cap is enforced as the
bytes arrive (413 the moment it is exceeded) and the format is judged from the complete bytes
(Office formats are ZIP archives whose directory sits at the end). Only a supported file within the
cap reaches the blob store; a refused one leaves nothing behind.

Records live at `ag:{ws}:file:<uuid>`, indexed newest first at `ag:{ws}:files`; the global owner
key tells a file of another workspace (403) from an unknown one (404).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
import re
import tempfile
import time
import unicodedata
from collections.abc import AsyncIterable, AsyncIterator, Callable
from pathlib import Path
from typing import IO, NoReturn
from urllib.parse import unquote, urlencode

import redis.asyncio as aioredis

from core.infra import keys, slots
from core.infra.blobs import BlobStore
from core.infra.errors import BadRequest, Forbidden, NotFound, PayloadTooLarge
from core.infra.ids import new_id, now_iso, parse_uuid, sort_key, utcnow
from core.infra.models import PageOf, Record
from core.infra.pagination import check_limit, member_id, newest_first

#: docs/spec.md, Uploaded file: `file_id` has the format `file://<uuid>`.
FILE_SCHEME = "file://"
#: Lifetime of a signed content link when the caller names none.
DEFAULT_LINK_TTL_SECONDS = 3600
#: Longest lifetime a signed content link may be given (7 days).
MAX_LINK_TTL_SECONDS = 7 * 24 * 3600
#: Longest file name kept; longer names are cut (the extension is kept).
MAX_FILENAME_CHARS = 200
#: Staged bytes are flushed to the spool file in pieces of this size.
_SPOOL_FLUSH_BYTES = 1024 * 1024

#: Detects a file's format from its complete bytes: returns (format, content type), or raises an
#: `AgentryError` (415 unsupported, 400 damaged) naming the problem.
Sniffer = Callable[[bytes, str | None], tuple[str, str]]

_UNSAFE_NAME = re.compile(r"[\x00-\x1f\x7f/\\]+")


class FileRecord(Record):
    """A stored upload; `file_id` is its public id `file://<uuid>`."""

    id: str
    file_id: str
    workspace_id: str
    filename: str
    content_type: str
    file_size: int
    format: str
    sha256: str
    created_at: str
    blob_key: str
    index_member: str
    #: Given at upload, so a source batch can cover one packet of files (core.stores.file_filter).
    tag: str | None = None

    def resource(self) -> dict[str, object]:
        """The Uploaded file fields of docs/spec.md (without `success` and `message`), and the tag if any."""
        fields: dict[str, object] = {
            "file_id": self.file_id,
            "filename": self.filename,
            "content_type": self.content_type,
            "file_size": self.file_size,
            "format": self.format,
            "sha256": self.sha256,
            "created_at": self.created_at,
        }
        if self.tag is not None:
            fields["tag"] = self.tag
        return fields


def file_key(workspace_id: str, file_uuid: str) -> str:
    return keys.ws(workspace_id, "file", file_uuid)


def files_index(workspace_id: str) -> str:
    return keys.ws(workspace_id, "files")


def tagged_files_index(workspace_id: str, tag: str) -> str:
    """The files uploaded with `tag`, newest first (members as in `files_index`)."""
    return keys.ws(workspace_id, "files", "tag", tag)


def parse_file_id(value: str) -> str:
    """The uuid of a file named as `<uuid>`, `file://<uuid>` or its URL-encoded form; 400 otherwise."""
    text = unquote(value.strip()) if "%" in value else value.strip()
    if text.startswith(FILE_SCHEME):
        text = text[len(FILE_SCHEME) :]
    return parse_uuid(text, what="file_id")


def public_file_id(file_uuid: str) -> str:
    return f"{FILE_SCHEME}{file_uuid}"


def clean_filename(name: str | None) -> str:
    """A display name safe to store and echo: no path, no control characters, bounded length."""
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    base = _UNSAFE_NAME.sub("_", unicodedata.normalize("NFC", base)).strip(" .")
    if not base:
        return "upload"
    if len(base) > MAX_FILENAME_CHARS:
        stem, dot, ext = base.rpartition(".")
        if dot and 0 < len(ext) <= 16:
            base = stem[: MAX_FILENAME_CHARS - len(ext) - 1] + "." + ext
        else:
            base = base[:MAX_FILENAME_CHARS]
    return base


async def _one_chunk(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def save_upload(
    redis: aioredis.Redis,
    blobs: BlobStore,
    workspace_id: str,
    chunks: AsyncIterable[bytes],
    *,
    filename: str | None,
    max_bytes: int,
    sniff: Sniffer,
    spool_dir: str | Path | None = None,
    tag: str | None = None,
) -> FileRecord:
    """Store an upload streamed as `chunks`: 413 once it passes `max_bytes`, the sniffer's error
    (415/400) when its format is not supported; nothing is kept in either case. `tag` must have
    passed `core.stores.file_filter.check_tag`."""
    name = clean_filename(filename)
    spool = await asyncio.to_thread(_open_spool, spool_dir)
    try:
        size, digest = await _stage(chunks, spool, max_bytes)
        data = await asyncio.to_thread(_read_all, spool)
        fmt, content_type = await asyncio.to_thread(sniff, data, name)
        del data
        file_uuid = new_id()
        blob_key = f"{workspace_id}/{file_uuid}"
        await blobs.put_file(blob_key, spool.name)
    finally:
        await asyncio.to_thread(_discard_spool, spool)
    moment = utcnow()
    record = FileRecord(
        id=file_uuid,
        file_id=public_file_id(file_uuid),
        workspace_id=workspace_id,
        filename=name,
        content_type=content_type,
        file_size=size,
        format=fmt,
        sha256=digest,
        created_at=now_iso(),
        blob_key=blob_key,
        index_member=sort_key(moment, file_uuid),
        tag=tag,
    )
    try:
        # On a cluster the global pointers (owner, indexes) commit first: a crash before the rest leaves a
        # pointer to nothing, read as 404 or dropped, never a record nobody can find (core.infra.slots).
        async with slots.transaction(redis, global_first=True) as pipe:
            pipe.set(keys.owner(file_uuid), workspace_id)
            pipe.set(file_key(workspace_id, file_uuid), record.model_dump_json())
            pipe.zadd(files_index(workspace_id), {record.index_member: 0})
            if tag is not None:
                pipe.zadd(tagged_files_index(workspace_id, tag), {record.index_member: 0})
            await pipe.execute()
    except BaseException:
        await blobs.delete(blob_key)
        raise
    return record


async def save_bytes(
    redis: aioredis.Redis,
    blobs: BlobStore,
    workspace_id: str,
    data: bytes,
    *,
    filename: str | None,
    max_bytes: int,
    sniff: Sniffer,
) -> FileRecord:
    """`save_upload` for bytes already in memory (a fetched URL, a run attachment)."""
    return await save_upload(
        redis, blobs, workspace_id, _one_chunk(data), filename=filename, max_bytes=max_bytes, sniff=sniff
    )


def _open_spool(spool_dir: str | Path | None) -> IO[bytes]:
    if spool_dir is not None:
        os.makedirs(spool_dir, exist_ok=True)
    return tempfile.NamedTemporaryFile(prefix="upload-", dir=spool_dir, delete=False)


def _discard_spool(spool: IO[bytes]) -> None:
    spool.close()
    Path(spool.name).unlink(missing_ok=True)


def _read_all(spool: IO[bytes]) -> bytes:
    spool.flush()
    spool.seek(0)
    return spool.read()


async def _stage(chunks: AsyncIterable[bytes], spool: IO[bytes], max_bytes: int) -> tuple[int, str]:
    """Copy the stream into the spool, hashing it; 413 as soon as it grows past `max_bytes`."""
    digest = hashlib.sha256()
    size = 0
    pending: list[bytes] = []
    pending_bytes = 0
    async for chunk in chunks:
        if not chunk:
            continue
        size += len(chunk)
        if size > max_bytes:
            raise PayloadTooLarge(too_large_message(max_bytes))
        digest.update(chunk)
        pending.append(chunk)
        pending_bytes += len(chunk)
        if pending_bytes >= _SPOOL_FLUSH_BYTES:
            await asyncio.to_thread(spool.write, b"".join(pending))
            pending, pending_bytes = [], 0
    if pending:
        await asyncio.to_thread(spool.write, b"".join(pending))
    return size, digest.hexdigest()


def too_large_message(max_bytes: int) -> str:
    return f"the file is larger than the upload limit of {max_bytes // (1024 * 1024)} MB"


async def _owned(redis: aioredis.Redis, workspace_id: str, file_uuid: str) -> NoReturn:
    """Raise 403 when the file belongs to another workspace, 404 when nobody has it."""
    owner = await redis.get(keys.owner(file_uuid))
    if owner and owner != workspace_id:
        raise Forbidden(f"file {public_file_id(file_uuid)} belongs to another workspace")
    raise NotFound(f"file {public_file_id(file_uuid)} not found")


async def get_file(redis: aioredis.Redis, workspace_id: str, file_id: str) -> FileRecord:
    """The record of `file_id` (any accepted form) in this workspace; 403 or 404 otherwise."""
    file_uuid = parse_file_id(file_id)
    raw = await redis.get(file_key(workspace_id, file_uuid))
    if not raw:
        await _owned(redis, workspace_id, file_uuid)
    return FileRecord.model_validate_json(raw)


async def get_file_by_link(redis: aioredis.Redis, file_id: str) -> FileRecord:
    """The record a verified signed link names, whatever workspace holds it; 404 when gone."""
    file_uuid = parse_file_id(file_id)
    workspace_id = await redis.get(keys.owner(file_uuid))
    raw = await redis.get(file_key(workspace_id, file_uuid)) if workspace_id else None
    if not raw:
        raise NotFound(f"file {public_file_id(file_uuid)} not found")
    return FileRecord.model_validate_json(raw)


async def read_bytes(blobs: BlobStore, record: FileRecord) -> bytes:
    try:
        return await blobs.get(record.blob_key)
    except FileNotFoundError:
        raise NotFound(f"the content of file {record.file_id} is no longer available") from None


async def delete_file(redis: aioredis.Redis, blobs: BlobStore, workspace_id: str, file_id: str) -> FileRecord:
    """Forget the file and remove its bytes; jobs that already read it keep their results."""
    record = await get_file(redis, workspace_id, file_id)
    # On a cluster the global pointers go after the record: a crash between leaves a pointer to
    # nothing, read as 404 or dropped (core.infra.slots).
    async with slots.transaction(redis, global_first=False) as pipe:
        pipe.delete(file_key(workspace_id, record.id))
        pipe.zrem(files_index(workspace_id), record.index_member)
        if record.tag is not None:
            pipe.zrem(tagged_files_index(workspace_id, record.tag), record.index_member)
        pipe.delete(keys.owner(record.id))
        await pipe.execute()
    await blobs.delete(record.blob_key)
    return record


async def list_files(
    redis: aioredis.Redis,
    workspace_id: str,
    *,
    cursor: str | None = None,
    limit: int | None = None,
    tag: str | None = None,
) -> PageOf:
    """The workspace's files (those uploaded with `tag`, when given), newest first, one cursor page
    of `FileRecord.resource()` items."""
    index = files_index(workspace_id) if tag is None else tagged_files_index(workspace_id, tag)
    page = await newest_first(redis, index, cursor=cursor, limit=check_limit(limit))
    ids = [member_id(m) for m in page.members]
    raws = await redis.mget([file_key(workspace_id, i) for i in ids]) if ids else []
    data = [FileRecord.model_validate_json(r).resource() for r in raws if r]
    return PageOf(data=data, has_more=page.has_more, next_cursor=page.next_cursor)


# Signed links: a time-limited URL to a file's bytes that works without an API key.


def _signature(file_uuid: str, expires: int, secret: str) -> str:
    message = f"agentry-file-link\n{file_uuid}\n{expires}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def content_path(file_id: str) -> str:
    return f"/api/v2/files/{parse_file_id(file_id)}/content"


def signed_url(
    base_url_or_path: str,
    file_id: str,
    ttl: int = DEFAULT_LINK_TTL_SECONDS,
    *,
    secret: str,
    now: float | None = None,
) -> str:
    """A link to the file's bytes valid for `ttl` seconds: `{base}/api/v2/files/<uuid>/content?...`.

    `base_url_or_path` is the service's public URL (`http://host:8000`) or a path prefix (`""` gives
    a path); `secret` is `Settings.resolved_secret()`.
    """
    if not 0 < ttl <= MAX_LINK_TTL_SECONDS:
        raise BadRequest(f"a link lifetime must be 1 to {MAX_LINK_TTL_SECONDS} seconds")
    file_uuid = parse_file_id(file_id)
    expires = int(now if now is not None else time.time()) + ttl
    query = urlencode({"expires": expires, "signature": _signature(file_uuid, expires, secret)})
    return f"{base_url_or_path.rstrip('/')}{content_path(file_uuid)}?{query}"


def verify_link(
    file_id: str, expires: str | int, signature: str, *, secret: str, now: float | None = None
) -> str:
    """The file uuid a link names when its signature is genuine and unexpired; 403 otherwise."""
    file_uuid = parse_file_id(file_id)
    try:
        expiry = int(expires)
    except (TypeError, ValueError):
        raise Forbidden("the link is not valid") from None
    expected = _signature(file_uuid, expiry, secret)
    if not hmac.compare_digest(expected, signature.strip().lower()):
        raise Forbidden("the link is not valid")
    if expiry < (now if now is not None else time.time()):
        raise Forbidden("the link has expired")
    return file_uuid
