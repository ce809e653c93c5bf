"""The blob store: uploaded file bytes behind any fsspec URL (a local folder by default, S3 on a cluster).

fsspec's file systems are blocking, so every call runs on a worker thread and the event loop that
serves HTTP stays free. Keys are relative paths such as `<workspace>/<file uuid>`; the store never
lets a key climb out of its root.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

#: Bytes moved per read or write when streaming a blob.
CHUNK_BYTES = 1024 * 1024


class BlobStore:
    """Bytes by key under one fsspec URL (`file:///data/blobs`, `s3://bucket/prefix`, `memory://x`)."""

    def __init__(self, url: str, **storage_options: Any) -> None:
        self.url = url
        # fsspec loads with the first store, not with every importer of file records (a task
        # actor reads them only when a task has files: issue 29).
        from fsspec.core import url_to_fs

        self._fs, root = url_to_fs(url, **storage_options)
        self._root = root.rstrip("/")
        self._local = "file" in _protocols(self._fs)

    def _path(self, key: str) -> str:
        parts = [p for p in key.split("/") if p]
        if not parts or any(p in (".", "..") for p in parts):
            raise ValueError(f"invalid blob key {key!r}")
        return "/".join([self._root, *parts])

    async def put_file(self, key: str, local_path: str | Path) -> None:
        """Copy a local file into the store, streamed by fsspec in chunks."""
        await asyncio.to_thread(self._put_file, self._path(key), str(local_path))

    def _put_file(self, path: str, local_path: str) -> None:
        if self._local:
            self._fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
        self._fs.put_file(local_path, path)

    async def put_bytes(self, key: str, data: bytes) -> None:
        await asyncio.to_thread(self._put_bytes, self._path(key), data)

    def _put_bytes(self, path: str, data: bytes) -> None:
        if self._local:
            self._fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
        self._fs.pipe_file(path, data)

    async def get(self, key: str) -> bytes:
        """The whole blob; FileNotFoundError when there is none."""
        data: bytes = await asyncio.to_thread(self._fs.cat_file, self._path(key))
        return data

    async def chunks(self, key: str, chunk_bytes: int = CHUNK_BYTES) -> AsyncIterator[bytes]:
        """The blob as a stream of chunks, for answering with large files without holding them."""
        handle = await asyncio.to_thread(self._fs.open, self._path(key), "rb")
        try:
            while True:
                chunk: bytes = await asyncio.to_thread(handle.read, chunk_bytes)
                if not chunk:
                    return
                yield chunk
        finally:
            await asyncio.to_thread(handle.close)

    async def exists(self, key: str) -> bool:
        found: bool = await asyncio.to_thread(self._fs.exists, self._path(key))
        return found

    async def delete(self, key: str) -> None:
        """Remove the blob; a missing blob is not an error (deletion is idempotent)."""
        await asyncio.to_thread(self._delete, self._path(key))

    def _delete(self, path: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._fs.rm_file(path)


def _protocols(fs: Any) -> tuple[str, ...]:
    protocol = fs.protocol
    return (protocol,) if isinstance(protocol, str) else tuple(protocol)
