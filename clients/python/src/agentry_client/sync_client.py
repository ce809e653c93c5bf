"""`Client`: the blocking client. Each method drives a flow of `operations`; only I/O lives here."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, Literal, TypeVar

import httpx
from pydantic import BaseModel

from .events import EventStream
from .models import (
    Agent,
    Batch,
    DeletedAgent,
    Event,
    Feed,
    FileInfo,
    Job,
    RunResult,
    SavedConfig,
    StructuredResponse,
    Summary,
    Task,
    TaskCreated,
    TaskSummary,
)
from .operations import agents as agent_ops
from .operations import files as file_ops
from .operations import jobs as job_ops
from .operations import lists as list_ops
from .operations import runs as run_ops
from .operations import tasks as task_ops
from .operations.common import V1, V2, segment
from .operations.files import FileSource
from .operations.jobs import JobKind
from .protocol import Call, Context, Flow, Reply, drive_sync
from .retry import PollPolicy, RetryPolicy
from .transport import (
    DEFAULT_BASE_URL,
    DEFAULT_TIMEOUT,
    EVENTS_READ_TIMEOUT,
    client_options,
    request_options,
    to_failure,
    to_reply,
)

T = TypeVar("T")
ItemT = TypeVar("ItemT", bound=BaseModel)


class Client:
    """The Agentry API over blocking HTTP.

    `api_key` defaults to `AGENTRY_API_KEY`. Requests are resent per `retry` (500/503 and, for
    idempotent requests, 502/504 and broken connections, with exponential backoff and jitter; 429
    after `Retry-After`); waits poll per `poll` (1 s, backing off to 10 s).
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        poll: PollPolicy | None = None,
    ) -> None:
        self._http = httpx.Client(**client_options(base_url, api_key, timeout))
        self._ctx = Context(retry=retry or RetryPolicy(), poll=poll or PollPolicy())

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # -- the driver -------------------------------------------------------------------------------

    def _send(self, call: Call) -> Reply:
        try:
            return to_reply(self._http.request(call.method, call.path, **request_options(call)))
        except httpx.TransportError as exc:
            raise to_failure(exc) from exc

    def _do(self, flow: Flow[T]) -> T:
        return drive_sync(flow, self._send, time.sleep)

    def _iterate(self, path: str, params: Mapping[str, str], item: type[ItemT]) -> Iterator[ItemT]:
        cursor: str | None = None
        while True:
            page = self._do(list_ops.page(self._ctx, path, params, item, cursor))
            yield from page.data
            cursor = page.cursor_for_next
            if cursor is None:
                return

    # -- agents -----------------------------------------------------------------------------------

    def create_agent(
        self,
        name: str | None = None,
        config: Mapping[str, Any] | None = None,
        *,
        is_active: bool = True,
        is_public: bool = False,
    ) -> Agent:
        """Create an agent, published as version 1."""
        return self._do(
            agent_ops.create_agent(
                self._ctx, name=name, config=config, is_active=is_active, is_public=is_public
            )
        )

    def get_agent(self, agent_id: str) -> Agent:
        return self._do(agent_ops.get_agent(self._ctx, agent_id))

    def update_agent(
        self,
        agent_id: str,
        *,
        name: str | None = None,
        config: Mapping[str, Any] | None = None,
        is_active: bool | None = None,
        is_public: bool | None = None,
    ) -> Agent:
        """Change what is given; a `config` publishes a new version."""
        changes = agent_ops.agent_changes(name=name, config=config, is_active=is_active, is_public=is_public)
        return self._do(agent_ops.update_agent(self._ctx, agent_id, changes))

    def delete_agent(self, agent_id: str) -> DeletedAgent:
        return self._do(agent_ops.delete_agent(self._ctx, agent_id))

    def list_agents(self, *, limit: int | None = None) -> Iterator[Agent]:
        """Every agent (its latest version), newest first, following the cursors."""
        return self._iterate(f"{V1}/agents", list_ops.limit_param(limit), Agent)

    def list_versions(self, agent_id: str, *, limit: int | None = None) -> Iterator[Agent]:
        return self._iterate(f"{V1}/agents/{segment(agent_id)}/versions", list_ops.limit_param(limit), Agent)

    # -- runs -------------------------------------------------------------------------------------

    def run(
        self,
        agent_id: str,
        query: str = "",
        *,
        files: Sequence[FileSource] = (),
        file_ids: Sequence[str | FileInfo] = (),
        output_config: Mapping[str, Any] | None = None,
        version: int | None = None,
        source: str | None = None,
        disable_delegation: bool = False,
    ) -> TaskCreated:
        """Start a task (the 201 answer); `files` are attached, `file_ids` name uploaded files."""
        inputs = run_ops.run_inputs(
            query,
            files=files,
            file_ids=file_ids,
            output_config=output_config,
            version=version,
            source=source,
            disable_delegation=disable_delegation,
        )
        return self._do(run_ops.run(self._ctx, agent_id, inputs))

    def run_and_wait(
        self,
        agent_id: str,
        query: str = "",
        *,
        result: str | None = None,
        include_citations: bool = False,
        files: Sequence[FileSource] = (),
        file_ids: Sequence[str | FileInfo] = (),
        output_config: Mapping[str, Any] | None = None,
        version: int | None = None,
        source: str | None = None,
        disable_delegation: bool = False,
        hold: bool = True,
        stop_on_pause: bool = True,
        timeout: float | None = None,
    ) -> RunResult:
        """Run and return the outcome with the `result` payload (`structured`, `summary`, `feed`,
        `tool:<name>`). A synchronous run (`hold`) that answers 201 or 202 is finished by polling;
        a pause ends the wait with outcome `result_unavailable` unless `stop_on_pause` is false."""
        inputs = run_ops.run_inputs(
            query,
            files=files,
            file_ids=file_ids,
            output_config=output_config,
            version=version,
            source=source,
            disable_delegation=disable_delegation,
        )
        return self._do(
            run_ops.run_and_wait(
                self._ctx,
                agent_id,
                inputs,
                result=result,
                include_citations=include_citations,
                hold=hold,
                stop_on_pause=stop_on_pause,
                timeout=timeout,
            )
        )

    # -- tasks ------------------------------------------------------------------------------------

    def get_task(self, task_id: str) -> Task:
        return self._do(task_ops.get_task(self._ctx, task_id))

    def list_tasks(
        self,
        *,
        agent_group_id: str | None = None,
        agent_id: str | None = None,
        status: str | Sequence[str] | None = None,
        created_after: str | None = None,
        created_before: str | None = None,
        title: str | None = None,
        bucket: str | None = None,
        include_data_fields: bool = False,
        limit: int | None = None,
    ) -> Iterator[TaskSummary]:
        """Every matching task, newest first, following the cursors (`limit` is the page size)."""
        params = list_ops.task_filters(
            agent_group_id=agent_group_id,
            agent_id=agent_id,
            status=status,
            created_after=created_after,
            created_before=created_before,
            title=title,
            bucket=bucket,
            include_data_fields=include_data_fields,
            limit=limit,
        )
        return self._iterate(f"{V1}/tasks", params, TaskSummary)

    def children(self, task_id: str, *, limit: int | None = None) -> Iterator[TaskSummary]:
        """The tasks this task delegated to, newest first."""
        return self._iterate(
            f"{V1}/tasks/{segment(task_id)}/children", list_ops.limit_param(limit), TaskSummary
        )

    def wait(self, task_id: str, *, stop_on_pause: bool = True, timeout: float | None = None) -> Task:
        """Poll until the task ends (or pauses for input or review, with `stop_on_pause`)."""
        return self._do(task_ops.wait_task(self._ctx, task_id, stop_on_pause=stop_on_pause, timeout=timeout))

    def summary(self, task_id: str) -> Summary:
        return self._do(task_ops.get_summary(self._ctx, task_id))

    def structured_response(self, task_id: str, *, include_citations: bool = False) -> StructuredResponse:
        return self._do(task_ops.structured_response(self._ctx, task_id, include_citations=include_citations))

    def feed(self, task_id: str) -> Feed:
        """The whole reasoning transcript (`/result`)."""
        return self._do(task_ops.get_feed(self._ctx, task_id))

    def reply(
        self,
        task_id: str,
        message: str,
        *,
        files: Sequence[FileSource] = (),
        file_ids: Sequence[str | FileInfo] = (),
    ) -> Task:
        """Answer a task in `waiting_for_input` (`Conflict` otherwise)."""
        parts = [file_ops.file_part("files", f) for f in files]
        ids = [file_ops.document_id(f) for f in file_ids]
        return self._do(task_ops.reply(self._ctx, task_id, message, parts, ids))

    def review(
        self,
        task_id: str,
        decision: Literal["approve", "reject"],
        comment: str | None = None,
        *,
        answering: Mapping[str, Any] | None = None,
    ) -> Task:
        """Approve or reject the tool call a task in `awaiting_review` waits on.

        Pass the `pause.pending_tool_call` the decision was made on as `answering`: if another call
        is pending by then, the review is refused (`Conflict`) instead of answering that one.
        """
        return self._do(task_ops.review(self._ctx, task_id, decision, comment, answering))

    def cancel(self, task_id: str, *, cascade: bool = False) -> Task:
        """Stop the task (and, with `cascade`, its active descendants); idempotent."""
        return self._do(task_ops.cancel(self._ctx, task_id, cascade=cascade))

    def delete_task(self, task_id: str, *, include_subtasks: bool = False) -> list[str]:
        return self._do(task_ops.delete_task(self._ctx, task_id, include_subtasks=include_subtasks))

    def events(self, task_id: str, last_event_id: str | None = None) -> Iterator[Event]:
        """The task's live events until `end`, reconnecting with `Last-Event-ID` when dropped."""
        stream = EventStream(self._ctx, task_id, last_event_id)
        timeout = httpx.Timeout(self._http.timeout.connect, read=EVENTS_READ_TIMEOUT)
        while not stream.done:
            delay: float | None = None
            try:
                with self._http.stream(
                    "GET", stream.path, headers=stream.headers(), timeout=timeout
                ) as response:
                    if response.status_code != 200:
                        delay = stream.refused(response.status_code, response.headers, response.read())
                    else:
                        stream.connected()
                        for text in response.iter_text():
                            yield from stream.receive(text)
                            if stream.done:
                                return
                        delay = stream.dropped("the service closed the stream before its end event")
            except httpx.TransportError as exc:
                delay = stream.dropped(type(exc).__name__)
            time.sleep(delay)

    # -- files and extraction ---------------------------------------------------------------------

    def upload(self, file: FileSource, filename: str | None = None) -> FileInfo:
        """Upload a document (a path, or bytes with a `filename`); its `file_id` is an `input`."""
        return self._do(file_ops.upload(self._ctx, file_ops.file_part("file", file, filename)))

    def get_file(self, file_id: str) -> FileInfo:
        return self._do(file_ops.get_file(self._ctx, file_id))

    def download(self, file_id: str) -> bytes:
        return self._do(file_ops.file_content(self._ctx, file_id))

    def delete_file(self, file_id: str) -> None:
        self._do(file_ops.delete_file(self._ctx, file_id))

    def parse(
        self,
        document: str | FileInfo,
        *,
        config: Mapping[str, Any] | None = None,
        config_id: str | None = None,
        wait: bool = True,
        timeout: float | None = None,
    ) -> Job:
        """Parse a document (`/parse/sync`); with `wait` a job still processing is polled to its end."""
        body = job_ops.job_body("parse", file_ops.document_id(document), config, config_id)
        return self._do(job_ops.run_job(self._ctx, "parse", body, settle=wait, timeout=timeout))

    def extract(
        self,
        document: str | FileInfo,
        fields: Sequence[str] | None = None,
        *,
        config: Mapping[str, Any] | None = None,
        config_id: str | None = None,
        wait: bool = True,
        timeout: float | None = None,
    ) -> Job:
        """Extract `fields` (and any other `extraction_config` options), or per a saved config."""
        body = job_ops.job_body(
            "extract", file_ops.document_id(document), job_ops.extract_config(fields, config), config_id
        )
        return self._do(job_ops.run_job(self._ctx, "extract", body, settle=wait, timeout=timeout))

    def classify(
        self,
        document: str | FileInfo,
        categories: Sequence[str | Mapping[str, str]] | None = None,
        *,
        mode: Literal["document", "split"] | None = None,
        config: Mapping[str, Any] | None = None,
        config_id: str | None = None,
        wait: bool = True,
        timeout: float | None = None,
    ) -> Job:
        """Classify a document into `categories` (`mode` `document` or `split`), or per a saved config."""
        body = job_ops.job_body(
            "classify",
            file_ops.document_id(document),
            job_ops.classify_config(categories, mode, config),
            config_id,
        )
        return self._do(job_ops.run_job(self._ctx, "classify", body, settle=wait, timeout=timeout))

    def submit(
        self,
        kind: JobKind,
        document: str | FileInfo,
        *,
        config: Mapping[str, Any] | None = None,
        config_id: str | None = None,
    ) -> Job:
        """Queue a `parse`, `extract` or `classify` job (`/{kind}/async`); `wait_job` its `record_id`.
        `config` is the kind's whole config (`extraction_config` for extract)."""
        return self._do(
            job_ops.submit_job(
                self._ctx, kind, job_ops.job_body(kind, file_ops.document_id(document), config, config_id)
            )
        )

    def submit_batch(
        self,
        kind: JobKind,
        documents: Sequence[str | FileInfo],
        *,
        config: Mapping[str, Any] | None = None,
        config_id: str | None = None,
    ) -> Batch:
        """Queue a job per document (at most 50); `wait_batch` its `batch_id`."""
        body = job_ops.job_body(kind, [file_ops.document_id(d) for d in documents], config, config_id)
        return self._do(job_ops.submit_batch(self._ctx, kind, body))

    def get_job(self, record_id: str) -> Job:
        return self._do(job_ops.get_job(self._ctx, record_id))

    def wait_job(self, record_id: str, *, timeout: float | None = None) -> Job:
        """Poll a job until it is `completed` or `failed`."""
        return self._do(job_ops.wait_job(self._ctx, record_id, timeout=timeout))

    def get_batch(self, batch_id: str) -> Batch:
        return self._do(job_ops.get_batch(self._ctx, batch_id))

    def wait_batch(self, batch_id: str, *, timeout: float | None = None) -> Batch:
        return self._do(job_ops.wait_batch(self._ctx, batch_id, timeout=timeout))

    def create_config(self, name: str, type: JobKind, params: Mapping[str, Any]) -> SavedConfig:
        """Save a parse, extract or classify config; pass its `config_id` instead of a config."""
        return self._do(job_ops.create_config(self._ctx, name, type, params))

    def get_config(self, config_id: str) -> SavedConfig:
        return self._do(job_ops.get_config(self._ctx, config_id))

    def list_configs(self, *, limit: int | None = None) -> Iterator[SavedConfig]:
        return self._iterate(f"{V2}/configs", list_ops.limit_param(limit), SavedConfig)

    def delete_config(self, config_id: str) -> None:
        self._do(job_ops.delete_config(self._ctx, config_id))
