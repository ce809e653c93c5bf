"""The document worker pool: Ray tasks that parse and extract, and the guard every task runs under.

Each piece of document work is a Ray task with one CPU (`num_cpus=1`), so Ray itself bounds the
work to the cluster's CPUs, and `WorkerPool` keeps no more tasks in flight than there are CPUs, so
a task's time limit starts when it can actually run. A task that blows up fails only its own job:

- a task that runs longer than its time limit is force-cancelled, which kills its worker process;
- a worker that dies (a crash in native code, the kernel's OOM killer) fails the task with
  `WorkerCrashedError`; Ray starts a fresh worker for the next task;
- memory is capped inside the task (`extraction.jobs.memory`), so a bomb becomes a `MemoryError`;
- tasks are never retried (`max_retries=0`): the same bytes would blow up again;
- every worker is replaced after `WORKER_MAX_CALLS` tasks, which bounds what native libraries
  leak or fragment over time.

A document of several pages is split into page ranges parsed in parallel and merged in page order:
a large PDF with a text layer in ranges of `PAGES_PER_RANGE`, a scan (an image-only PDF, a
multi-page TIFF) in ranges small enough to spread its OCR over the pool's workers, since OCR costs
seconds a page where a text layer costs milliseconds. The pool's slots are shared fairly between
documents (`slots.FairSlots`), so a small document does not wait behind every range of a long one.
The parsed ranges may be kept in a `ParsedCache`, so a later job or value search on the same file
skips the parse.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, TypeAlias

import ray
from ray.exceptions import (
    OutOfMemoryError,
    RayTaskError,
    TaskCancelledError,
    WorkerCrashedError,
)

from core import metrics
from extraction.formats.document import Document
from extraction.formats.engines import PAGED_FORMATS
from extraction.jobs.memory import TASK_MEMORY_BYTES, memory_cap
from extraction.jobs.model import ModelCaller, ModelReplyError, ModelUnavailable
from extraction.jobs.parsed_cache import ParsedCache
from extraction.jobs.results import finish
from extraction.jobs.slots import FairSlots
from extraction.jobs.stages import DocumentSpec, ModelReply, Stage

log = logging.getLogger(__name__)

#: A PDF with more pages than this is parsed as ranges of this many pages, in parallel.
PAGES_PER_RANGE = 20
#: Most pages in one range of a scan: a few seconds of OCR each, so a long scan interleaves with
#: other documents and a range stays far inside the task time limit.
SCAN_PAGES_PER_RANGE = 4
#: Tasks a worker process runs before Ray replaces it with a fresh one.
WORKER_MAX_CALLS = 25

TASK_OPTIONS: dict[str, Any] = {"num_cpus": 1, "max_retries": 0, "max_calls": WORKER_MAX_CALLS}

CRASHED_MESSAGE = "the worker processing this document crashed"
OUT_OF_MEMORY_MESSAGE = (
    f"the document needs more than {TASK_MEMORY_BYTES / 1024**3:g} GiB of memory to process and was stopped"
)
INTERNAL_MESSAGE = "the document could not be processed because of an internal error"


class JobFailure(Exception):
    """A job's work failed; the message says why in words a user can act on."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


#: A document's bytes, already in the object store, or read only when the document must be parsed.
DocumentBytes: TypeAlias = "bytes | ray.ObjectRef[bytes] | Callable[[], Awaitable[bytes]]"


def timeout_message(seconds: float) -> str:
    return f"the document took longer than {seconds:g} s to process"


@ray.remote(**TASK_OPTIONS)
def count_pages(data: bytes, fmt: str) -> tuple[int, bool]:
    """The document's pages, and whether they are read by OCR (see `engines.page_plan`)."""
    from extraction.formats.engines import page_plan

    with memory_cap():
        return page_plan(data, fmt)


#: Page ranges go to the nodes in turn rather than to the caller's node first: Ray's default
#: keeps tasks on a node until it is half busy, so on a cluster whose head is idle enough every
#: range of every document was parsed there while the workers stood by (seen after a worker was
#: replaced: all 120 pages of two jobs on the head). Ranges of a text layer that parse in
#: milliseconds may still all run on the first worker leased (Ray reuses a leased worker for the
#: next task of the same kind before another node's worker has started), which is the fastest
#: place for them; scans, seconds a page, spread.
@ray.remote(**TASK_OPTIONS, scheduling_strategy="SPREAD")
def parse_range(data: bytes, filename: str, first_page: int, last_page: int | None) -> Document:
    from extraction.formats.engines import parse_bytes
    from extraction.formats.ocr import set_ocr_threads

    # One CPU per task: OCR on every core would only make parallel workers take turns.
    set_ocr_threads(int(TASK_OPTIONS["num_cpus"]))
    started = time.perf_counter()
    with memory_cap():
        doc = parse_bytes(data, filename, first_page=first_page, last_page=last_page)
    _record_pages(doc, time.perf_counter() - started)
    return doc


def _record_pages(doc: Document, seconds: float) -> None:
    # Recorded on the worker that parsed them, so each node's metrics show its own share.
    pages = len(doc.pages)
    if pages:
        metrics.inc(metrics.EXTRACTION_PAGES, pages, format=doc.format)
        metrics.observe(metrics.EXTRACTION_PAGES_PER_SECOND, pages / max(seconds, 1e-6), format=doc.format)


@ray.remote(**TASK_OPTIONS)
def finish_document(spec: DocumentSpec, reply: ModelReply | None, *parts: Document) -> Stage:
    with memory_cap():
        return finish(spec, list(parts), reply)


@ray.remote(**TASK_OPTIONS)
def locate_in_document(file_name: str, values: list[Any], *parts: Document) -> dict[str, Any]:
    from extraction.fields.documents.locate import locate_values
    from extraction.formats.engines import merge_documents

    with memory_cap():
        doc = parts[0] if len(parts) == 1 else merge_documents(list(parts))
        return locate_values(doc, values, file_name=file_name)


@ray.remote(**TASK_OPTIONS)
def teach_in_document(values: dict[str, Any], *parts: Document) -> dict[str, Any]:
    """`{taught, fields}` of an example taught on the document (`extraction.examples.teach`), or
    `{missing: [field]}` naming the values it cannot find there."""
    from extraction.examples import ValuesNotFound, teach
    from extraction.formats.engines import merge_documents

    with memory_cap():
        doc = parts[0] if len(parts) == 1 else merge_documents(list(parts))
        try:
            taught = teach(doc, values)
        except ValuesNotFound as exc:
            return {"missing": list(exc.fields)}
        fields = {
            name: None
            if found is None
            else {"value": found.value, "page": found.page, "bounding_box": list(found.bounding_box)}
            for name, found in taught.fields.items()
        }
        return {"taught": taught.to_json(), "fields": fields}


def page_ranges(page_count: int, per_range: int = PAGES_PER_RANGE) -> list[tuple[int, int | None]]:
    """1-based inclusive ranges covering the document; one open range when it is small."""
    if page_count <= per_range:
        return [(1, None)]
    return [(first, min(first + per_range - 1, page_count)) for first in range(1, page_count + 1, per_range)]


def range_size(page_count: int, scanned: bool, workers: int) -> int:
    """Pages per range: a scan's pages spread over the workers (at most `SCAN_PAGES_PER_RANGE`
    each); a text layer parses so fast that only a large PDF is worth splitting."""
    if not scanned:
        return PAGES_PER_RANGE
    return max(1, min(SCAN_PAGES_PER_RANGE, -(-page_count // max(workers, 1))))


def cluster_cpus() -> int:
    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    return max(1, int(resources.get("CPU", 1)))


def failure_of(exc: BaseException) -> JobFailure:
    """The job failure a task's exception means."""
    from extraction.formats.errors import DocumentError

    if isinstance(exc, RayTaskError):
        cause = exc.cause
        if isinstance(cause, DocumentError | ModelReplyError):
            return JobFailure(str(cause))
        if isinstance(cause, MemoryError):
            return JobFailure(OUT_OF_MEMORY_MESSAGE)
        log.error("document task failed with %s", type(cause).__name__)
        return JobFailure(INTERNAL_MESSAGE)
    if isinstance(exc, OutOfMemoryError):
        return JobFailure(OUT_OF_MEMORY_MESSAGE)
    if isinstance(exc, WorkerCrashedError | TaskCancelledError):
        return JobFailure(CRASHED_MESSAGE)
    log.error("document task failed with %s", type(exc).__name__)
    return JobFailure(INTERNAL_MESSAGE)


class WorkerPool:
    """Runs document tasks at most `size` at a time, each under a time limit."""

    def __init__(self, size: int | None = None, *, timeout_seconds: float | None = None) -> None:
        """`timeout_seconds` defaults to the `AGENTRY_DOCUMENT_TIMEOUT_SECONDS` setting."""
        from core.settings import get_settings

        self.size = size or cluster_cpus()
        self.timeout_seconds = timeout_seconds or get_settings().document_timeout_seconds
        self._slots = FairSlots(self.size)

    async def run_ref(
        self, function: Any, *args: Any, timeout_seconds: float | None = None, owner: Hashable = None
    ) -> ray.ObjectRef[Any]:
        """Run the task to its end and return its result's ref (the value stays in the object store
        for the next task); raise `JobFailure` when it fails, crashes or overruns. Tasks of one
        `owner` (a document) share the slots fairly with other owners' (None: the task alone)."""
        limit = timeout_seconds or self.timeout_seconds
        async with self._slots.hold(object() if owner is None else owner):
            ref: ray.ObjectRef[Any] = function.remote(*args)
            try:
                await asyncio.wait_for(asyncio.wrap_future(ref.future()), limit)
            except TimeoutError:
                # Force kills the worker process: a hung parser never returns control to Python.
                ray.cancel(ref, force=True)
                raise JobFailure(timeout_message(limit)) from None
            except asyncio.CancelledError:
                ray.cancel(ref, force=True)
                raise
            except Exception as exc:
                raise failure_of(exc) from None
        return ref

    async def run(
        self, function: Any, *args: Any, timeout_seconds: float | None = None, owner: Hashable = None
    ) -> Any:
        ref = await self.run_ref(function, *args, timeout_seconds=timeout_seconds, owner=owner)
        return await ref


async def parse_parts(
    spec: DocumentSpec,
    data: DocumentBytes,
    *,
    pool: WorkerPool,
    cache: ParsedCache | None = None,
) -> list[ray.ObjectRef[Document]]:
    """The refs of the document's parsed page ranges (from `cache` when it holds them); raises
    `JobFailure`."""
    key = ParsedCache.key(spec.sha256, spec.filename)
    if cache is not None and (cached := cache.get(key)) is not None:
        return cached
    if callable(data):
        data = await data()
    data_ref = data if isinstance(data, ray.ObjectRef) else ray.put(data)
    owner = object()
    ranges: list[tuple[int, int | None]] = [(1, None)]
    if spec.format in PAGED_FORMATS:
        pages, scanned = await pool.run(count_pages, data_ref, spec.format, owner=owner)
        ranges = page_ranges(pages, range_size(pages, scanned, pool.size))
    try:
        # A failing range cancels its siblings (and their Ray tasks) instead of letting them run on.
        async with asyncio.TaskGroup() as group:
            parsing = [
                group.create_task(
                    pool.run_ref(parse_range, data_ref, spec.filename, first, last, owner=owner)
                )
                for first, last in ranges
            ]
    except BaseExceptionGroup as failures:
        raise _first_failure(failures) from None
    parts = [task.result() for task in parsing]
    if cache is not None:
        cache.put(key, parts)
    return parts


async def run_document(
    spec: DocumentSpec,
    data: DocumentBytes,
    *,
    pool: WorkerPool,
    model: ModelCaller | None,
    cache: ParsedCache | None = None,
) -> dict[str, Any]:
    """The job's `result` for one document; raises `JobFailure`."""
    parts = await parse_parts(spec, data, pool=pool, cache=cache)
    try:
        return await _finish(spec, parts, pool=pool, model=model)
    except JobFailure:
        # A cached parse whose objects were lost fails here too: the next job parses afresh.
        if cache is not None:
            cache.drop(ParsedCache.key(spec.sha256, spec.filename))
        raise


async def _finish(
    spec: DocumentSpec, parts: list[ray.ObjectRef[Document]], *, pool: WorkerPool, model: ModelCaller | None
) -> dict[str, Any]:
    stage: Stage = await pool.run(finish_document, spec, None, *parts)
    if stage.model_messages is not None:
        if model is None:
            raise JobFailure("no extraction model is configured (set OPENAI_API_KEY)")
        try:
            text = await model(stage.model_messages)
        except ModelUnavailable as exc:
            raise JobFailure(exc.message) from None
        stage = await pool.run(finish_document, spec, ModelReply(text, stage.pending), *parts)
    if stage.result is None:
        raise JobFailure(INTERNAL_MESSAGE)
    return stage.result


async def locate_document(
    spec: DocumentSpec,
    data: DocumentBytes,
    values: list[Any],
    *,
    pool: WorkerPool,
    cache: ParsedCache | None = None,
) -> dict[str, Any]:
    """`extraction.fields.documents.locate.locate_values` on the document: its pages and each value's citations."""
    parts = await parse_parts(spec, data, pool=pool, cache=cache)
    try:
        result: dict[str, Any] = await pool.run(locate_in_document, spec.filename, values, *parts)
    except JobFailure:
        if cache is not None:
            cache.drop(ParsedCache.key(spec.sha256, spec.filename))
        raise
    return result


async def teach_document(
    spec: DocumentSpec,
    data: DocumentBytes,
    values: dict[str, Any],
    *,
    pool: WorkerPool,
    cache: ParsedCache | None = None,
) -> dict[str, Any]:
    """`teach_in_document` on the document's (cached) parse."""
    parts = await parse_parts(spec, data, pool=pool, cache=cache)
    try:
        result: dict[str, Any] = await pool.run(teach_in_document, values, *parts)
    except JobFailure:
        if cache is not None:
            cache.drop(ParsedCache.key(spec.sha256, spec.filename))
        raise
    return result


def _first_failure(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The failure that stopped a TaskGroup (its siblings were only cancelled because of it)."""
    exc: BaseException = group
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
