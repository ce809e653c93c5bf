"""`agentry extract` beside a running service joins that service's Ray instead of starting another.

The session service is started by `start_service`, the start-up `agentry up` runs, which records its
Ray's address in the data dir; the command runs in a separate process with that data dir and
neither RAY_ADDRESS nor RAY_AUTH_MODE, as a person's second terminal would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from extraction.jobs.ray_session import read_record
from tests.integration.conftest import Service
from tests.support import documents

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]


def test_extract_command_joins_the_running_services_ray(service: Service, tmp_path: Path) -> None:
    import ray

    if service.settings.ray_address:
        pytest.skip("the session runs on a given cluster: there is no local service Ray to join")
    record = read_record(service.data_dir)
    assert record is not None and record.address == ray.get_runtime_context().gcs_address
    (tmp_path / "a.pdf").write_bytes(documents.pdf_text([["Invoice Number: INV-7", "Total: 7.00"]]))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "AGENTRY_", "REDIS_URL"))}
    env |= {"AGENTRY_DATA_DIR": str(service.data_dir), "AGENTRY_LOG_LEVEL": "INFO"}
    completed = subprocess.run(
        [
            *(sys.executable, "-m", "serve.cli", "extract", str(tmp_path / "*.pdf")),
            *("--fields", "invoice_number", "--timeout", "90", "--quiet"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert json.loads(completed.stdout)["data"]["invoice_number"] == "INV-7"
    assert f"joining the Ray cluster at {record.address}" in completed.stderr
    # The command ran as a driver (a job) of the service's own cluster.
    drivers = [job for job in ray._private.state.jobs() if "serve.cli extract" in job.get("Entrypoint", "")]
    assert drivers, "no `agentry extract` driver in the service cluster's job table"


def test_empty_glob_returns_at_once_without_ray(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "AGENTRY_", "REDIS_URL"))}
    env["AGENTRY_DATA_DIR"] = str(tmp_path / "data")
    completed = subprocess.run(
        [sys.executable, "-m", "serve.cli", "extract", str(tmp_path / "*.pdf"), "--fields", "total"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 1
    assert "no file matches" in completed.stderr
    # No Ray was started for nothing: Ray's start-up would have written its session's logs.
    assert "Started a local Ray instance" not in completed.stderr


def test_the_ray_job_entrypoint_writes_one_parquet_row_per_document(service: Service, tmp_path: Path) -> None:
    """What `extraction.jobs.ray_jobs.submit_extraction` has the cluster run, run here as a job driver."""
    import pyarrow.parquet as pq

    from extraction.jobs.ray_jobs import entrypoint

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.pdf").write_bytes(documents.pdf_text([["Invoice Number: INV-8", "Total: 8.00"]]))
    (tmp_path / "in" / "cut.pdf").write_bytes(b"%PDF-1.7 cut")
    command = entrypoint([str(tmp_path / "in" / "*.pdf")], ["invoice_number", "total"], str(tmp_path / "out"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_ADDRESS", "AGENTRY_", "REDIS_URL"))}
    env |= {"AGENTRY_DATA_DIR": str(service.data_dir), "PATH": f"{Path(sys.executable).parent}:{env['PATH']}"}
    completed = subprocess.run(
        command, shell=True, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert f"1 of 2 documents extracted into {tmp_path / 'out'}" in completed.stdout
    rows = {Path(r["path"]).name: r for r in pq.read_table(tmp_path / "out").to_pylist()}
    assert rows["a.pdf"]["invoice_number"] == "INV-8" and rows["a.pdf"]["total_confidence"] > 0
    assert "damaged" in rows["cut.pdf"]["error"]
