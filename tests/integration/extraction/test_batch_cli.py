"""`agentry extract`: batch extraction of local files on a Ray cluster, as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import documents

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]


def test_extract_command_writes_one_record_per_file(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.pdf").write_bytes(
        documents.pdf_text([["ACME Ltd", "Invoice Number: INV-1", "Total: 10.50"]])
    )
    (folder / "b.docx").write_bytes(documents.docx(["Globex", "Invoice Number: INV-2", "Total: 20.00"]))
    out = tmp_path / "out.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "AGENTRY_", "REDIS_URL"))}
    env["AGENTRY_DATA_DIR"] = str(tmp_path / "data")
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "serve.cli",
            "extract",
            str(folder / "*.pdf"),
            str(folder / "*.docx"),
            "--fields",
            "invoice_number,total",
            "--out",
            str(out),
            "--workers",
            "2",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "2 of 2 files extracted" in completed.stderr
    assert "100%" in completed.stderr  # the progress bar ran to its end
    records = {Path(r["path"]).name: r for r in map(json.loads, out.read_text().splitlines())}
    assert set(records) == {"a.pdf", "b.docx"}
    assert records["a.pdf"]["error"] is None and records["a.pdf"]["data"]["invoice_number"] == "INV-1"
    assert records["b.docx"]["data"]["invoice_number"] == "INV-2"
    assert float(records["b.docx"]["data"]["total"]) == 20.0
    assert records["a.pdf"]["fields"]["total"]["citations"][0]["page"] == 1
