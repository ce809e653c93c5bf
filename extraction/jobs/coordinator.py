"""`ExtractionCoordinator`: the small detached Ray actor that drives extraction jobs to their end.

Jobs are not driven by the HTTP replica that accepted them, so restarting or scaling the replicas
never loses one: a replica stores the job, hands its id to the coordinator and returns. The
coordinator reads the file, runs the work on the pool, writes the result and wakes the waiters.
It holds no CPU (`num_cpus=0`) and no state of its own: if it dies, Ray restarts it and it
resumes every job still listed as pending in Redis.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import ray

from core import files, metrics
from core.blobs import BlobStore
from core.errors import AgentryError
from core.settings import Settings, get_settings
from core.store import STORE_ERRORS, async_client, resolve_redis_url
from extraction.jobs import store as job_store
from extraction.jobs.model import ModelCaller, ModelFactory, ModelUnavailable, TaskModel
from extraction.jobs.parsed_cache import ParsedCache
from extraction.jobs.pool import (
    INTERNAL_MESSAGE,
    JobFailure,
    WorkerPool,
    locate_document,
    run_document,
    teach_document,
)
from extraction.jobs.schemas import JobRecord
from extraction.jobs.stages import DocumentSpec

log = logging.getLogger(__name__)

COORDINATOR_NAME = "ExtractionCoordinator"
#: docs/architecture.md: named actors live in the "agentry" namespace (Serve replicas run in "serve").
RAY_NAMESPACE = "agentry"
#: Jobs the coordinator drives at once; the pool bounds the CPU work whatever this is.
MAX_CONCURRENT_CALLS = 1000


@ray.remote(num_cpus=0, max_restarts=-1, max_concurrency=MAX_CONCURRENT_CALLS)  # type: ignore[call-overload]
class ExtractionCoordinator:
    def __init__(self, model_factory: ModelFactory) -> None:
        self._settings = get_settings()
        self._model_factory = model_factory
        self._model = model_factory(self._settings)
        self._jobs: dict[str, asyncio.Task[None]] = {}
        self._redis: Any = None
        self._pool: WorkerPool | None = None
        self._blobs = BlobStore(self._settings.resolved_blob_url)
        self._parsed = ParsedCache()
        self._starting = asyncio.Lock()

    async def submit(self, workspace_id: str, job_id: str) -> None:
        """Start driving the job (a job already being driven is left alone)."""
        await self._start()
        self._drive(workspace_id, job_id)

    async def locate(self, workspace_id: str, file_id: str, values: list[Any]) -> dict[str, Any]:
        """`{pages, citations}` of `values` in the workspace's file (`extraction.fields.documents.locate`).

        Raises the file's `AgentryError` (404 when it is gone) or `JobFailure`.
        """
        await self._start()
        assert self._pool is not None
        file = await files.get_file(self._redis, workspace_id, file_id)
        data = functools.partial(files.read_bytes, self._blobs, file)
        return await locate_document(
            self._spec("parse", {}, file), data, values, pool=self._pool, cache=self._parsed
        )

    async def teach(self, workspace_id: str, file_id: str, values: dict[str, Any]) -> dict[str, Any]:
        """An example taught on the workspace's file (`extraction.jobs.pool.teach_in_document`).

        Raises the file's `AgentryError` (404 when it is gone) or `JobFailure`.
        """
        await self._start()
        assert self._pool is not None
        file = await files.get_file(self._redis, workspace_id, file_id)
        data = functools.partial(files.read_bytes, self._blobs, file)
        return await teach_document(
            self._spec("parse", {}, file), data, values, pool=self._pool, cache=self._parsed
        )

    async def running(self) -> int:
        """How many jobs are being driven now (also: the coordinator is up and has resumed)."""
        await self._start()
        return len(self._jobs)

    async def _start(self) -> None:
        async with self._starting:
            if self._redis is not None:
                return
            url, _ = resolve_redis_url(self._settings)
            redis = async_client(url)
            # Listed before the coordinator counts as started: if the store is down now, the next
            # call tries again instead of leaving the pending jobs behind.
            pending = await job_store.pending_jobs(redis)
            self._redis, self._pool = redis, WorkerPool()
            for workspace_id, job_id in pending:
                self._drive(workspace_id, job_id)

    def _drive(self, workspace_id: str, job_id: str) -> None:
        if job_id in self._jobs:
            return
        task = asyncio.get_running_loop().create_task(self._run(workspace_id, job_id))
        self._jobs[job_id] = task
        task.add_done_callback(lambda _: self._jobs.pop(job_id, None))

    async def _run(self, workspace_id: str, job_id: str) -> None:
        redis = self._redis
        record = await _stored(job_id, lambda: self._begin(workspace_id, job_id))
        if record is None:
            return
        started = time.perf_counter()
        result: dict[str, Any] | None = None
        error: str | None = None
        while True:
            try:
                result = await self._work(record)
            except STORE_ERRORS as exc:
                # Reading the file's record needs the store: wait for it rather than fail the job.
                await _store_pause(job_id, exc)
                continue
            except JobFailure as exc:
                error = exc.message
            except AgentryError as exc:
                error = exc.message
            except Exception as exc:
                # Only the kind of error is logged: its text may quote the document.
                log.error("extraction job %s failed with %s", job_id, type(exc).__name__)
                error = INTERNAL_MESSAGE
            break
        # The work is done: keep trying to store its outcome until the store takes it.
        await _stored(job_id, lambda: job_store.finish_job(redis, record, result=result, error=error))
        metrics.observe(
            metrics.EXTRACTION_JOB_SECONDS,
            time.perf_counter() - started,
            kind=record.kind,
            outcome="failed" if error is not None else "completed",
        )

    async def _begin(self, workspace_id: str, job_id: str) -> JobRecord | None:
        """The job's record stamped as started, or None when it is no longer to be done."""
        record = await job_store.load_job(self._redis, workspace_id, job_id)
        if record is None or record.status != "processing":
            await job_store.forget_pending(self._redis, workspace_id, job_id)
            return None
        return await job_store.mark_started(self._redis, record)

    async def _work(self, record: JobRecord) -> dict[str, Any]:
        assert self._pool is not None
        file = await files.get_file(self._redis, record.workspace_id, record.file_id)
        data = functools.partial(files.read_bytes, self._blobs, file)
        # A task's job asks the task's own model, never the operator's: the document goes only
        # where the task's agent sends its steps.
        model = (
            self._model if record.task_model is None else await self._task_model(record, record.task_model)
        )
        spec = self._spec(record.kind, record.params, file, model=model, task_model=record.task_model)
        return await run_document(spec, data, pool=self._pool, model=model, cache=self._parsed)

    async def _task_model(self, record: JobRecord, task_model: TaskModel) -> ModelCaller | None:
        """The task's model, its connection's key read from the store here; None for a job that
        asks no model (parse, `rules`), which so never fails for its model."""
        if record.kind == "parse" or record.params.get("prompt_mode", "auto") == "rules":
            return None
        try:
            return await self._model_factory.for_task(self._settings, self._redis, task_model)
        except ModelUnavailable as exc:
            raise JobFailure(exc.message) from None

    def _spec(
        self,
        kind: str,
        params: dict[str, Any],
        file: files.FileRecord,
        *,
        model: ModelCaller | None = None,
        task_model: TaskModel | None = None,
    ) -> DocumentSpec:
        return DocumentSpec(
            kind=kind,
            params=params,
            filename=file.filename,
            format=file.format,
            file_size=file.file_size,
            sha256=file.sha256,
            model_available=model is not None,
            model_factory=self._model_factory,
            task_model=task_model,
        )


#: Pause before a job's step that could not reach the store tries again.
STORE_RETRY_SECONDS = 1.0

T = TypeVar("T")


async def _store_pause(job_id: str, exc: Exception) -> None:
    log.warning(
        "extraction job %s: the state store is unreachable (%s); trying again", job_id, type(exc).__name__
    )
    await asyncio.sleep(STORE_RETRY_SECONDS)


async def _stored(job_id: str, step: Callable[[], Awaitable[T]]) -> T:
    """`step()`'s result, retried while the store is unreachable."""
    while True:
        try:
            return await step()
        except STORE_ERRORS as exc:
            await _store_pause(job_id, exc)


_handles: dict[str, Any] = {}


def coordinator(settings: Settings, model_factory: ModelFactory) -> Any:
    """The coordinator's handle, creating it on first use (one per Ray cluster).

    The creator's `model_factory` is the one used; every caller passes the same builder
    (`actors.models.extraction.extraction_model`). Ray must already be initialised.
    """
    handle = _handles.get("coordinator")
    if handle is not None:
        return handle
    redis_url, _ = resolve_redis_url(settings)
    handle = ExtractionCoordinator.options(  # type: ignore[attr-defined]
        name=COORDINATOR_NAME,
        namespace=RAY_NAMESPACE,
        lifetime="detached",
        get_if_exists=True,
        runtime_env={"env_vars": settings.worker_env(redis_url=redis_url)},
    ).remote(model_factory)
    _handles["coordinator"] = handle
    return handle


def forget_coordinator() -> None:
    """Drop the cached handle, so the next `coordinator()` finds (or recreates) the live actor."""
    _handles.pop("coordinator", None)
