"""Extraction jobs: what the HTTP API and the agent tools call.

A job is accepted here (its input resolved to a stored file, its config to validated params),
stored as `processing`, and handed to the `ExtractionCoordinator`, which drives it on the worker
pool. Async callers get the `record_id` at once; sync callers wait for the job without holding a
thread (`extraction.jobs.waiter`), up to a budget.

Entry points:
- `submit(ctx, workspace_id, kind, request)`: a single input gives a `V2Response` with
  `record_id`, a list gives a `BatchResponse`;
- `run_sync(ctx, workspace_id, kind, request)`: the `V2Response` once the job ends (or when the
  budget runs out, still `processing`);
- `run_job(redis, settings, workspace_id, kind, body, model_factory=...)`: for agent tools: the
  job's `result`, or `JobFailed`;
- `locate_in_file(settings, workspace_id, file_id, values, model_factory=...)`: where values occur
  in a stored file (the citations of an agent's structured output);
- `job_response`, `batch_response`: the current state of a job or batch;
- `correct_job`: keep a reviewer's corrections of a completed extraction's fields.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis
from pydantic import ValidationError
from ray.exceptions import RayActorError

from core.infra.backoff import backoff_seconds
from core.infra.blobs import BlobStore
from core.infra.errors import AgentryError, BadRequest, ServiceUnavailable, Unprocessable
from core.infra.ids import new_id
from core.infra.models import PageOf
from core.infra.settings import Settings
from core.stores import configs, corrections, examples, files
from core.stores.configs import ClassifyParams, ExtractParams, ParseParams
from extraction.jobs import store as job_store
from extraction.jobs.coordinator import coordinator, forget_coordinator
from extraction.jobs.edge import sniff_upload
from extraction.jobs.fetch import fetch_url
from extraction.jobs.model import ModelFactory, ModelUnavailable, TaskModel, model_configured
from extraction.jobs.pool import INTERNAL_MESSAGE, JobFailure
from extraction.jobs.schemas import (
    SYNC_REQUESTS,
    BatchItem,
    BatchRecord,
    BatchResponse,
    JobKind,
    JobRecord,
    JobRequest,
    V2Response,
)
from extraction.jobs.waiter import waiter_for

log = logging.getLogger(__name__)

#: Inputs of one batch resolved at once (URL inputs are downloaded while resolving).
BATCH_RESOLVE_CONCURRENCY = 8

Params = ParseParams | ExtractParams | ClassifyParams

_DONE_MESSAGES = {
    "parse": "parse completed",
    "extract": "extraction completed",
    "classify": "classification completed",
}


class JobFailed(AgentryError):
    """The job ended `failed`; the message says why (for agent tools, which get no V2Response)."""

    status_code = 422


@dataclass(frozen=True)
class ExtractionContext:
    """What jobs need from the process they are submitted from."""

    redis: aioredis.Redis
    settings: Settings
    blobs: BlobStore
    model_factory: ModelFactory
    #: The model of the task whose tool submits the jobs; None: the operator's (or the rules).
    task_model: TaskModel | None = None

    async def model_available(self) -> bool:
        """Whether the jobs may ask a model: the task's, or the operator's configured one."""
        if self.task_model is None:
            return model_configured(self.settings)
        try:
            return await self.model_factory.for_task(self.settings, self.redis, self.task_model) is not None
        except ModelUnavailable as exc:
            raise BadRequest(exc.message) from None


async def resolve_input(ctx: ExtractionContext, workspace_id: str, value: str) -> files.FileRecord:
    """The stored file an `input` names: a `file://` id of this workspace, or a URL fetched now."""
    text = value.strip()
    if text.lower().startswith(files.FILE_SCHEME):
        return await files.get_file(ctx.redis, workspace_id, text)
    if text.lower().startswith(("http://", "https://")):
        fetched = await fetch_url(
            text, max_bytes=ctx.settings.max_upload_bytes, allow_private=ctx.settings.allow_private_urls
        )
        return await files.save_bytes(
            ctx.redis,
            ctx.blobs,
            workspace_id,
            fetched.data,
            filename=fetched.filename,
            max_bytes=ctx.settings.max_upload_bytes,
            sniff=sniff_upload,
        )
    raise BadRequest("input must be a file id (file://<uuid>) or an http or https URL")


@dataclass(frozen=True)
class Resolved:
    """What a request's jobs run with: the params, the saved config they came from, if any, and
    that config's examples (`[{example_id, taught}]`, core.stores.examples; [] for none)."""

    params: Params
    config_id: str | None = None
    taught: list[dict[str, Any]] = field(default_factory=list)

    def job_params(self) -> dict[str, Any]:
        """The job's stored params: the config's, plus `examples` when it has any."""
        return examples.with_examples(self.params.model_dump(mode="json"), self.taught)


async def resolve_params(
    ctx: ExtractionContext, workspace_id: str, kind: JobKind, request: JobRequest
) -> Resolved:
    """The params the job runs with, and the saved config (and its examples) they came from."""
    params: Params | None
    if request.config_id is not None:
        saved = await configs.get_config(ctx.redis, workspace_id, request.config_id)
        if saved.type != kind:
            raise BadRequest(f"config {saved.config_id} is a {saved.type} config, not a {kind} config")
        params = saved.typed_params()
        taught = await examples.examples_for_job(ctx.redis, ctx.settings, workspace_id, saved)
    else:
        params = request.inline_params()
        saved, taught = None, []
    if params is None:
        params = ParseParams()
    if params.prompt_mode == "model" and not await ctx.model_available():
        raise BadRequest(
            "prompt_mode 'model' needs an extraction model, and none is configured"
            + (" (OPENAI_API_KEY)" if ctx.task_model is None else " (the task runs on no real model)")
        )
    return Resolved(params, saved.config_id if saved else None, taught)


def output_format(kind: JobKind, params: Params) -> str:
    return "json" if isinstance(params, ClassifyParams) else params.output_format


async def _start(
    ctx: ExtractionContext,
    workspace_id: str,
    kind: JobKind,
    value: str,
    resolved: Resolved,
    batch_id: str | None = None,
) -> JobRecord:
    file = await resolve_input(ctx, workspace_id, value)
    record = await job_store.create_job(
        ctx.redis,
        workspace_id,
        kind=kind,
        input=value,
        file=file.resource(),
        config_id=resolved.config_id,
        params=resolved.job_params(),
        output_format=output_format(kind, resolved.params),
        batch_id=batch_id,
        task_model=ctx.task_model,
    )
    await hand_over(ctx, workspace_id, record.id)
    return record


#: Wait before asking a coordinator again after the last one was unavailable (it doubles, jittered).
COORDINATOR_RETRY_BASE_SECONDS = 0.2
COORDINATOR_RETRY_CAP_SECONDS = 2.0


async def _before_retry(attempt: int) -> None:
    """A restarting coordinator needs a moment: the next try waits (core.infra.backoff)."""
    await asyncio.sleep(
        backoff_seconds(attempt, base=COORDINATOR_RETRY_BASE_SECONDS, cap=COORDINATOR_RETRY_CAP_SECONDS)
    )


async def hand_over(ctx: ExtractionContext, workspace_id: str, job_id: str) -> None:
    """Give the job to the coordinator. It stays pending in Redis whatever happens here: a
    coordinator that is restarting picks it up when it is back, and one that is gone for good is
    created again (and resumes the pending jobs) on the second try or on the next call."""
    for attempt in (1, 2):
        try:
            await coordinator(ctx.settings, ctx.model_factory).submit.remote(workspace_id, job_id)
            return
        except RayActorError as exc:
            forget_coordinator()
            log.warning(
                "extraction coordinator unavailable (%s, attempt %d); job %s stays pending",
                type(exc).__name__,
                attempt,
                job_id,
            )
            if attempt == 1:
                await _before_retry(attempt)


def v2_response(record: JobRecord, result: dict[str, Any] | None = None) -> V2Response:
    if record.status == "processing":
        message = f"{record.kind} job is processing; poll GET /api/v2/jobs/{record.id}"
    elif record.status == "completed":
        message = _DONE_MESSAGES[record.kind]
    else:
        message = record.error or "the job failed"
    return V2Response(
        success=record.status != "failed",
        message=message,
        record_id=record.id,
        file_id=record.file_id,
        config_id=record.config_id,
        status=record.status,
        result=result if record.status == "completed" else None,
        processing_time=record.processing_time,
        filename=record.filename,
        output_format=record.output_format,
        file_size=record.file_size,
    )


async def _response(ctx: ExtractionContext, record: JobRecord) -> V2Response:
    result = None
    if record.status == "completed":
        result = await job_store.get_result(ctx.redis, record.workspace_id, record.id)
    return v2_response(record, result)


async def submit(
    ctx: ExtractionContext, workspace_id: str, kind: JobKind, request: JobRequest
) -> V2Response | BatchResponse:
    """Queue the job (or one job per input of a list) and answer at once."""
    resolved = await resolve_params(ctx, workspace_id, kind, request)
    if not request.is_batch():
        record = await _start(ctx, workspace_id, kind, request.inputs()[0], resolved)
        return v2_response(record)
    batch_id = new_id()
    slots = asyncio.Semaphore(BATCH_RESOLVE_CONCURRENCY)

    async def one(value: str) -> BatchItem:
        async with slots:
            try:
                record = await _start(ctx, workspace_id, kind, value, resolved, batch_id)
            except AgentryError as exc:
                return BatchItem(input=value, status="failed", error=exc.message)
            return BatchItem(input=value, record_id=record.id, status=record.status)

    items = list(await asyncio.gather(*(one(value) for value in request.inputs())))
    batch = await job_store.create_batch(ctx.redis, workspace_id, batch_id=batch_id, kind=kind, items=items)
    return batch_response(batch)


def batch_response(batch: BatchRecord) -> BatchResponse:
    counts: dict[str, int] = {}
    for item in batch.items:
        counts[item.status] = counts.get(item.status, 0) + 1
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    return BatchResponse(
        success=counts.get("failed", 0) < len(batch.items),
        message=f"batch of {len(batch.items)} {batch.kind} jobs: {summary}",
        batch_id=batch.id,
        items=batch.items,
    )


async def run_sync(
    ctx: ExtractionContext, workspace_id: str, kind: JobKind, request: JobRequest, *, wait_seconds: float
) -> V2Response:
    """Run one job and answer when it ends; after `wait_seconds` answer `processing` with its id."""
    resolved = await resolve_params(ctx, workspace_id, kind, request)
    record = await _start(ctx, workspace_id, kind, request.inputs()[0], resolved)
    final = await waiter_for(ctx.redis).wait(workspace_id, record.id, wait_seconds)
    return await _response(ctx, final or record)


async def job_response(ctx: ExtractionContext, workspace_id: str, record_id: str) -> V2Response:
    record = await job_store.get_job(ctx.redis, workspace_id, record_id)
    if record.status == "processing":
        # A coordinator restarted with its cluster resumes pending jobs as soon as it is reached.
        await hand_over(ctx, workspace_id, record.id)
    response = await _response(ctx, record)
    if record.kind == "extract" and record.status == "completed":
        response.corrections = await corrections.read(ctx.redis, workspace_id, "job", record.id) or None
    return response


async def correct_job(
    ctx: ExtractionContext,
    workspace_id: str,
    record_id: str,
    body: corrections.JobCorrections,
    *,
    key_id: str,
) -> dict[str, Any]:
    """Keep a reviewer's corrections of a completed extraction job's fields: `{success, record_id,
    corrections}` with all of the job's corrections. 400 for a job that is no completed
    extraction, 422 for a field the job's result does not have."""
    record = await job_store.get_job(ctx.redis, workspace_id, record_id)
    if record.kind != "extract":
        raise BadRequest(
            f"job {record.id} is a {record.kind} job: only an extraction's fields can be corrected"
        )
    result = (
        await job_store.get_result(ctx.redis, workspace_id, record.id)
        if record.status == "completed"
        else None
    )
    if result is None:
        raise BadRequest(
            f"job {record.id} is {record.status}: only a completed extraction's fields can be corrected"
        )
    corrections.check_names(body.fields, set(result.get("fields") or {}), "fields")
    saved = await corrections.save(ctx.redis, workspace_id, "job", record.id, body.fields, key_id=key_id)
    return {"success": True, "record_id": record.id, "corrections": saved}


async def list_batches(
    ctx: ExtractionContext, workspace_id: str, *, cursor: str | None, limit: int | None
) -> PageOf:
    return await job_store.list_batches(ctx.redis, workspace_id, cursor=cursor, limit=limit)


async def batch_status(ctx: ExtractionContext, workspace_id: str, batch_id: str) -> BatchResponse:
    return batch_response(await job_store.get_batch(ctx.redis, workspace_id, batch_id))


async def run_job(
    redis: aioredis.Redis,
    settings: Settings,
    workspace_id: str,
    kind: JobKind,
    body: dict[str, Any],
    *,
    model_factory: ModelFactory,
    task_model: TaskModel | None = None,
    timeout_seconds: float | None = None,
) -> dict[str, Any]:
    """Run a parse, extract or classify job for an agent tool and return its `result`.

    `body` is the body of `/api/v2/{kind}/sync` (`input` a `file://` id or a URL). Raises
    `Unprocessable` for an invalid body, the request's `AgentryError` (400/403/404/413/415) when it
    is refused, `JobFailed` when the job fails, and `ServiceUnavailable` when `timeout_seconds`
    runs out first (the job goes on; `None` waits for its end). `task_model`: the model of the
    task the tool runs for, which the job asks instead of the operator's (None: no task).
    """
    try:
        request = SYNC_REQUESTS[kind].model_validate(body)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'body'}: {err['msg']}" for err in exc.errors()
        )
        raise Unprocessable(f"invalid {kind} request: {problems}") from None
    ctx = ExtractionContext(redis, settings, BlobStore(settings.resolved_blob_url), model_factory, task_model)
    resolved = await resolve_params(ctx, workspace_id, kind, request)  # type: ignore[arg-type]
    record = await _start(ctx, workspace_id, kind, request.inputs()[0], resolved)
    final = await waiter_for(redis).wait(workspace_id, record.id, timeout_seconds) or record
    if final.status == "failed":
        raise JobFailed(final.error or "the job failed")
    if final.status == "processing":
        raise ServiceUnavailable(f"the {kind} job {final.id} is still processing")
    result = await job_store.get_result(redis, workspace_id, final.id)
    if result is None:
        raise JobFailed("the job's result is no longer available")
    return result


async def locate_in_file(
    settings: Settings,
    workspace_id: str,
    file_id: str,
    values: list[Any],
    *,
    model_factory: ModelFactory,
    timeout_seconds: float,
) -> dict[str, Any]:
    """`{pages, citations}`: the file's pages and, for each value in order, every place it occurs
    (`extraction.fields.documents.locate`), searched on the worker pool in the file's (cached) parse.

    Raises the file's `AgentryError` (404 when it is gone), `JobFailed` when the document cannot
    be processed, and `ServiceUnavailable` when the pool cannot answer within `timeout_seconds`.
    """
    return await ask_coordinator(
        settings,
        model_factory,
        "locate",
        (workspace_id, file_id, values),
        timeout_seconds=timeout_seconds,
        what=f"looking for values in file {file_id}",
    )


async def ask_coordinator(
    settings: Settings,
    model_factory: ModelFactory,
    method: str,
    args: tuple[Any, ...],
    *,
    timeout_seconds: float,
    what: str,
) -> dict[str, Any]:
    """The answer of one of the coordinator's document calls (`locate`, `teach`), asked again once
    when the coordinator was unavailable. Raises the call's `AgentryError`, `JobFailed` when the
    document cannot be processed, and `ServiceUnavailable` when no answer comes in time."""
    for attempt in (1, 2):
        try:
            call = getattr(coordinator(settings, model_factory), method).remote(*args)
            result: dict[str, Any] = await asyncio.wait_for(call, timeout_seconds)
            return result
        except TimeoutError:
            raise ServiceUnavailable(f"{what} took too long") from None
        except RayActorError as exc:
            forget_coordinator()
            log.warning("extraction coordinator unavailable (%s, attempt %d)", type(exc).__name__, attempt)
            if attempt == 1:
                await _before_retry(attempt)
        except JobFailure as exc:
            # Raised in the coordinator, it arrives wrapped by Ray; the original holds the message.
            cause = getattr(exc, "cause", None) or exc
            raise JobFailed(getattr(cause, "message", None) or INTERNAL_MESSAGE) from None
    raise ServiceUnavailable("the extraction coordinator is unavailable")
