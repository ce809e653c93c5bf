"""The data directory's process records (core.infra.process_records): whole writes, lenient reads,
removed only by the process they name."""

from __future__ import annotations

import os
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
