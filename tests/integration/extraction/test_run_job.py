"""`extraction.jobs.service.run_job`, the entry point of the agent tools, called from outside the HTTP edge
(as a task actor does): same validation, same jobs, the result or a clear error."""

from __future__ import annotations

import uuid

import httpx
import pytest

from actors.models.extraction import extraction_model
from core.infra import keys
from core.infra.errors import BadRequest, Forbidden, NotFound, Unprocessable
from core.stores.files import parse_file_id
from extraction.jobs.service import JobFailed, run_job
from tests.integration.conftest import Service
from tests.integration.extraction.conftest import upload
from tests.support import documents
from tests.support.service import run_async

pytestmark = pytest.mark.integration


def call(service: Service, workspace_id: str, kind: str, body: dict) -> dict:
    async def work(redis) -> dict:
        return await run_job(
            redis,
            service.settings,
            workspace_id,
            kind,
            body,
            model_factory=extraction_model,
            timeout_seconds=60,
        )

    return run_async(service.redis_url, work)


def workspace_of(service: Service, file_id: str) -> str:
    async def work(redis) -> str:
        return await redis.get(keys.owner(parse_file_id(file_id)))

    return run_async(service.redis_url, work)


def test_run_job_returns_the_result_an_endpoint_would(service: Service, api: httpx.Client) -> None:
    file = upload(api, documents.pdf_text([["Invoice Number: T-1", "Total: 3.00"]]))
    workspace_id = workspace_of(service, file["file_id"])
    parsed = call(service, workspace_id, "parse", {"input": file["file_id"]})
    assert "Invoice Number: T-1" in parsed["content"] and parsed["pages"][0]["page"] == 1
    extracted = call(
        service,
        workspace_id,
        "extract",
        {"input": file["file_id"], "extraction_config": {"json_options": ["invoice_number"]}},
    )
    assert extracted["data"] == {"invoice_number": "T-1"}
    classified = call(
        service,
        workspace_id,
        "classify",
        {"input": file["file_id"], "classify_config": {"categories": ["invoice"]}},
    )
    assert classified["classification"]["category"] == "invoice"


def test_run_job_errors(service: Service, api: httpx.Client) -> None:
    file = upload(api, documents.zip_bomb_docx(64 * 1024 * 1024), "bomb.docx")
    workspace_id = workspace_of(service, file["file_id"])
    with pytest.raises(JobFailed, match="ZIP bomb"):
        call(service, workspace_id, "parse", {"input": file["file_id"]})
    with pytest.raises(Unprocessable):
        call(service, workspace_id, "extract", {"input": file["file_id"]})
    with pytest.raises(BadRequest):
        call(service, workspace_id, "parse", {"input": "nonsense"})
    with pytest.raises(NotFound):
        call(service, workspace_id, "parse", {"input": f"file://{uuid.uuid4()}"})
    with pytest.raises(Forbidden):
        call(service, str(uuid.uuid4()), "parse", {"input": file["file_id"]})
