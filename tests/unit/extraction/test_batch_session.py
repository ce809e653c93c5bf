"""Which Ray a batch run joins, the rows Ray Data writes, and the loop-safe blocking call: pure logic."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.infra.settings import Settings
from extraction.jobs import batch, dataset, ray_session
from extraction.jobs.ray_session import RayRecord, choose_address, read_record

pytestmark = pytest.mark.unit


@pytest.fixture(autouse=True)
def _no_ray_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)


@pytest.fixture
def listening() -> Iterator[str]:
    """An address that accepts TCP connections, as a live GCS does."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    try:
        yield f"127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()


def _write(data_dir: Path, record: RayRecord) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / ray_session.RECORD_FILE).write_text(json.dumps(record.__dict__))


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_running_service_ray_is_joined(tmp_path: Path, listening: str) -> None:
    _write(tmp_path, RayRecord(address=listening, pid=os.getpid(), auth_mode="token"))
    address, record = choose_address(Settings(AGENTRY_DATA_DIR=tmp_path))
    assert address == listening and record is not None and record.auth_mode == "token"


def test_ray_address_setting_wins_over_the_record(tmp_path: Path, listening: str) -> None:
    _write(tmp_path, RayRecord(address=listening, pid=os.getpid()))
    settings = Settings(AGENTRY_DATA_DIR=tmp_path, RAY_ADDRESS="10.0.0.5:6379")
    assert choose_address(settings) == ("10.0.0.5:6379", None)


def test_without_a_running_service_a_private_ray_is_started(tmp_path: Path, listening: str) -> None:
    assert choose_address(Settings(AGENTRY_DATA_DIR=tmp_path)) == ("local", None)
    # The service that wrote the record is gone (killed without cleaning up).
    _write(tmp_path, RayRecord(address=listening, pid=_dead_pid()))
    assert choose_address(Settings(AGENTRY_DATA_DIR=tmp_path)) == ("local", None)


def test_a_record_whose_ray_does_not_answer_is_ignored(tmp_path: Path) -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    closed = f"127.0.0.1:{probe.getsockname()[1]}"
    probe.close()
    _write(tmp_path, RayRecord(address=closed, pid=os.getpid()))
    assert choose_address(Settings(AGENTRY_DATA_DIR=tmp_path)) == ("local", None)


def test_a_damaged_record_reads_as_none(tmp_path: Path) -> None:
    (tmp_path / ray_session.RECORD_FILE).write_text("{not json")
    assert read_record(tmp_path) is None


def test_forget_removes_only_this_processs_record(tmp_path: Path, listening: str) -> None:
    _write(tmp_path, RayRecord(address=listening, pid=os.getpid() + 1))
    ray_session.forget_running_ray(tmp_path)
    assert read_record(tmp_path) is not None
    _write(tmp_path, RayRecord(address=listening, pid=os.getpid()))
    ray_session.forget_running_ray(tmp_path)
    assert read_record(tmp_path) is None


def test_an_empty_glob_returns_without_joining_ray(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_ray(settings: Settings) -> None:
        raise AssertionError("Ray was joined for no file")

    monkeypatch.setattr(batch, "joined_ray", no_ray)
    assert batch.extract_many(str(tmp_path / "*.pdf"), ["total"]) == []
    assert asyncio.run(batch.extract_many_async(str(tmp_path / "*.pdf"), ["total"])) == []


async def test_run_blocking_works_inside_a_running_loop() -> None:
    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    assert batch.run_blocking(answer) == 42


def test_run_blocking_works_without_a_loop() -> None:
    async def answer() -> str:
        return "ok"

    assert batch.run_blocking(answer) == "ok"


def test_sources_expand_globs_folders_and_file_urls(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    for name in ("a.pdf", "b.docx", "sub/c.pdf"):
        (tmp_path / name).write_bytes(b"x")
    assert dataset.expand_sources([str(tmp_path / "*.pdf")]) == [str(tmp_path / "a.pdf")]
    assert dataset.expand_sources([str(tmp_path)]) == [
        str(tmp_path / n) for n in ("a.pdf", "b.docx", "sub/c.pdf")
    ]
    assert dataset.expand_sources([f"file://{tmp_path}/*.docx"]) == [str(tmp_path / "b.docx")]
    assert dataset.expand_sources([f"file://{tmp_path}/sub/"]) == [str(tmp_path / "sub/c.pdf")]
    # Named twice, read once.
    assert dataset.expand_sources([str(tmp_path / "a.pdf"), str(tmp_path / "*.pdf")]) == [
        str(tmp_path / "a.pdf")
    ]
    with pytest.raises(FileNotFoundError):
        dataset.expand_sources([str(tmp_path / "missing.pdf")])


def test_extract_rows_have_one_column_per_field_and_a_fixed_schema() -> None:
    params = {"json_options": ["total", "items"]}
    result = {
        "overall_confidence": 0.5,
        "fields": {
            "total": {"value": "9.00", "confidence": 0.9, "citations": [{"file": "a.pdf", "page": 1}]},
            "items": {"value": [1, 2], "confidence": 0.1, "citations": []},
        },
    }
    table = dataset.to_table("extract", params, ["a.pdf", "b.pdf"], [result, "the PDF is damaged"])
    rows = table.to_pylist()
    assert table.schema == dataset.schema("extract", params)
    assert rows[0]["total"] == "9.00" and rows[0]["total_confidence"] == 0.9
    assert json.loads(rows[0]["total_citations"]) == [{"file": "a.pdf", "page": 1}]
    assert rows[0]["items"] == "[1, 2]" and rows[0]["items_citations"] is None
    assert rows[1] == {
        "path": "b.pdf",
        "error": "the PDF is damaged",
        "overall_confidence": None,
        "total": None,
        "total_confidence": None,
        "total_citations": None,
        "items": None,
        "items_confidence": None,
        "items_citations": None,
    }


def test_classify_rows_carry_the_category_and_the_whole_classification() -> None:
    outcome = {"classification": {"category": "invoice", "confidence": 0.8}}
    row = dataset.row_of("classify", {}, "a.pdf", outcome)
    assert row["category"] == "invoice" and row["confidence"] == 0.8
    assert json.loads(row["classification"]) == outcome["classification"]


def test_the_job_entrypoint_quotes_what_the_shell_would_split() -> None:
    from extraction.jobs.ray_jobs import entrypoint

    command = entrypoint(["s3://b/in dir/*.pdf", "x.pdf"], ["total", "date"], "s3://b/out", workers=4)
    assert command == (
        "python -m extraction.jobs.ray_jobs --fields total,date --out s3://b/out --format parquet"
        " --workers 4 -- 's3://b/in dir/*.pdf' x.pdf"
    )


def test_a_job_for_the_local_service_names_its_ray_and_interpreter() -> None:
    from extraction.jobs.ray_jobs import entrypoint

    command = entrypoint(["a.pdf"], ["total"], "out", python="/venv/bin/python", ray_address="10.0.0.1:6379")
    assert command.startswith("env RAY_ADDRESS=10.0.0.1:6379 /venv/bin/python -m extraction.jobs.ray_jobs ")


def test_extract_command_takes_the_time_limit_as_a_flag(capsys: pytest.CaptureFixture[str]) -> None:
    from serve.cli import build_parser

    args = build_parser().parse_args(["extract", "a.pdf", "--fields", "total", "--timeout", "300"])
    assert args.timeout == 300.0
    for bad in ("0", "-5", "nan", "soon"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["extract", "a.pdf", "--fields", "total", "--timeout", bad])
    assert "--timeout" in capsys.readouterr().err


def test_the_time_limit_is_a_setting() -> None:
    assert Settings().document_timeout_seconds == 120.0
    assert Settings(AGENTRY_DOCUMENT_TIMEOUT_SECONDS="600").document_timeout_seconds == 600.0


def test_the_worker_pool_defaults_to_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    from core.infra.settings import get_settings
    from extraction.jobs.pool import WorkerPool

    monkeypatch.setenv("AGENTRY_DOCUMENT_TIMEOUT_SECONDS", "45")
    get_settings.cache_clear()
    try:
        assert WorkerPool(1).timeout_seconds == 45.0
        assert WorkerPool(1, timeout_seconds=3).timeout_seconds == 3
    finally:
        get_settings.cache_clear()
