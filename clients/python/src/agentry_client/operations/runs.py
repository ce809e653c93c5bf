"""A run of an agent, and a run waited on until its outcome and payload are known."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..models import FileInfo, RunResult, SyncReply, Task, TaskCreated
from ..protocol import Call, Context, FilePart, Flow, exchange, fetch
from .agents import get_agent
from .common import V1, bool_param, segment
from .files import FileSource, document_id, file_part
from .tasks import get_summary, get_task, structured_response, wait_task


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
    params: dict[str, str] = {"async": bool_param(not hold)}
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
