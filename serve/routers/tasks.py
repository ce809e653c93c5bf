"""/api/v1/tasks: read, list, reply, review, cancel and delete tasks."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, model_validator

from actors import interaction
from core import tasks
from core.infra import keys
from core.infra.errors import BadRequest, Conflict, NotFound, ServiceUnavailable
from core.infra.models import PageOf
from core.infra.pagination import check_limit, member_id, newest_first
from core.stores import agents, audit, corrections
from core.stores.corrections import TaskCorrections, TaskCorrectionsReply
from core.tasks import delegation, results
from core.tasks import events as task_events
from core.tasks.document_links import with_document_links
from core.tasks.queries import TaskFilter, list_tasks
from serve import task_views
from serve.attachments import attach_files
from serve.deps import EdgeDep, PrincipalDep, RedisDep, SettingsDep
from serve.event_stream import stream_seconds, task_event_stream
from serve.openapi_params import BucketQuery, CreatedQuery, EventIdQuery, StatusQuery, TaskIdPath, UuidQuery
from serve.openapi_responses import bool_query, inline_schema, v1_errors
from serve.paging import PagingDep
from serve.params import strict_bool
from serve.run_body import read_run_body
from serve.schemas import (
    BatchRun,
    DeletedTasks,
    FeedReply,
    ReplyForm,
    ReplyRequest,
    StructuredReply,
    SummaryReply,
    TaskPage,
    TaskRecord,
)

router = APIRouter(prefix="/api/v1/tasks", tags=["tasks"])


def _reply(model: type[BaseModel], *errors: int) -> dict[int | str, dict[str, Any]]:
    """`responses=` of a route whose reply `core` builds as a dict: served as built, documented by `model`.

    The routes say `response_model=None` so that FastAPI does not re-validate what it serves; the
    polled one returns its `JSONResponse` itself, so it is not re-encoded either.
    """
    return {200: {"model": model}, **v1_errors(*errors)}


class ReviewBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    decision: Literal["approve", "reject"]
    comment: str | None = None
    call_id: str | None = Field(
        default=None,
        description="The `pending_tool_call.call_id` this review answers (with `arguments_sha256`).",
    )
    arguments_sha256: str | None = Field(
        default=None,
        description="The `pending_tool_call.arguments_sha256` this review answers (with `call_id`).",
    )

    @model_validator(mode="after")
    def _names_a_whole_preview(self) -> ReviewBody:
        # Half a preview would bind to less than the reviewer saw (a call id repeats its arguments'
        # digest for nothing; a digest alone matches any call with the same arguments).
        if (self.call_id is None) != (self.arguments_sha256 is None):
            raise ValueError(
                "call_id and arguments_sha256 name the previewed call together: give both or neither"
            )
        return self

    def answers(self) -> dict[str, str] | None:
        """The preview this review answers, or None when it names none."""
        if self.call_id is None or self.arguments_sha256 is None:
            return None
        return {"call_id": self.call_id, "arguments_sha256": self.arguments_sha256}


@router.get(
    "",
    response_model=PageOf,
    responses={200: {"model": TaskPage}},
    openapi_extra={
        "parameters": [bool_query("include_data_fields", "Adds each task's `data_fields`.", default=False)]
    },
)
async def list_workspace_tasks(
    request: Request,
    principal: PrincipalDep,
    redis: RedisDep,
    paging: PagingDep,
    agent_group_id: UuidQuery = None,
    agent_id: UuidQuery = None,
    status: StatusQuery = None,
    created_after: CreatedQuery = None,
    created_before: CreatedQuery = None,
    title: str | None = None,
    bucket: BucketQuery = None,
) -> PageOf:
    """List tasks, newest first, with filters and optional data fields."""
    include_data_fields = strict_bool(request, "include_data_fields", False)
    flt = TaskFilter.parse(
        agent_group_id=agent_group_id,
        agent_id=agent_id,
        status=status,
        created_after=created_after,
        created_before=created_before,
        title=title,
        bucket=bucket,
    )
    page = await list_tasks(redis, principal.workspace_id, flt, cursor=paging.cursor, limit=paging.limit)
    data: list[dict[str, Any]] = []
    for task in page.tasks:
        item = task_views.list_item(task)
        if include_data_fields:
            item["data_fields"] = task.data_fields or []
        data.append(item)
    if include_data_fields:
        await audit.record(
            redis,
            principal.workspace_id,
            "task.data_fields_read",
            key_id=principal.key_id,
            task_ids=[t.id for t in page.tasks if t.data_fields],
        )
    return paging.signed(PageOf(data=data, has_more=page.has_more, next_cursor=page.next_cursor))


@router.get("/{task_id}", response_model=None, responses=_reply(TaskRecord))
async def get_task(task_id: TaskIdPath, principal: PrincipalDep, redis: RedisDep) -> JSONResponse:
    """The full task record; the endpoint to poll until `status` is terminal."""
    # The hottest route (clients poll it): `serve.task_poll` calls this endpoint itself, past
    # FastAPI's router and dependencies, so it takes nothing but what that dispatch hands it. The
    # record, built of JSON values, is encoded once as is, not walked again by FastAPI's encoder.
    return JSONResponse(task_views.record(await tasks.load_task(redis, principal.workspace_id, task_id)))


@router.get("/{task_id}/summary", response_model=None, responses=_reply(SummaryReply))
async def get_summary(task_id: TaskIdPath, principal: PrincipalDep, redis: RedisDep) -> dict[str, Any]:
    """The final written answer."""
    return results.summary_envelope(await tasks.load_task(redis, principal.workspace_id, task_id))


@router.get("/{task_id}/result", response_model=None, responses=_reply(FeedReply))
async def get_feed(task_id: TaskIdPath, principal: PrincipalDep, redis: RedisDep) -> dict[str, Any]:
    """The whole reasoning transcript (feed)."""
    task = await tasks.load_task(redis, principal.workspace_id, task_id)
    feed = await tasks.read_feed(redis, task.workspace_id, task.id)
    return {"task_id": task.id, "status": task.status, "feed": feed}


@router.get(
    "/{task_id}/structured-response",
    response_model=None,
    responses=_reply(StructuredReply),
    openapi_extra={"parameters": [bool_query("include_citations", "Citation leaves.", default=False)]},
)
async def get_structured(
    task_id: TaskIdPath, request: Request, principal: PrincipalDep, redis: RedisDep, settings: SettingsDep
) -> dict[str, Any]:
    """Machine-readable output shaped by the output schema, optionally with citations."""
    include_citations = strict_bool(request, "include_citations", False)
    task = await tasks.load_task(redis, principal.workspace_id, task_id)
    if include_citations:
        task = await with_document_links(redis, settings, task)
    config = (await agents.load_version(redis, task.agent_workspace_id, task.spec.agent_id)).config
    body = results.structured_envelope(task, config, include_citations=include_citations)
    if task.has_structured and (kept := await corrections.read(redis, task.workspace_id, "task", task.id)):
        body["corrections"] = kept
    return body


@router.put("/{task_id}/corrections", response_model=None, responses=_reply(TaskCorrectionsReply, 409))
async def correct_task(
    task_id: TaskIdPath, body: TaskCorrections, principal: PrincipalDep, redis: RedisDep
) -> dict[str, Any]:
    """Keep a reviewer's corrected values of the structured output's leaves (by path, `a.b[0].c`),
    with who and when (audited); 409 while the task has no structured output."""
    task = await tasks.load_task(redis, principal.workspace_id, task_id)
    if not task.has_structured:
        raise Conflict(f"task {task.id} has no structured output to correct")
    corrections.check_names(body.paths, corrections.leaf_paths(task.structured), "paths", BadRequest)
    saved = await corrections.save(
        redis, task.workspace_id, "task", task.id, body.paths, key_id=principal.key_id
    )
    return {"task_id": task.id, "corrections": saved}


@router.get(
    "/{task_id}/events",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "Server-Sent Events"}},
)
async def stream_task_events(
    task_id: TaskIdPath,
    principal: PrincipalDep,
    edge: EdgeDep,
    last_event_id: EventIdQuery = None,
    last_event_id_header: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> StreamingResponse:
    """Live events of the task (status, feed, child, end) as Server-Sent Events; resumable."""
    # The header is what a reconnecting EventSource sends, so it is newer than the URL's parameter.
    resume = last_event_id_header or last_event_id or None
    if resume is not None:
        task_events.parse_event_id(resume, what="Last-Event-ID" if last_event_id_header else "last_event_id")
    task = await tasks.load_task(edge.redis, principal.workspace_id, task_id)
    if edge.waiters.full:
        raise ServiceUnavailable("this server holds as many open requests as it can; retry shortly")
    body = task_event_stream(
        edge.redis, edge.waiters, task, last_event_id=resume, max_seconds=stream_seconds(edge.settings)
    )
    # no-transform and X-Accel-Buffering keep proxies from buffering the stream.
    headers = {"Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no"}
    return StreamingResponse(body, media_type="text/event-stream", headers=headers)


@router.post(
    "/{task_id}/message",
    response_model=None,
    responses=_reply(TaskRecord, 409, 413, 415),
    # The body is read by hand (`serve.run_body`), JSON or multipart like a run's.
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": inline_schema(ReplyRequest)},
                "multipart/form-data": {"schema": inline_schema(ReplyForm)},
            },
        }
    },
)
async def reply_to_task(
    task_id: TaskIdPath, request: Request, principal: PrincipalDep, edge: EdgeDep
) -> dict[str, Any]:
    """Reply to a task in waiting_for_input (JSON `{message}` or multipart `message` + `files`)."""
    task = await tasks.load_task(edge.redis, principal.workspace_id, task_id)
    async with read_run_body(request, edge.settings, text_field="message") as body:
        files = await attach_files(edge, principal.workspace_id, body.uploads, body.file_ids)
    updated = await interaction.reply(edge.redis, edge.settings, task, body.run.query, files)
    return task_views.record(updated)


@router.post("/{task_id}/review", response_model=None, responses=_reply(TaskRecord, 409))
async def review_task(
    task_id: TaskIdPath, body: ReviewBody, principal: PrincipalDep, edge: EdgeDep
) -> dict[str, Any]:
    """Approve or reject the tool call a task is waiting on; 409 when the named preview is not the pending call."""
    task = await tasks.load_task(edge.redis, principal.workspace_id, task_id)
    updated = await interaction.review(
        edge.redis, edge.settings, task, body.decision, body.comment, body.answers()
    )
    return task_views.record(updated)


@router.post(
    "/{task_id}/cancel",
    response_model=None,
    responses=_reply(TaskRecord),
    openapi_extra={"parameters": [bool_query("cascade", "Also stop active descendants.", default=False)]},
)
async def cancel_task(
    task_id: TaskIdPath, request: Request, principal: PrincipalDep, edge: EdgeDep
) -> dict[str, Any]:
    """Stop a task; idempotent on a terminal task."""
    cascade = strict_bool(request, "cascade", False)
    task = await tasks.load_task(edge.redis, principal.workspace_id, task_id)
    return task_views.record(await interaction.cancel(edge.redis, edge.settings, task, cascade=cascade))


@router.delete(
    "/{task_id}",
    response_model=None,
    responses=_reply(DeletedTasks),
    openapi_extra={"parameters": [bool_query("include_subtasks", "Also delete descendants.", default=False)]},
)
async def delete_task(
    task_id: TaskIdPath, request: Request, principal: PrincipalDep, redis: RedisDep
) -> dict[str, Any]:
    """Soft-delete a task; it answers 404 afterwards."""
    include_subtasks = strict_bool(request, "include_subtasks", False)
    task = await tasks.load_task(redis, principal.workspace_id, task_id)
    return {"deleted": await interaction.soft_delete(redis, task, include_subtasks=include_subtasks)}


@router.get("/{task_id}/batch", response_model=None, responses=_reply(BatchRun, 404))
async def get_batch(task_id: TaskIdPath, principal: PrincipalDep, redis: RedisDep) -> dict[str, Any]:
    """The task's latest source-mode batch: totals, page progress and its children's outcomes."""
    task = await tasks.load_task(redis, principal.workspace_id, task_id)
    batch = await delegation.latest_batch(redis, task.workspace_id, task.id)
    if batch is None:
        raise NotFound(f"task {task.id} ran no source-mode batch")
    return batch


@router.get("/{task_id}/children", response_model=PageOf)
async def list_children(
    task_id: TaskIdPath,
    principal: PrincipalDep,
    redis: RedisDep,
    paging: PagingDep,
) -> PageOf:
    """The tasks this task delegated to, newest first."""
    task = await tasks.load_task(redis, principal.workspace_id, task_id)
    page = await newest_first(
        redis,
        keys.task_children(task.workspace_id, task.id),
        cursor=paging.cursor,
        limit=check_limit(paging.limit),
    )
    children = [await tasks.find_task(redis, task.workspace_id, member_id(m)) for m in page.members]
    data = [
        task_views.list_item(c) | {"item_key": c.spec.item_key}
        for c in children
        if c is not None and not c.deleted_at
    ]
    return paging.signed(PageOf(data=data, has_more=page.has_more, next_cursor=page.next_cursor))
