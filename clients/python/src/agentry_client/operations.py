"""Every operation of the client, written once as a flow (see `protocol`) for both clients.

Paths, parameters and bodies follow the routers in `serve/routers/` and docs/contract.md.
"""

from __future__ import annotations

import json
import mimetypes
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from pydantic import BaseModel

from .errors import WaitTimeout
from .models import (
    Agent,
    Batch,
    DeletedAgent,
    Feed,
    FileInfo,
    Job,
    Page,
    RunResult,
    SavedConfig,
    StructuredResponse,
    Summary,
    SyncReply,
    Task,
    TaskCreated,
)
from .protocol import Call, Context, FilePart, Flow, Sleep, exchange, fetch

V1 = "/api/v1"
V2 = "/api/v2"

#: A document to send: a path, or its bytes (then give a file name), or (file name, bytes).
FileSource = str | os.PathLike[str] | bytes | tuple[str, bytes]
JobKind = Literal["parse", "extract", "classify"]


def segment(value: str) -> str:
    """One path segment: `file://` and `config://` ids are sent URL-encoded (docs/contract.md section 7)."""
    return quote(value, safe="")


def _bool(value: bool) -> str:
    return "true" if value else "false"


def file_part(name: str, source: FileSource, filename: str | None = None) -> FilePart:
    """A multipart file part. The service judges the format from the bytes; the name is what
    citations and the task's `files` show."""
    if isinstance(source, tuple):
        filename, content = filename or source[0], source[1]
    elif isinstance(source, bytes):
        content = source
        filename = filename or "document"
    else:
        path = Path(source)
        content = path.read_bytes()
        filename = filename or path.name
    content_type = mimetypes.guess_type(filename)[0] or "application/octet-stream"
    return name, (filename, content, content_type)


# -- agents ---------------------------------------------------------------------------------------


def create_agent(
    ctx: Context, *, name: str | None, config: Mapping[str, Any] | None, is_active: bool, is_public: bool
) -> Flow[Agent]:
    body: dict[str, Any] = {"is_active": is_active, "is_public": is_public}
    if name is not None:
        body["name"] = name
    if config is not None:
        body["config"] = dict(config)
    return fetch(ctx, Call("POST", f"{V1}/agents", json=body), Agent)


def get_agent(ctx: Context, agent_id: str) -> Flow[Agent]:
    return fetch(ctx, Call("GET", f"{V1}/agents/{segment(agent_id)}", idempotent=True), Agent)


def agent_changes(
    *, name: str | None, config: Mapping[str, Any] | None, is_active: bool | None, is_public: bool | None
) -> dict[str, Any]:
    """The PATCH body: only what is given changes."""
    changes: dict[str, Any] = {"name": name, "config": None if config is None else dict(config)}
    changes |= {"is_active": is_active, "is_public": is_public}
    return {k: v for k, v in changes.items() if v is not None}


def update_agent(ctx: Context, agent_id: str, changes: Mapping[str, Any]) -> Flow[Agent]:
    # A body with `config` publishes a new version each time it is applied, so only a change
    # without one may be resent after a broken connection.
    call = Call(
        "PATCH", f"{V1}/agents/{segment(agent_id)}", json=dict(changes), idempotent="config" not in changes
    )
    return fetch(ctx, call, Agent)


def delete_agent(ctx: Context, agent_id: str) -> Flow[DeletedAgent]:
    return fetch(ctx, Call("DELETE", f"{V1}/agents/{segment(agent_id)}", idempotent=True), DeletedAgent)


# -- lists ----------------------------------------------------------------------------------------


def page(
    ctx: Context, path: str, params: Mapping[str, str], item: type[BaseModel], cursor: str | None
) -> Flow[Page[Any]]:
    """One page of a list endpoint, its items parsed as `item`."""
    query = dict(params)
    if cursor:
        query["cursor"] = cursor
    return fetch(ctx, Call("GET", path, params=query, idempotent=True), Page[item])  # type: ignore[valid-type]


def task_filters(
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
) -> dict[str, str]:
    """The query of `GET /api/v1/tasks` (docs/contract.md section 3); `status` may be a list."""
    params = {
        "agent_group_id": agent_group_id,
        "agent_id": agent_id,
        "status": status if status is None or isinstance(status, str) else ",".join(status),
        "created_after": created_after,
        "created_before": created_before,
        "title": title,
        "bucket": bucket,
        "limit": None if limit is None else str(limit),
    }
    query = {k: v for k, v in params.items() if v is not None}
    if include_data_fields:
        query["include_data_fields"] = "true"
    return query


def limit_param(limit: int | None) -> dict[str, str]:
    return {} if limit is None else {"limit": str(limit)}


# -- runs -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunInputs:
    """The body of a run (docs/contract.md section 4): JSON, or multipart when files are attached."""

    query: str = ""
    files: Sequence[FilePart] = field(default_factory=tuple)
    file_ids: Sequence[str] = field(default_factory=tuple)
    output_config: Mapping[str, Any] | None = None
    version: int | None = None
    source: str | None = None
    disable_delegation: bool = False

    def call(self, agent_id: str, params: Mapping[str, str]) -> Call:
        path = f"{V1}/agents/{segment(agent_id)}/run"
        if self.files:
            form: dict[str, str | list[str]] = {"query": self.query}
            if self.file_ids:
                form["file_ids"] = list(self.file_ids)
            if self.output_config is not None:
                form["output_config"] = json.dumps(self.output_config)
            if self.version is not None:
                form["version"] = str(self.version)
            if self.source is not None:
                form["source"] = self.source
            if self.disable_delegation:
                form["disable_delegation"] = "true"
            return Call("POST", path, params=params, data=form, files=list(self.files))
        body: dict[str, Any] = {"query": self.query}
        if self.file_ids:
            body["file_ids"] = list(self.file_ids)
        if self.output_config is not None:
            body["output_config"] = dict(self.output_config)
        if self.version is not None:
            body["version"] = self.version
        if self.source is not None:
            body["source"] = self.source
        if self.disable_delegation:
            body["disable_delegation"] = True
        # Not idempotent: a resent run is a second task. Only a connection that was never made,
        # a 429 or a 500/503 (which the service answers before or instead of creating it) is retried.
        return Call("POST", path, params=params, json=body)


def run_inputs(
    query: str,
    *,
    files: Sequence[FileSource],
    file_ids: Sequence[str | FileInfo],
    output_config: Mapping[str, Any] | None,
    version: int | None,
    source: str | None,
    disable_delegation: bool,
) -> RunInputs:
    return RunInputs(
        query=query,
        files=[file_part("files", f) for f in files],
        file_ids=[document_id(f) for f in file_ids],
        output_config=output_config,
        version=version,
        source=source,
        disable_delegation=disable_delegation,
    )


def document_id(document: str | FileInfo) -> str:
    """An uploaded file stands for its `file_id`; a string is a `file://` id or a URL."""
    return document.file_id if isinstance(document, FileInfo) else document


def run(ctx: Context, agent_id: str, inputs: RunInputs) -> Flow[TaskCreated]:
    return fetch(ctx, inputs.call(agent_id, {}), TaskCreated)


def run_and_wait(
    ctx: Context,
    agent_id: str,
    inputs: RunInputs,
    *,
    result: str | None,
    include_citations: bool,
    hold: bool,
    stop_on_pause: bool,
    timeout: float | None,
) -> Flow[RunResult]:
    """A run that ends with its outcome and payload, whatever the service's first answer was.

    With `hold` the request is a synchronous run (`async=false`); docs/spec.md says to keep the polling
    path, because it may answer 201 (the fallback) or 202 (budget expired, draining, paused), and
    then the task is polled until it ends, or pauses when `stop_on_pause`.
    """
    deadline = None if timeout is None else ctx.clock() + timeout
    params: dict[str, str] = {"async": _bool(not hold)}
    if result is not None:
        params["result"] = result
    if include_citations:
        params["include_citations"] = "true"
    reply = yield from exchange(ctx, inputs.call(agent_id, params))
    if reply.status == 200:
        sync = SyncReply.model_validate_json(reply.content)
        task = yield from get_task(ctx, sync.task_id)
        if sync.known_result_status in ("too_large", "unavailable") and sync.result_selector:
            # The payload is fetched from the matching polling endpoint (docs/spec.md, run endpoint).
            return (yield from collect(ctx, task, sync.result_selector, include_citations, polled=False))
        return RunResult(
            task=task,
            outcome="terminal",
            result_selector=sync.result_selector,
            result_status=sync.known_result_status,
            result=sync.result,
            result_documents=sync.result_documents,
        )
    body = reply.json()
    task_id = str(body["task_id"])
    selector = result
    if reply.status == 202:
        selector = SyncReply.model_validate(body).result_selector or result
    left = None if deadline is None else deadline - ctx.clock()
    task = yield from wait_task(ctx, task_id, stop_on_pause=stop_on_pause, timeout=left)
    if not task.is_terminal:
        return RunResult(
            task=task,
            outcome="result_unavailable",
            result_selector=selector,
            result_status="processing",
            polled=True,
        )
    if selector is None and hold:
        selector = yield from stored_selector(ctx, task, inputs)
    return (yield from collect(ctx, task, selector, include_citations, polled=True))


def stored_selector(ctx: Context, task: Task, inputs: RunInputs) -> Flow[str | None]:
    """The agent's `settings.sync_result`, as the service applies it when a run names no `result`.

    Needed after a 201 fallback, which does not say which payload the held request would have
    given. A stored `structured` on an agent without a schema degrades to `feed` (docs/spec.md).
    """
    agent = yield from get_agent(ctx, task.agent_id)
    stored = (agent.config.get("settings") or {}).get("sync_result")
    if not stored:
        return None
    has_schema = isinstance((inputs.output_config or {}).get("output_schema"), dict) or isinstance(
        agent.config.get("output_schema"), dict
    )
    return "feed" if stored == "structured" and not has_schema else str(stored)


def payload_status(task: Task, found: bool) -> str:
    """`result_status` as the synchronous reply states it for a task that has ended."""
    ended = {"failed": "failed", "stopped": "cancelled"}.get(task.status, "completed")
    if not found:
        return "not_found" if ended == "completed" else ended
    return ended


def collect(
    ctx: Context, task: Task, selector: str | None, include_citations: bool, *, polled: bool
) -> Flow[RunResult]:
    """The selected payload of an ended task, read from the polling endpoints (docs/contract.md section 4)."""
    found, payload, documents = False, None, None
    if selector == "structured":
        structured = yield from structured_response(ctx, task.task_id, include_citations=include_citations)
        found, payload = structured.has_output, structured.structured_response
        documents = structured.documents if include_citations else None
    elif selector == "summary":
        summary = yield from get_summary(ctx, task.task_id)
        found, payload = summary.summary is not None, summary.summary
    elif selector is not None:
        reply = yield from exchange(
            ctx, Call("GET", f"{V1}/tasks/{segment(task.task_id)}/result", idempotent=True)
        )
        items: list[dict[str, Any]] = reply.json()["feed"]
        if selector == "feed":
            found, payload = True, items
        else:
            found, payload = last_tool_output(items, selector.removeprefix("tool:"))
    return RunResult(
        task=task,
        outcome="terminal",
        result_selector=selector,
        result_status=None if selector is None else payload_status(task, found),
        result=payload if found else None,
        result_documents=documents,
        polled=polled,
    )


def last_tool_output(feed: Sequence[Mapping[str, Any]], tool_name: str) -> tuple[bool, Any]:
    """The output of the last successful call of `tool_name` (what `result=tool:<name>` selects)."""
    for item in reversed(feed):
        if (
            item.get("type") == "tool_result"
            and item.get("tool_name") == tool_name
            and item.get("status") == "ok"
        ):
            return True, item.get("output")
    return False, None


# -- tasks ----------------------------------------------------------------------------------------


def get_task(ctx: Context, task_id: str) -> Flow[Task]:
    return fetch(ctx, Call("GET", f"{V1}/tasks/{segment(task_id)}", idempotent=True), Task)


def wait_task(ctx: Context, task_id: str, *, stop_on_pause: bool, timeout: float | None) -> Flow[Task]:
    """Poll the task until it ends (or pauses, with `stop_on_pause`), backing off per `ctx.poll`."""
    deadline = None if timeout is None else ctx.clock() + timeout
    delays = ctx.poll.delays()
    seen: str | None = None
    while True:
        task = yield from get_task(ctx, task_id)
        if task.is_terminal or (stop_on_pause and task.is_paused):
            return task
        if seen is not None and task.status != seen and ctx.poll.reset_on_change:
            delays = ctx.poll.delays()
        seen = task.status
        yield _poll_sleep(ctx, next(delays), deadline, task, f"task {task_id} is still {task.status}")


def _poll_sleep(ctx: Context, delay: float, deadline: float | None, last: Any, what: str) -> Sleep:
    if deadline is None:
        return Sleep(delay)
    left = deadline - ctx.clock()
    if left <= 0:
        raise WaitTimeout(f"timed out: {what}", last=last)
    return Sleep(min(delay, left))


def get_summary(ctx: Context, task_id: str) -> Flow[Summary]:
    return fetch(ctx, Call("GET", f"{V1}/tasks/{segment(task_id)}/summary", idempotent=True), Summary)


def structured_response(ctx: Context, task_id: str, *, include_citations: bool) -> Flow[StructuredResponse]:
    params = {"include_citations": "true"} if include_citations else {}
    call = Call("GET", f"{V1}/tasks/{segment(task_id)}/structured-response", params=params, idempotent=True)
    return fetch(ctx, call, StructuredResponse)


def get_feed(ctx: Context, task_id: str) -> Flow[Feed]:
    return fetch(ctx, Call("GET", f"{V1}/tasks/{segment(task_id)}/result", idempotent=True), Feed)


def reply(
    ctx: Context, task_id: str, message: str, files: Sequence[FilePart], file_ids: Sequence[str]
) -> Flow[Task]:
    path = f"{V1}/tasks/{segment(task_id)}/message"
    if files:
        form: dict[str, str | list[str]] = {"message": message}
        if file_ids:
            form["file_ids"] = list(file_ids)
        return fetch(ctx, Call("POST", path, data=form, files=list(files)), Task)
    body: dict[str, Any] = {"message": message}
    if file_ids:
        body["file_ids"] = list(file_ids)
    return fetch(ctx, Call("POST", path, json=body), Task)


def review(
    ctx: Context,
    task_id: str,
    decision: Literal["approve", "reject"],
    comment: str | None,
    answering: Mapping[str, Any] | None = None,
) -> Flow[Task]:
    """`answering` is the `pending_tool_call` the reviewer was shown: the service then refuses the
    review (409, `Conflict`) unless that call is still the one pending."""
    body: dict[str, Any] = {"decision": decision}
    if comment is not None:
        body["comment"] = comment
    if answering is not None:
        body["call_id"] = answering["call_id"]
        body["arguments_sha256"] = answering["arguments_sha256"]
    return fetch(ctx, Call("POST", f"{V1}/tasks/{segment(task_id)}/review", json=body), Task)


def cancel(ctx: Context, task_id: str, *, cascade: bool) -> Flow[Task]:
    call = Call(
        "POST", f"{V1}/tasks/{segment(task_id)}/cancel", params={"cascade": _bool(cascade)}, idempotent=True
    )
    return fetch(ctx, call, Task)


def delete_task(ctx: Context, task_id: str, *, include_subtasks: bool) -> Flow[list[str]]:
    call = Call(
        "DELETE",
        f"{V1}/tasks/{segment(task_id)}",
        params={"include_subtasks": _bool(include_subtasks)},
        idempotent=True,
    )
    reply = yield from exchange(ctx, call)
    return [str(task) for task in reply.json()["deleted"]]


# -- files and extraction -------------------------------------------------------------------------


def upload(ctx: Context, part: FilePart) -> Flow[FileInfo]:
    # Not resent after a broken connection: a second upload would be a second file.
    return fetch(ctx, Call("POST", f"{V2}/files", files=[part]), FileInfo)


def get_file(ctx: Context, file_id: str) -> Flow[FileInfo]:
    return fetch(ctx, Call("GET", f"{V2}/files/{segment(file_id)}", idempotent=True), FileInfo)


def file_content(ctx: Context, file_id: str) -> Flow[bytes]:
    reply = yield from exchange(ctx, Call("GET", f"{V2}/files/{segment(file_id)}/content", idempotent=True))
    return reply.content


def delete_file(ctx: Context, file_id: str) -> Flow[None]:
    yield from exchange(ctx, Call("DELETE", f"{V2}/files/{segment(file_id)}", idempotent=True))


def job_body(
    kind: JobKind, inputs: str | Sequence[str], config: Mapping[str, Any] | None, config_id: str | None
) -> dict[str, Any]:
    """The body of `/api/v2/{kind}/...`: an inline config or a saved one (`config://...`)."""
    body: dict[str, Any] = {"input": inputs if isinstance(inputs, str) else list(inputs)}
    if config_id is not None:
        body["config_id"] = config_id
    if config is not None:
        body[
            {"parse": "parse_config", "extract": "extraction_config", "classify": "classify_config"}[kind]
        ] = dict(config)
    return body


def extract_config(fields: Sequence[str] | None, options: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """`extraction_config`: the field names to extract (`json_options`) and any other options."""
    if fields is None and options is None:
        return None
    config = dict(options or {})
    if fields is not None:
        config["json_options"] = list(fields)
    return config


def classify_config(
    categories: Sequence[str | Mapping[str, str]] | None, mode: str | None, options: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    if categories is None and mode is None and options is None:
        return None
    config = dict(options or {})
    if categories is not None:
        config["categories"] = [c if isinstance(c, str) else dict(c) for c in categories]
    if mode is not None:
        config["mode"] = mode
    return config


def run_job(
    ctx: Context, kind: JobKind, body: Mapping[str, Any], *, settle: bool, timeout: float | None
) -> Flow[Job]:
    """`/api/v2/{kind}/sync`. A job that outlives the service's wait answers `processing` with its
    `record_id`; with `settle` it is then polled to its end, as for an async job."""
    # Resending only repeats a read-only computation on the same document (a second job record).
    job = yield from fetch(ctx, Call("POST", f"{V2}/{kind}/sync", json=dict(body), idempotent=True), Job)
    if settle and not job.is_done and job.record_id:
        return (yield from wait_job(ctx, job.record_id, timeout=timeout))
    return job


def submit_job(ctx: Context, kind: JobKind, body: Mapping[str, Any]) -> Flow[Job]:
    return fetch(ctx, Call("POST", f"{V2}/{kind}/async", json=dict(body), idempotent=True), Job)


def submit_batch(ctx: Context, kind: JobKind, body: Mapping[str, Any]) -> Flow[Batch]:
    return fetch(ctx, Call("POST", f"{V2}/{kind}/async", json=dict(body), idempotent=True), Batch)


def get_job(ctx: Context, record_id: str) -> Flow[Job]:
    return fetch(ctx, Call("GET", f"{V2}/jobs/{segment(record_id)}", idempotent=True), Job)


def wait_job(ctx: Context, record_id: str, *, timeout: float | None) -> Flow[Job]:
    """Poll a job until it is `completed` or `failed`, with the task polling's backoff."""
    deadline = None if timeout is None else ctx.clock() + timeout
    delays = ctx.poll.delays()
    while True:
        job = yield from get_job(ctx, record_id)
        if job.is_done:
            return job
        yield _poll_sleep(ctx, next(delays), deadline, job, f"job {record_id} is still {job.status}")


def get_batch(ctx: Context, batch_id: str) -> Flow[Batch]:
    return fetch(ctx, Call("GET", f"{V2}/batches/{segment(batch_id)}", idempotent=True), Batch)


def wait_batch(ctx: Context, batch_id: str, *, timeout: float | None) -> Flow[Batch]:
    deadline = None if timeout is None else ctx.clock() + timeout
    delays = ctx.poll.delays()
    while True:
        batch = yield from get_batch(ctx, batch_id)
        if batch.is_done:
            return batch
        yield _poll_sleep(ctx, next(delays), deadline, batch, f"batch {batch_id} has items processing")


def create_config(ctx: Context, name: str, type: JobKind, params: Mapping[str, Any]) -> Flow[SavedConfig]:
    body = {"name": name, "type": type, "params": dict(params)}
    return fetch(ctx, Call("POST", f"{V2}/configs", json=body), SavedConfig)


def get_config(ctx: Context, config_id: str) -> Flow[SavedConfig]:
    return fetch(ctx, Call("GET", f"{V2}/configs/{segment(config_id)}", idempotent=True), SavedConfig)


def delete_config(ctx: Context, config_id: str) -> Flow[None]:
    yield from exchange(ctx, Call("DELETE", f"{V2}/configs/{segment(config_id)}", idempotent=True))
