"""Hostile documents and failing workers: each fails its own job with a clear message, and the
service (and the worker pool) carries on.

The pool tests run stand-in workloads (a task that hangs, one that kills its own process, one
that allocates without bound) through the same `WorkerPool` guard and memory cap that every job
uses, in real Ray workers of the session's cluster: no real document hangs or crashes on demand,
and the job timeout (`AGENTRY_DOCUMENT_TIMEOUT_SECONDS`) is too long to wait out in a test.
"""

from __future__ import annotations

import asyncio
import io
import os
import time

import httpx
import pytest
import ray

from extraction.jobs.coordinator import COORDINATOR_NAME, RAY_NAMESPACE
from extraction.jobs.memory import memory_cap
from extraction.jobs.pool import (
    CRASHED_MESSAGE,
    OUT_OF_MEMORY_MESSAGE,
    TASK_OPTIONS,
    JobFailure,
    WorkerPool,
    timeout_message,
)
from tests.integration.extraction.conftest import settle, upload
from tests.support import documents
from tests.support.service import wait_for

pytestmark = pytest.mark.integration


def parse_works(api: httpx.Client) -> None:
    file = upload(api, documents.pdf_text([["Still standing"]]))
    body = settle(api, api.post("/api/v2/parse/sync", json={"input": file["file_id"]}))
    assert body["status"] == "completed" and "Still standing" in body["result"]["content"]
    assert api.get("/healthz").status_code == 200


def test_zip_bomb_fails_its_job_clearly(api: httpx.Client) -> None:
    file = upload(api, documents.zip_bomb_docx(256 * 1024 * 1024), "bomb.docx")
    assert file["format"] == "docx" and file["file_size"] < 2 * 1024 * 1024
    body = settle(api, api.post("/api/v2/parse/sync", json={"input": file["file_id"]}))
    assert body["status"] == "failed" and body["success"] is False
    assert "ZIP bomb" in body["message"] and "result" not in body
    parse_works(api)


def test_image_decompression_bomb_fails_its_job_clearly(api: httpx.Client) -> None:
    from PIL import Image

    out = io.BytesIO()
    Image.new("1", (30_000, 30_000), 1).save(out, format="PNG", optimize=True)
    file = upload(api, out.getvalue(), "huge.png")
    assert file["format"] == "png"
    body = settle(api, api.post("/api/v2/parse/sync", json={"input": file["file_id"]}))
    assert body["status"] == "failed" and "pixels" in body["message"]
    parse_works(api)


def test_damaged_pdf_fails_its_job(api: httpx.Client) -> None:
    data = documents.pdf_text([["Truncated"]])
    file = upload(api, data[: len(data) // 3], "broken.pdf")
    body = settle(api, api.post("/api/v2/parse/sync", json={"input": file["file_id"]}))
    assert body["status"] in ("failed", "completed")
    if body["status"] == "failed":
        assert body["message"] and "Traceback" not in body["message"]
    parse_works(api)


def test_a_hanging_task_is_stopped_and_the_pool_goes_on(api: httpx.Client) -> None:
    @ray.remote(**TASK_OPTIONS)
    def hang() -> None:
        time.sleep(3600)

    pool = WorkerPool(size=1, timeout_seconds=3)
    started = time.monotonic()
    with pytest.raises(JobFailure) as failure:
        asyncio.run(pool.run(hang))
    assert failure.value.message == timeout_message(3) == "the document took longer than 3 s to process"
    assert time.monotonic() - started < 20
    parse_works(api)


def test_a_crashing_worker_fails_its_task_and_the_pool_goes_on(api: httpx.Client) -> None:
    @ray.remote(**TASK_OPTIONS)
    def crash() -> None:
        os.abort()  # what a segfault in a native parser looks like from outside

    with pytest.raises(JobFailure) as failure:
        asyncio.run(WorkerPool(size=1, timeout_seconds=60).run(crash))
    assert failure.value.message == CRASHED_MESSAGE
    parse_works(api)


def test_the_memory_cap_turns_a_runaway_allocation_into_a_clear_failure(api: httpx.Client) -> None:
    @ray.remote(**TASK_OPTIONS)
    def hog() -> int:
        with memory_cap(256 * 1024 * 1024):
            blocks = [bytearray(64 * 1024 * 1024) for _ in range(64)]
            return len(blocks)

    with pytest.raises(JobFailure) as failure:
        asyncio.run(WorkerPool(size=1, timeout_seconds=60).run(hog))
    assert failure.value.message == OUT_OF_MEMORY_MESSAGE
    parse_works(api)


def test_jobs_survive_a_coordinator_restart(api: httpx.Client) -> None:
    # Long enough (40 page ranges) that the job is surely still running when its driver dies.
    pages = 800
    file = upload(api, documents.pdf_text([[f"Resilient page {n}"] for n in range(1, pages + 1)]))
    coordinator = ray.get_actor(COORDINATOR_NAME, namespace=RAY_NAMESPACE)
    queued = api.post("/api/v2/parse/async", json={"input": file["file_id"]}).json()
    ray.kill(coordinator, no_restart=False)
    assert api.get(f"/api/v2/jobs/{queued['record_id']}").json()["status"] == "processing"

    def finished() -> dict | None:
        body = api.get(f"/api/v2/jobs/{queued['record_id']}").json()
        return body if body["status"] != "processing" else None

    body = wait_for(finished, timeout=240, interval=0.5, what="the resumed job")
    assert body["status"] == "completed", body
    assert len(body["result"]["pages"]) == pages
    parse_works(api)


def test_a_coordinator_gone_for_good_is_created_again(api: httpx.Client) -> None:
    ray.kill(ray.get_actor(COORDINATOR_NAME, namespace=RAY_NAMESPACE), no_restart=True)
    parse_works(api)
    assert ray.get_actor(COORDINATOR_NAME, namespace=RAY_NAMESPACE) is not None
