"""Recently parsed documents, kept in Ray's object store, so a file is not parsed again soon after.

An agent typically extracts from a document and then completes, and its completion looks for the
values of its output in the same document (docs/contract.md section 5): the second look reuses the
first parse. Entries are keyed by the file's content hash and name (the name picks the engine when
the bytes are ambiguous) and hold the refs of the parsed page ranges; dropping an entry frees the
objects once no task still uses them.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

#: Parsed documents the coordinator keeps; the least recently used beyond this is forgotten.
PARSED_CACHE_DOCUMENTS = 16

CacheKey = tuple[str, str]


class ParsedCache:
    """A small LRU of `(sha256, filename) -> [ref of each parsed page range]`."""

    def __init__(self, capacity: int = PARSED_CACHE_DOCUMENTS) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[CacheKey, list[Any]] = OrderedDict()

    @staticmethod
    def key(sha256: str, filename: str) -> CacheKey | None:
        """The entry a file maps to; None when its hash is unknown (nothing is cached then)."""
        return (sha256, filename) if sha256 else None

    def get(self, key: CacheKey | None) -> list[Any] | None:
        if key is None or key not in self._entries:
            return None
        self._entries.move_to_end(key)
        return self._entries[key]

    def put(self, key: CacheKey | None, parts: list[Any]) -> None:
        if key is None or self.capacity <= 0:
            return
        self._entries[key] = parts
        self._entries.move_to_end(key)
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)

    def drop(self, key: CacheKey | None) -> None:
        if key is not None:
            self._entries.pop(key, None)

    def __len__(self) -> int:
        return len(self._entries)
