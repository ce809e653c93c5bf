"""An extraction worker killed (`kill -9`) in the middle of a parse: the job ends `failed` with a
message a user can act on, and the pool goes on to run the next job."""

from __future__ import annotations

import io
import os
import signal
from pathlib import Path

import httpx
import pytest

from extraction.jobs.pool import CRASHED_MESSAGE
from tests.support.documents import pdf_text
from tests.support.service import wait_for
from tests.support.session_service import Service

pytestmark = pytest.mark.reliability

#: A Ray worker's process title while it runs our parse task.
PARSE_TITLE = b"ray::parse_range"


def _scanned_pdf(pages: int) -> bytes:
    """Image-only pages of text: every page goes through OCR, so one parse takes seconds."""
    import pymupdf
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=28)
    doc = pymupdf.open()
    for number in range(1, pages + 1):
        picture = Image.new("RGB", (1240, 1754), "white")
        draw = ImageDraw.Draw(picture)
        for line in range(40):
            draw.text(
                (80, 80 + line * 40),
                f"Page {number} line {line}: patient intake notes",
                fill="black",
                font=font,
            )
        buffer = io.BytesIO()
        picture.save(buffer, format="PNG")
        page = doc.new_page(width=595, height=842)
        page.insert_image(page.rect, stream=buffer.getvalue())
    data = doc.tobytes()
    doc.close()
    return bytes(data)


def _parse_workers(data_dir: Path) -> list[int]:
    """Pids of this service's Ray workers running a parse now (other Ray instances share the machine:
    ours carry our data dir in their environment)."""
    marker = f"AGENTRY_DATA_DIR={data_dir}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if not (entry / "cmdline").read_bytes().startswith(PARSE_TITLE):
                continue
            if marker in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _job(api: httpx.Client, record_id: str) -> dict | None:
    body: dict = api.get(f"/api/v2/jobs/{record_id}").json()
    return body if body["status"] != "processing" else None


def test_a_killed_worker_fails_its_job_and_the_pool_recovers(service: Service) -> None:
    with service.client(service.key()) as api:
        upload = api.post("/api/v2/files", files={"file": ("scan.pdf", _scanned_pdf(6))})
        assert upload.status_code == 200, upload.text
        queued = api.post("/api/v2/parse/async", json={"input": upload.json()["file_id"]}).json()
        pids = wait_for(
            lambda: _parse_workers(service.data_dir), timeout=120, interval=0.02, what="the parse"
        )
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        failed = wait_for(lambda: _job(api, queued["record_id"]), timeout=120, interval=0.5, what="the job")
        assert failed["status"] == "failed" and failed["success"] is False, failed
        assert failed["message"] == CRASHED_MESSAGE

        # The pool starts a fresh worker for the next job.
        small = api.post("/api/v2/files", files={"file": ("ok.pdf", pdf_text([["Recovered pool"]]))}).json()
        again = api.post("/api/v2/parse/async", json={"input": small["file_id"]}).json()
        done = wait_for(lambda: _job(api, again["record_id"]), timeout=120, interval=0.5, what="the next job")
        assert done["status"] == "completed", done
        assert "Recovered pool" in str(done["result"])
