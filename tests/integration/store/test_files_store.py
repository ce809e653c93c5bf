"""Uploaded files against a real Redis and a local blob folder: caps, formats, ownership, deletion."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from core.infra.blobs import BlobStore
from core.infra.errors import Forbidden, NotFound, PayloadTooLarge, UnsupportedMediaType
from core.stores import files

pytestmark = [pytest.mark.integration, pytest.mark.store]


def sniff_pdf(data: bytes, filename: str | None) -> tuple[str, str]:
    """A stand-in for the engines' sniffer: PDF or refused, judged from the bytes."""
    if data.startswith(b"%PDF-"):
        return "pdf", "application/pdf"
    raise UnsupportedMediaType(f"{filename} is not a supported format")


async def chunked(data: bytes, size: int = 1000) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


def ws() -> str:
    return f"ws-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def blobs(tmp_path: Path) -> BlobStore:
    return BlobStore(f"file://{tmp_path / 'blobs'}")


def stored_blobs(tmp_path: Path) -> list[Path]:
    root = tmp_path / "blobs"
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


async def test_upload_is_stored_and_described(
    store: aioredis.Redis, blobs: BlobStore, tmp_path: Path
) -> None:
    workspace = ws()
    data = b"%PDF-1.7\n" + b"x" * 5000
    record = await files.save_upload(
        store, blobs, workspace, chunked(data), filename="../scan.PDF", max_bytes=10_000, sniff=sniff_pdf
    )
    assert record.file_id == f"file://{record.id}"
    assert (record.filename, record.format, record.content_type) == ("scan.PDF", "pdf", "application/pdf")
    assert record.file_size == len(data) and record.sha256 == hashlib.sha256(data).hexdigest()
    assert await files.read_bytes(blobs, await files.get_file(store, workspace, record.file_id)) == data
    page = await files.list_files(store, workspace)
    assert [item["file_id"] for item in page.data] == [record.file_id]


async def test_too_large_stops_while_streaming_and_keeps_nothing(
    store: aioredis.Redis, blobs: BlobStore, tmp_path: Path
) -> None:
    consumed = 0

    async def endless() -> AsyncIterator[bytes]:
        nonlocal consumed
        yield b"%PDF-1.7\n"
        while True:
            consumed += 4096
            yield b"\0" * 4096

    with pytest.raises(PayloadTooLarge):
        await files.save_upload(
            store,
            blobs,
            ws(),
            endless(),
            filename="a.pdf",
            max_bytes=100_000,
            sniff=sniff_pdf,
            spool_dir=tmp_path / "spool",
        )
    assert consumed < 110_000
    assert stored_blobs(tmp_path) == []
    assert list((tmp_path / "spool").iterdir()) == []


async def test_unsupported_format_keeps_nothing(
    store: aioredis.Redis, blobs: BlobStore, tmp_path: Path
) -> None:
    workspace = ws()
    with pytest.raises(UnsupportedMediaType):
        await files.save_bytes(
            store, blobs, workspace, b"MZ\x90\x00", filename="a.pdf", max_bytes=100, sniff=sniff_pdf
        )
    assert stored_blobs(tmp_path) == []
    assert (await files.list_files(store, workspace)).data == []


async def test_other_workspace_is_403_unknown_is_404_and_delete_removes_bytes(
    store: aioredis.Redis, blobs: BlobStore, tmp_path: Path
) -> None:
    owner, other = ws(), ws()
    record = await files.save_bytes(
        store, blobs, owner, b"%PDF-1.4", filename="a.pdf", max_bytes=100, sniff=sniff_pdf
    )
    with pytest.raises(Forbidden):
        await files.get_file(store, other, record.id)
    with pytest.raises(NotFound):
        await files.get_file(store, owner, str(uuid.uuid4()))
    assert (await files.get_file_by_link(store, record.id)).workspace_id == owner
    with pytest.raises(Forbidden):
        await files.delete_file(store, blobs, other, record.file_id)
    await files.delete_file(store, blobs, owner, record.file_id)
    assert stored_blobs(tmp_path) == []
    with pytest.raises(NotFound):
        await files.get_file(store, owner, record.id)
    with pytest.raises(NotFound):
        await files.get_file_by_link(store, record.id)
