"""What `/mcp` offers a workspace: its published agents as tools, `get_task`, `parse` and `extract`.

An agent's tool is named `agent_<name>_<group id prefix>` (stable while the agent keeps its name)
and takes `{query, input?, file_ids?, wait_seconds?}`: `input` is structured input the task's
query carries as JSON. The call starts a task through the same function, and so the same checks,
as `POST /api/v1/agents/{id}/run` (actors.submit.start_run) and waits up
to `wait_seconds` (at most the platform's sync budget): a finished task answers with its answer and
structured output, a paused or still running one with its task id, which `get_task` then reads.
`parse` and `extract` take the bodies of `/api/v2/parse/sync` and `/extract/sync` (a `file://` id
or a public URL, which passes the URL guard) and answer what those endpoints answer.
Every lookup is inside the calling key's workspace.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

from mcp.types import CallToolResult, TextContent, Tool
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from actors import submit
from actors.models.extraction import extraction_model
from core import tasks
from core.infra.errors import AgentryError
from core.infra.models import Agent
from core.stores import agents
from core.tasks import Task
from core.tasks.state_machine import TaskStatus
from extraction.jobs import service as jobs
from extraction.jobs.schemas import ExtractSyncRequest, ParseSyncRequest
from extraction.jobs.service import ExtractionContext
from serve.attachments import attach_files
from serve.state import EdgeState

GET_TASK = "get_task"
EXTRACTION_TOOLS: dict[str, type[BaseModel]] = {"parse": ParseSyncRequest, "extract": ExtractSyncRequest}
#: Agents listed as tools per workspace; a client's tool list stays readable.
MAX_AGENT_TOOLS = 200
#: How long an agent call waits for its task when the caller does not say.
DEFAULT_WAIT_SECONDS = 30.0
PAUSED = (TaskStatus.WAITING_FOR_INPUT.value, TaskStatus.AWAITING_REVIEW.value)
_SLUG = re.compile(r"[^a-z0-9]+")


class AgentCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field("", description="What to ask the agent.")
    input: dict[str, Any] | None = Field(None, description="Structured input, given to the agent as JSON.")
    file_ids: list[str] = Field(default_factory=list, description="`file://<uuid>` ids from /api/v2/files.")
    wait_seconds: float | None = Field(
        None,
        ge=0,
        strict=True,
        description="How long to wait for the answer before returning the task id to poll.",
    )


class GetTask(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task_id: str = Field(description="A task id an agent tool returned.")


def agent_tool_name(agent: Agent) -> str:
    slug = _SLUG.sub("_", agent.name.lower()).strip("_")[:40] or "agent"
    return f"agent_{slug}_{agent.agent_group_id.replace('-', '')[:8]}"


async def _agents(edge: EdgeState, workspace_id: str) -> list[Agent]:
    found: list[Agent] = []
    cursor: str | None = None
    while len(found) < MAX_AGENT_TOOLS:
        page = await agents.list_agents(edge.redis, workspace_id, cursor=cursor, limit=100)
        found += [Agent.model_validate(a) for a in page.data]
        if not page.has_more:
            break
        cursor = page.next_cursor
    return [a for a in found[:MAX_AGENT_TOOLS] if a.is_active and a.status == "published"]


async def list_tools(edge: EdgeState, workspace_id: str) -> list[Tool]:
    tools = [
        Tool(
            name=agent_tool_name(agent),
            title=agent.name,
            description=f"Run the agent {agent.name!r}: its answer and structured output, or the task id "
            f"to poll with {GET_TASK} when it takes longer or pauses.",
            inputSchema=AgentCall.model_json_schema(),
        )
        for agent in await _agents(edge, workspace_id)
    ]
    tools.append(
        Tool(
            name=GET_TASK,
            description="A task's status, and its answer and structured output once it completed.",
            inputSchema=GetTask.model_json_schema(),
        )
    )
    tools += [
        Tool(
            name=name,
            description=f"{name.title()} a document (`file://` id or URL); the body of /api/v2/{name}/sync.",
            inputSchema=model.model_json_schema(),
        )
        for name, model in EXTRACTION_TOOLS.items()
    ]
    return tools


def _result(payload: dict[str, Any], text: str, *, error: bool = False) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structuredContent=payload, isError=error
    )


def _error(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], isError=True)


def task_result(task: Task) -> CallToolResult:
    """What a client is told of a task: its answer once completed, otherwise where it stands."""
    payload: dict[str, Any] = {"task_id": task.id, "status": task.status}
    if task.status == TaskStatus.COMPLETED.value:
        payload |= {"answer": task.summary, "structured": task.structured if task.has_structured else None}
        return _result(payload, task.summary or json.dumps(payload["structured"]))
    if task.terminal:
        payload["error"] = task.error
        return _result(
            payload, f"the task {task.id} is {task.status}: {task.error or ''}".strip(), error=True
        )
    if task.status in PAUSED:
        payload["pause"] = task.pause
        text = f"the task {task.id} paused ({task.status}); act on it through the API, then call {GET_TASK}"
        return _result(payload, text)
    return _result(payload, f"the task {task.id} is {task.status}; call {GET_TASK} with its task_id")


async def _wait(edge: EdgeState, task: Task, seconds: float) -> Task:
    if seconds <= 0:
        return await tasks.load_task(edge.redis, task.workspace_id, task.id)
    deadline = time.monotonic() + seconds
    async with edge.waiters.watch(task.id) as watch:
        while True:
            watch.changed.clear()
            current = await tasks.load_task(edge.redis, task.workspace_id, task.id)
            left = deadline - time.monotonic()
            if current.terminal or current.status in PAUSED or left <= 0 or watch.drained:
                return current
            try:
                await asyncio.wait_for(watch.changed.wait(), timeout=left)
            except TimeoutError:
                continue


async def _run_agent(edge: EdgeState, workspace_id: str, agent: Agent, call: AgentCall) -> CallToolResult:
    query = call.query
    if call.input is not None:
        query = f"{query}\n\nInput (JSON):\n{json.dumps(call.input, ensure_ascii=False)}".strip()
    run = submit.RunInput(query=query)
    started = await submit.start_run(
        edge.redis,
        edge.settings,
        workspace_id,
        agent.id,
        run,
        has_files=bool(call.file_ids),
        attach=lambda: attach_files(edge, workspace_id, [], call.file_ids),
    )
    task = started.task
    # As a sync run falls back to async: a replica holding its most requests answers at once.
    budget = edge.settings.sync_budget_seconds if edge.settings.sync_enabled and not edge.waiters.full else 0
    wait = min(DEFAULT_WAIT_SECONDS if call.wait_seconds is None else call.wait_seconds, budget)
    return task_result(await _wait(edge, task, wait))


async def _extract(
    edge: EdgeState, workspace_id: str, name: str, arguments: dict[str, Any]
) -> CallToolResult:
    ctx = ExtractionContext(
        redis=edge.redis, settings=edge.settings, blobs=edge.blobs, model_factory=extraction_model
    )
    wait = edge.settings.sync_budget_seconds
    if name == "parse":
        reply = await jobs.run_sync(
            ctx, workspace_id, "parse", ParseSyncRequest.model_validate(arguments), wait_seconds=wait
        )
    else:
        reply = await jobs.run_sync(
            ctx, workspace_id, "extract", ExtractSyncRequest.model_validate(arguments), wait_seconds=wait
        )
    payload = reply.model_dump(mode="json", exclude_none=True)
    return _result(payload, json.dumps(payload, ensure_ascii=False), error=payload.get("success") is False)


async def call_tool(
    edge: EdgeState, workspace_id: str, name: str, arguments: dict[str, Any]
) -> CallToolResult:
    """Run tool `name` for the workspace; a bad call or a refused one is a tool error the client reads."""
    try:
        if name == GET_TASK:
            task_id = GetTask.model_validate(arguments).task_id
            return task_result(await tasks.load_task(edge.redis, workspace_id, task_id))
        if name in EXTRACTION_TOOLS:
            return await _extract(edge, workspace_id, name, arguments)
        for agent in await _agents(edge, workspace_id):
            if agent_tool_name(agent) == name:
                return await _run_agent(edge, workspace_id, agent, AgentCall.model_validate(arguments))
        return _error(f"there is no tool named {name!r}")
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors()
        )
        return _error(f"invalid arguments for {name}: {problems}")
    except AgentryError as exc:
        return _error(exc.message)
