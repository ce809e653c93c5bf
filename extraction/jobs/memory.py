"""A memory ceiling for one document task inside a Ray worker process.

A hostile document (a decompression bomb the limits did not catch, a pathological page) can ask
for far more memory than the machine has. Capping the address space while the task runs turns
that into a `MemoryError` in this task, instead of the kernel's OOM killer picking a process.
The cap is relative to what the worker already maps (Ray maps its object store into every
worker), and it is lifted again when the task ends, so the worker serves the next task normally.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

#: Address space one document task may add to its worker (OCR models and page renders included).
TASK_MEMORY_BYTES = 3 * 1024**3


def _address_space_bytes() -> int | None:
    """Virtual memory the process maps now (Linux); None where /proc is missing."""
    try:
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


@contextlib.contextmanager
def memory_cap(extra_bytes: int = TASK_MEMORY_BYTES) -> Iterator[None]:
    """Run the block with at most `extra_bytes` more address space; a no-op where unsupported."""
    try:
        import resource
    except ImportError:  # not on POSIX
        yield
        return
    current = _address_space_bytes()
    if current is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = current + extra_bytes
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
