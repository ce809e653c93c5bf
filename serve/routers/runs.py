"""POST /api/v1/agents/{agent_id}/run: start a task, and optionally hold the request for its result."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from actors import submit
from serve.attachments import attach_files
from serve.deps import EdgeDep, PrincipalDep
from serve.middleware import SYNC_BUDGET_HEADER
from serve.params import strict_bool
from serve.run_body import read_run_body
from serve.sync_wait import hold

router = APIRouter(prefix="/api/v1/agents", tags=["runs"])


@router.post("/{agent_id}/run", status_code=201)
async def run_agent(agent_id: str, request: Request, principal: PrincipalDep, edge: EdgeDep) -> JSONResponse:
    """Run an agent: 201 with the task, or with `async=false` its result (200) or an outcome (202)."""
    redis, settings = edge.redis, edge.settings
    is_async = strict_bool(request, "async", True)
    include_citations = strict_bool(request, "include_citations", False)
    body = await read_run_body(request)
    version, group = await submit.resolve_agent(redis, principal.workspace_id, agent_id, body.run.version)
    plan = submit.plan_sync(
        version, body.run, is_async=is_async, requested=request.query_params.get("result")
    )
    submit.check_run_input(body.run, has_files=bool(body.uploads or body.file_ids))
    body.run.files = await attach_files(edge, principal.workspace_id, body.uploads, body.file_ids)
    task = await submit.create_and_admit(redis, settings, principal.workspace_id, version, group, body.run)
    created = {
        "task_id": task.id,
        "agent_id": task.spec.agent_id,
        "status": task.status,
        "created_at": task.spec.created_at,
    }
    if plan.selector is None:
        return JSONResponse(created, status_code=201)
    if not settings.sync_enabled or task.status == "queued" or edge.waiters.full:
        # SPEC.md fallback: behave exactly as async=true and say the sync budget was 0.
        return JSONResponse(created, status_code=201, headers={SYNC_BUDGET_HEADER: "0"})
    status, reply = await hold(
        redis, edge.waiters, settings, task, selector=plan.selector, include_citations=include_citations
    )
    return JSONResponse(reply, status_code=status)
