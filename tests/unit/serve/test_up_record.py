"""`agentry down`'s half of serve/up_record.py: which record names a running `agentry up`, and
stopping one (a real child process standing in for it, named as `agentry up` is)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest

from serve import up_record
from serve.up_record import StopOutcome, UpRecord

#: A process whose command line reads as `python -m serve.cli up`: it says it started, then sleeps
#: until signalled.
STAND_IN = [sys.executable, "-c", "import time; print(flush=True); time.sleep(120)", "-m", "serve.cli", "up"]


@pytest.fixture
def stand_in() -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(STAND_IN, stdout=subprocess.PIPE)
    try:
        # Until the child runs its own program: just after the fork its command line is still
        # pytest's, which no `agentry down` would signal (a loaded machine showed it).
        assert process.stdout is not None and process.stdout.readline() == b"\n"
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


def put(data_dir: Path, record: UpRecord) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    up_record.record_path(data_dir).write_text(json.dumps(asdict(record)))


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["/repo/.venv/bin/python", "/repo/.venv/bin/agentry", "up"], True),
        (["/usr/bin/python3", "-m", "serve.cli", "up", "--port", "8001"], True),
        (["agentry", "up"], True),
        (["/repo/.venv/bin/agentry", "keys", "list"], False),
        (["/usr/bin/python3", "-m", "pytest"], False),
        (["/usr/bin/vim", "up"], False),
        ([], False),
    ],
)
def test_only_an_agentry_up_command_line_counts(argv: list[str], expected: bool) -> None:
    assert up_record.is_agentry_up(argv) is expected


def test_a_record_is_written_read_and_forgotten_only_by_its_writer(tmp_path: Path) -> None:
    written = up_record.write_record(tmp_path / "d", "http://127.0.0.1:8000")
    assert up_record.read_record(tmp_path / "d") == written
    put(tmp_path / "d", UpRecord(pid=written.pid + 1, started_at=written.started_at, url=written.url))
    up_record.forget_record(tmp_path / "d")  # another process's record stays
    assert up_record.read_record(tmp_path / "d") is not None
    up_record.write_record(tmp_path / "d")
    up_record.forget_record(tmp_path / "d")
    assert up_record.read_record(tmp_path / "d") is None


def test_nothing_recorded_is_nothing_running(tmp_path: Path) -> None:
    assert up_record.stop_running(tmp_path, timeout=1) == (StopOutcome.NOTHING_RUNNING, None)
    up_record.record_path(tmp_path).write_text("{not json")
    assert up_record.stop_running(tmp_path, timeout=1)[0] is StopOutcome.NOTHING_RUNNING


def test_a_record_of_an_exited_or_other_process_is_stale_and_removed(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(timeout=10)
    put(tmp_path, UpRecord(pid=gone.pid, started_at="t", url="http://x"))
    outcome, record = up_record.stop_running(tmp_path, timeout=1)
    assert outcome is StopOutcome.STALE and record is not None and record.pid == gone.pid
    assert not up_record.record_path(tmp_path).exists()

    # This test's own process runs, but it is no `agentry up` (a pid reused): never signalled.
    put(tmp_path, UpRecord(pid=os.getpid(), started_at="t", url="http://x"))
    assert up_record.stop_running(tmp_path, timeout=1)[0] is StopOutcome.STALE


def test_an_up_still_starting_is_left_alone(tmp_path: Path, stand_in: subprocess.Popen[bytes]) -> None:
    put(tmp_path, UpRecord(pid=stand_in.pid, started_at="t", url=None))
    assert up_record.stop_running(tmp_path, timeout=1)[0] is StopOutcome.STARTING
    assert stand_in.poll() is None and up_record.record_path(tmp_path).exists()


def test_a_serving_up_is_sent_sigterm_and_waited_for(
    tmp_path: Path, stand_in: subprocess.Popen[bytes]
) -> None:
    put(tmp_path, UpRecord(pid=stand_in.pid, started_at="t", url="http://127.0.0.1:8000"))
    seen: list[UpRecord] = []
    outcome, record = up_record.stop_running(tmp_path, timeout=30, on_stopping=seen.append)
    assert outcome is StopOutcome.STOPPED and seen == [record]
    # It exited on SIGTERM (not reaped yet when `stop_running` saw it go: a zombie counts as gone).
    assert stand_in.wait(timeout=5) == -15
    assert not up_record.record_path(tmp_path).exists()


def test_an_up_that_does_not_stop_in_time_is_reported(tmp_path: Path) -> None:
    # SIGTERM ignored, as by an `agentry up` stuck in its stop.
    stubborn = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN);"
            " print(flush=True); time.sleep(120)",
            "-m",
            "serve.cli",
            "up",
        ],
        stdout=subprocess.PIPE,
    )
    try:
        stubborn.stdout.readline()  # type: ignore[union-attr]  # its handler is in place
        put(tmp_path, UpRecord(pid=stubborn.pid, started_at="t", url="http://127.0.0.1:8000"))
        assert up_record.stop_running(tmp_path, timeout=0.5)[0] is StopOutcome.TIMED_OUT
        assert stubborn.poll() is None and up_record.record_path(tmp_path).exists()
    finally:
        stubborn.kill()
        stubborn.wait(timeout=10)
