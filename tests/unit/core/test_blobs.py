"""The blob store on a local folder (the default) and fsspec's in-memory file system."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from core.infra.blobs import BlobStore

pytestmark = pytest.mark.unit


@pytest.fixture(params=["local", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> BlobStore:
    if request.param == "local":
        return BlobStore(f"file://{tmp_path / 'blobs'}")
    return BlobStore(f"memory://blobs-{uuid.uuid4().hex}")


async def test_put_get_exists_delete(store: BlobStore) -> None:
    await store.put_bytes("ws/a", b"hello")
    assert await store.exists("ws/a")
    assert await store.get("ws/a") == b"hello"
    await store.delete("ws/a")
    assert not await store.exists("ws/a")
    await store.delete("ws/a")  # deleting twice is fine
    with pytest.raises(FileNotFoundError):
        await store.get("ws/a")


async def test_put_file_and_stream_back_in_chunks(store: BlobStore, tmp_path: Path) -> None:
    source = tmp_path / "big.bin"
    payload = bytes(range(256)) * 4096  # 1 MiB
    source.write_bytes(payload)
    await store.put_file("ws/big", source)
    pieces = [chunk async for chunk in store.chunks("ws/big", chunk_bytes=100_000)]
    assert len(pieces) == 11 and b"".join(pieces) == payload


async def test_local_store_writes_under_its_root(tmp_path: Path) -> None:
    store = BlobStore(f"file://{tmp_path / 'root'}")
    await store.put_bytes("w1/f1", b"x")
    assert (tmp_path / "root" / "w1" / "f1").read_bytes() == b"x"


@pytest.mark.parametrize("key", ["", "/", "../x", "ws/../../x", "ws/./x"])
async def test_keys_cannot_escape_the_root(store: BlobStore, key: str) -> None:
    with pytest.raises(ValueError):
        await store.put_bytes(key, b"x")
