"""A small JSON record a running process leaves in the data directory (`agentry up`'s, the Ray it
serves on), so other commands can find it: written whole or not at all, read back leniently (a
record cut short or of an older shape reads as none), and removed only by the process it names."""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar

R = TypeVar("R")


def write(path: Path, record: Any) -> None:
    """Write `record` (a dataclass) to `path` through a temporary file, so a reader never sees half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(record)))
    tmp.replace(path)


def read(path: Path, kind: type[R]) -> R | None:
    """The record at `path` as `kind`, None when it is missing or unreadable."""
    try:
        fields = json.loads(path.read_text())
        return kind(**fields)
    except (OSError, ValueError, TypeError):
        return None


def process_alive(pid: int) -> bool:
    """Whether `pid` names a live process (another user's counts; an unreaped zombie does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """An exited process its parent has not reaped yet: it holds nothing and counts as gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    # The state follows the command's closing parenthesis (the command may hold spaces).
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


def forget_own(path: Path, kind: type[Any]) -> None:
    """Remove the record if this process wrote it (a newer process's record stays)."""
    record = read(path, kind)
    if record is not None and record.pid == os.getpid():
        path.unlink(missing_ok=True)
