"""POST /api/v1/agents/{agent_id}/run: start a task, and optionally hold the request for its result."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from actors import submit
from serve.attachments import attach_files
from serve.deps import EdgeDep, PrincipalDep
from serve.middleware import SYNC_BUDGET_HEADER
from serve.openapi_params import AgentIdPath
from serve.openapi_responses import bool_query, inline_schema, v1_errors
from serve.params import strict_bool
from serve.run_body import read_run_body
from serve.schemas import RunCreated, RunForm, RunRequest, SyncReply
from serve.sync_wait import hold

router = APIRouter(prefix="/api/v1/agents", tags=["runs"])

_BUDGET_HEADER = {
    SYNC_BUDGET_HEADER: {
        "description": "The longest the API may hold this request (0: the synchronous path was unavailable)",
        "schema": {"type": "integer"},
    }
}
_RUN_RESPONSES: dict[int | str, dict[str, Any]] = {
    201: {"model": RunCreated, "description": "The task was created (async, or the sync fallback)"},
    200: {"model": SyncReply, "description": "`async=false`: the run reached a terminal state"},
    202: {"model": SyncReply, "description": "`async=false`: the wait ended without a result (`outcome`)"},
    # Attachments; besides the 403 of an inactive agent and the 404 of an unknown version.
    **v1_errors(413, 415),
}
for _response in _RUN_RESPONSES.values():
    _response["headers"] = {**_response.get("headers", {}), **_BUDGET_HEADER}
_RUN_OPENAPI = {
    "parameters": [
        bool_query("async", "`false` holds the request until the run ends.", default=True),
        {
            "name": "result",
            "in": "query",
            "required": False,
            "description": "The payload an `async=false` run returns: `structured`, `summary`, `feed` or "
            "`tool:<name>`; required then unless the agent has `settings.sync_result`.",
            "schema": {"type": "string", "pattern": "^(structured|summary|feed|tool:.+)$"},
        },
        bool_query("include_citations", "With `result=structured`: citation leaves.", default=False),
    ],
    # The body is read by hand (`serve.run_body`): JSON or multipart, one parser for both.
    "requestBody": {
        "required": False,
        "content": {
            "application/json": {"schema": inline_schema(RunRequest)},
            "multipart/form-data": {"schema": inline_schema(RunForm)},
        },
    },
}


@router.post(
    "/{agent_id}/run",
    status_code=201,
    response_model=None,
    responses=_RUN_RESPONSES,
    openapi_extra=_RUN_OPENAPI,
)
async def run_agent(
    agent_id: AgentIdPath, request: Request, principal: PrincipalDep, edge: EdgeDep
) -> JSONResponse:
    """Run an agent: 201 with the task, or with `async=false` its result (200) or an outcome (202)."""
    settings = edge.settings
    is_async = strict_bool(request, "async", True)
    include_citations = strict_bool(request, "include_citations", False)
    async with read_run_body(request, settings) as body:
        started = await submit.start_run(
            edge.redis,
            settings,
            principal.workspace_id,
            agent_id,
            body.run,
            has_files=bool(body.uploads or body.file_ids),
            attach=lambda: attach_files(edge, principal.workspace_id, body.uploads, body.file_ids),
            is_async=is_async,
            selector=request.query_params.get("result"),
        )
    task, plan = started.task, started.plan
    created = {
        "task_id": task.id,
        "agent_id": task.spec.agent_id,
        "status": task.status,
        "created_at": task.spec.created_at,
    }
    if plan.selector is None:
        return JSONResponse(created, status_code=201)
    if not settings.sync_enabled or task.status == "queued" or edge.waiters.full:
        # docs/spec.md fallback: behave exactly as async=true and say the sync budget was 0.
        return JSONResponse(created, status_code=201, headers={SYNC_BUDGET_HEADER: "0"})
    status, reply = await hold(
        edge.redis, edge.waiters, settings, task, selector=plan.selector, include_citations=include_citations
    )
    return JSONResponse(reply, status_code=status)
