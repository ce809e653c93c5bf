"""/api/v2 parse, extract and classify (sync and async), jobs and batches."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from core.infra.models import PageOf
from core.stores.corrections import JobCorrections, JobCorrectionsReply
from extraction.jobs import service as jobs
from extraction.jobs.schemas import (
    BatchResponse,
    ClassifyRequest,
    ClassifySyncRequest,
    ExtractRequest,
    ExtractSyncRequest,
    ParseRequest,
    ParseSyncRequest,
    V2Response,
)
from serve.extraction_deps import ExtractionDep, ExtractionPrincipalDep
from serve.openapi_params import BatchIdPath, RecordIdPath
from serve.openapi_responses import v2_errors
from serve.paging import PagingDep

router = APIRouter(prefix="/api/v2", tags=["extraction"])

#: A job names a file (400 malformed id, 403 another workspace's, 404 unknown), a URL (400 refused,
#: 413 too large) and a config; the document may be unsupported (415); a sync wait may run out (503).
_JOB = v2_errors(400, 403, 404, 413, 415, 422)
_ONE_RECORD = v2_errors(400)


@router.post("/parse/sync", response_model=V2Response, response_model_exclude_none=True, responses=_JOB)
async def parse_sync(
    body: ParseSyncRequest, principal: ExtractionPrincipalDep, ctx: ExtractionDep
) -> V2Response:
    """Parse a document and answer with the result."""
    return await jobs.run_sync(
        ctx, principal.workspace_id, "parse", body, wait_seconds=ctx.settings.sync_budget_seconds
    )


@router.post(
    "/parse/async",
    response_model=V2Response | BatchResponse,
    response_model_exclude_none=True,
    responses=_JOB,
)
async def parse_async(
    body: ParseRequest, principal: ExtractionPrincipalDep, ctx: ExtractionDep
) -> V2Response | BatchResponse:
    """Queue a parse job (or a batch for a list `input`)."""
    return await jobs.submit(ctx, principal.workspace_id, "parse", body)


@router.post("/extract/sync", response_model=V2Response, response_model_exclude_none=True, responses=_JOB)
async def extract_sync(
    body: ExtractSyncRequest, principal: ExtractionPrincipalDep, ctx: ExtractionDep
) -> V2Response:
    """Extract fields from a document and answer with the result."""
    return await jobs.run_sync(
        ctx, principal.workspace_id, "extract", body, wait_seconds=ctx.settings.sync_budget_seconds
    )


@router.post(
    "/extract/async",
    response_model=V2Response | BatchResponse,
    response_model_exclude_none=True,
    responses=_JOB,
)
async def extract_async(
    body: ExtractRequest, principal: ExtractionPrincipalDep, ctx: ExtractionDep
) -> V2Response | BatchResponse:
    """Queue an extraction job (or a batch for a list `input`)."""
    return await jobs.submit(ctx, principal.workspace_id, "extract", body)


@router.post("/classify/sync", response_model=V2Response, response_model_exclude_none=True, responses=_JOB)
async def classify_sync(
    body: ClassifySyncRequest, principal: ExtractionPrincipalDep, ctx: ExtractionDep
) -> V2Response:
    """Classify a document and answer with the result."""
    return await jobs.run_sync(
        ctx, principal.workspace_id, "classify", body, wait_seconds=ctx.settings.sync_budget_seconds
    )


@router.post(
    "/classify/async",
    response_model=V2Response | BatchResponse,
    response_model_exclude_none=True,
    responses=_JOB,
)
async def classify_async(
    body: ClassifyRequest, principal: ExtractionPrincipalDep, ctx: ExtractionDep
) -> V2Response | BatchResponse:
    """Queue a classification job (or a batch for a list `input`)."""
    return await jobs.submit(ctx, principal.workspace_id, "classify", body)


@router.get(
    "/jobs/{record_id}", response_model=V2Response, response_model_exclude_none=True, responses=_ONE_RECORD
)
async def get_job(
    record_id: RecordIdPath, principal: ExtractionPrincipalDep, ctx: ExtractionDep
) -> V2Response:
    """A job's status, and its result once completed."""
    return await jobs.job_response(ctx, principal.workspace_id, record_id)


@router.put(
    "/jobs/{record_id}/corrections",
    response_model=None,
    responses={200: {"model": JobCorrectionsReply}, **v2_errors(400, 422)},
)
async def correct_job(
    record_id: RecordIdPath, body: JobCorrections, principal: ExtractionPrincipalDep, ctx: ExtractionDep
) -> dict[str, Any]:
    """Keep a reviewer's corrected values of an extraction's fields, with who and when (audited)."""
    return await jobs.correct_job(ctx, principal.workspace_id, record_id, body, key_id=principal.key_id)


@router.get("/batches", response_model=PageOf, responses=v2_errors(400, 422))
async def list_batches(principal: ExtractionPrincipalDep, ctx: ExtractionDep, paging: PagingDep) -> PageOf:
    """The workspace's batches, newest first: `{batch_id, kind, created_at, total, counts}` each,
    `counts` by current item status."""
    return paging.signed(
        await jobs.list_batches(ctx, principal.workspace_id, cursor=paging.cursor, limit=paging.limit)
    )


@router.get(
    "/batches/{batch_id}",
    response_model=BatchResponse,
    response_model_exclude_none=True,
    responses=_ONE_RECORD,
)
async def get_batch(
    batch_id: BatchIdPath, principal: ExtractionPrincipalDep, ctx: ExtractionDep
) -> BatchResponse:
    """A batch with the current status of each item."""
    return await jobs.batch_status(ctx, principal.workspace_id, batch_id)
