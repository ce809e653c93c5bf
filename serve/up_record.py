"""What `agentry up` writes about itself while it runs (`<data dir>/up.json`), so that `agentry down`
finds it and stops it the way Ctrl-C does: SIGTERM, on which `agentry up` stops what it started (the
Serve application, the Ray it started, the embedded Redis it started) and exits.

The record names a process, not a port: the service's Ray, Redis and Serve are children or daemons of
that process and are stopped by it, in order, with the drain it does for Ctrl-C. A record whose
process is gone, or is no longer an `agentry up` (its pid was reused), counts as nothing running.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from core.infra import process_records
from core.infra.ids import now_iso

RECORD_FILE = "up.json"
#: How often `agentry down` looks whether the process has exited.
POLL_SECONDS = 0.2


@dataclass(frozen=True)
class UpRecord:
    pid: int
    started_at: str
    #: Where it serves; None while it is still starting.
    url: str | None = None


class StopOutcome(StrEnum):
    NOTHING_RUNNING = "nothing_running"
    #: A record whose process is gone (or is not an `agentry up`): removed.
    STALE = "stale"
    #: Still starting: a SIGTERM now would cut its start short before it can stop what it started.
    STARTING = "starting"
    STOPPED = "stopped"
    TIMED_OUT = "timed_out"


def record_path(data_dir: Path) -> Path:
    return data_dir / RECORD_FILE


def write_record(data_dir: Path, url: str | None = None) -> UpRecord:
    """Record this process as the running `agentry up` (url None while it starts)."""
    record = UpRecord(pid=os.getpid(), started_at=now_iso(), url=url)
    process_records.write(record_path(data_dir), record)
    return record


def forget_record(data_dir: Path) -> None:
    """Remove the record if this process wrote it (another `agentry up`'s record stays)."""
    process_records.forget_own(record_path(data_dir), UpRecord)


def read_record(data_dir: Path) -> UpRecord | None:
    return process_records.read(record_path(data_dir), UpRecord)


def is_agentry_up(argv: list[str]) -> bool:
    """Whether a command line is an `agentry up` (the console script, or `python -m serve.cli up`)."""
    names = [Path(arg).name for arg in argv]
    runs_agentry = "agentry" in names or "serve.cli" in argv
    return runs_agentry and "up" in argv


def _command_line(pid: int) -> list[str] | None:
    """The process's argv from /proc; None where there is no /proc (the check is then skipped)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return [] if Path("/proc/self").exists() else None
    except OSError:
        return None
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def running_record(data_dir: Path) -> UpRecord | None:
    """The record, when its process still runs and is an `agentry up`."""
    record = read_record(data_dir)
    if record is None or not process_records.process_alive(record.pid):
        return None
    argv = _command_line(record.pid)
    if argv is not None and not is_agentry_up(argv):
        return None
    return record


def stop_running(
    data_dir: Path,
    *,
    timeout: float,
    on_stopping: Callable[[UpRecord], None] = lambda _record: None,
) -> tuple[StopOutcome, UpRecord | None]:
    """SIGTERM the recorded `agentry up` and wait up to `timeout` seconds for it to exit."""
    record = running_record(data_dir)
    if record is None:
        stale = read_record(data_dir)
        if stale is None:
            return StopOutcome.NOTHING_RUNNING, None
        record_path(data_dir).unlink(missing_ok=True)
        return StopOutcome.STALE, stale
    if record.url is None:
        return StopOutcome.STARTING, record
    on_stopping(record)
    with contextlib.suppress(ProcessLookupError):
        os.kill(record.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while process_records.process_alive(record.pid):
        if time.monotonic() > deadline:
            return StopOutcome.TIMED_OUT, record
        time.sleep(POLL_SECONDS)
    # It removes its record as it exits; one killed mid-stop leaves it behind.
    if read_record(data_dir) == record:
        record_path(data_dir).unlink(missing_ok=True)
    return StopOutcome.STOPPED, record
