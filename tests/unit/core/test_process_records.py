"""The data directory's process records (core.infra.process_records): whole writes, lenient reads,
removed only by the process they name."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from core.infra import process_records


@dataclass(frozen=True)
class Record:
    pid: int
    url: str | None = None


def test_a_record_reads_back_as_written_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "up.json"
    process_records.write(path, Record(pid=41, url="http://127.0.0.1:8000"))
    assert process_records.read(path, Record) == Record(pid=41, url="http://127.0.0.1:8000")
    assert sorted(p.name for p in path.parent.iterdir()) == ["up.json"]


def test_a_missing_cut_short_or_other_shaped_record_reads_as_none(tmp_path: Path) -> None:
    path = tmp_path / "up.json"
    assert process_records.read(path, Record) is None
    path.write_text('{"pid": 4')
    assert process_records.read(path, Record) is None
    path.write_text('{"pid": 4, "port": 80}')
    assert process_records.read(path, Record) is None


def test_only_the_process_a_record_names_removes_it(tmp_path: Path) -> None:
    path = tmp_path / "up.json"
    process_records.write(path, Record(pid=os.getpid() + 1))
    process_records.forget_own(path, Record)
    assert path.exists()
    process_records.write(path, Record(pid=os.getpid()))
    process_records.forget_own(path, Record)
    assert not path.exists()


def test_a_process_is_alive_until_it_exits_and_an_unreaped_one_counts_as_gone() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        assert process_records.process_alive(child.pid)
        assert child.stdin is not None
        child.stdin.close()
        # Not reaped (no wait yet): the kernel keeps a zombie, which holds nothing.
        deadline = time.monotonic() + 30
        while process_records.process_alive(child.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not process_records.process_alive(child.pid)
        assert Path(f"/proc/{child.pid}").exists()
    finally:
        child.wait(timeout=30)
    assert not process_records.process_alive(child.pid)
