"""Tasks (`/api/v1/tasks`): read and wait, their summaries and feeds, replies, reviews, cancel, delete."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from ..models import Feed, StructuredResponse, Summary, Task
from ..protocol import Call, Context, FilePart, Flow, exchange, fetch
from .common import V1, bool_param, poll_sleep, segment


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
        yield poll_sleep(ctx, next(delays), deadline, task, f"task {task_id} is still {task.status}")


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
        "POST",
        f"{V1}/tasks/{segment(task_id)}/cancel",
        params={"cascade": bool_param(cascade)},
        idempotent=True,
    )
    return fetch(ctx, call, Task)


def delete_task(ctx: Context, task_id: str, *, include_subtasks: bool) -> Flow[list[str]]:
    call = Call(
        "DELETE",
        f"{V1}/tasks/{segment(task_id)}",
        params={"include_subtasks": bool_param(include_subtasks)},
        idempotent=True,
    )
    reply = yield from exchange(ctx, call)
    return [str(task) for task in reply.json()["deleted"]]
