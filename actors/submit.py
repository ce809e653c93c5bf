"""Starting a run from outside a task: validate everything first, then create the task, then admit it.

`start_run` is the one function the edge doors call (`POST /api/v1/agents/{id}/run`, which the
Python client calls, and the agent tools of `/mcp`): it makes every check of a run
(actors.run_checks, the same checks `delegate_tasks` makes for a child) and starts it. Every 400 is
decided before anything is written, so a refused run leaves no task and no file.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis

from actors import run_checks
from actors.admission import concurrency_limit, limit_of
from actors.launcher import launch, place_pooled
from core import tasks
from core.infra.errors import BadRequest
from core.infra.ids import new_id
from core.infra.models import AgentGroup, AgentVersion
from core.infra.settings import Settings
from core.stores import agents
from core.tasks import Task
from core.tasks.create import create_admitted
from core.tasks.state_machine import TaskStatus

#: docs/spec.md, run endpoint: the payloads `result` may select.
RESULT_SELECTORS = ("structured", "summary", "feed")
TOOL_SELECTOR_PREFIX = "tool:"
#: docs/contract.md section 6: a title taken from the prompt keeps its first 80 characters.
TITLE_FROM_PROMPT_CHARS = 80
SOURCES = ("production", "test")

#: Stores the files a run brings and returns how the task lists them; called once every check passed.
Attach = Callable[[], Awaitable[list[dict[str, Any]]]]


@dataclass
class RunInput:
    query: str = ""
    files: list[dict[str, Any]] = field(default_factory=list)
    output_config: dict[str, Any] | None = None
    version: int | None = None
    source: str = "production"
    title: str | None = None
    disable_delegation: bool = False


@dataclass
class SyncPlan:
    """How an `async=false` run answers: the applied selector, or None for an async run."""

    selector: str | None


def check_selector(selector: str) -> str:
    if selector in RESULT_SELECTORS:
        return selector
    if selector.startswith(TOOL_SELECTOR_PREFIX) and len(selector) > len(TOOL_SELECTOR_PREFIX):
        return selector
    raise BadRequest("result must be structured, summary, feed or tool:<tool_name>")


def plan_sync(version: AgentVersion, run: RunInput, *, is_async: bool, requested: str | None) -> SyncPlan:
    """Apply the selector precedence: the request, then the agent's `settings.sync_result`."""
    if is_async:
        if requested is not None:
            check_selector(requested)
        return SyncPlan(selector=None)
    has_schema = isinstance((run.output_config or {}).get("output_schema"), dict) or isinstance(
        version.config.get("output_schema"), dict
    )
    if requested is not None:
        selector = check_selector(requested)
        if selector == "structured" and not has_schema:
            raise BadRequest("result=structured needs an output schema on the agent or in output_config")
        return SyncPlan(selector=selector)
    stored = (version.config.get("settings") or {}).get("sync_result")
    if not stored:
        raise BadRequest(
            "async=false needs a result selector (result=...) or the agent's settings.sync_result"
        )
    selector = check_selector(str(stored))
    if selector == "structured" and not has_schema:
        # docs/spec.md: a stored `structured` on an agent without a schema degrades to the transcript.
        selector = "feed"
    return SyncPlan(selector=selector)


def check_run_input(run: RunInput, *, has_files: bool) -> None:
    if not run.query.strip() and not has_files:
        raise BadRequest("a run needs a query, one or more files, or both")
    if run.source not in SOURCES:
        raise BadRequest("source must be production or test")
    if run.output_config is not None:
        schema = run.output_config.get("output_schema")
        if schema is not None and not isinstance(schema, dict):
            raise BadRequest("output_config.output_schema must be a JSON object")
        instructions = run.output_config.get("instructions")
        if instructions is not None and not isinstance(instructions, str):
            raise BadRequest("output_config.instructions must be a string")


@dataclass
class Started:
    task: Task
    plan: SyncPlan


async def start_run(
    redis: aioredis.Redis,
    settings: Settings,
    workspace_id: str,
    agent_id: str,
    run: RunInput,
    *,
    has_files: bool,
    attach: Attach | None = None,
    is_async: bool = True,
    selector: str | None = None,
) -> Started:
    """Check the run of agent `agent_id` (`run.version`, else its latest) in every way a run is
    checked, store its files (`attach`), create its task and admit it. 400 (403, 404) before anything
    is written when a check fails."""
    version, group = await agents.version_for_run(redis, workspace_id, agent_id, run.version)
    problem = await run_checks.run_problem(
        redis,
        settings,
        run_checks.RunOf(workspace_id, version.config, group.name, output_config=run.output_config),
    )
    if problem is not None:
        raise BadRequest(problem)
    plan = plan_sync(version, run, is_async=is_async, requested=selector)
    check_run_input(run, has_files=has_files)
    if attach is not None:
        run.files = await attach()
    return Started(await _create_and_admit(redis, settings, workspace_id, version, group, run), plan)


async def _create_and_admit(
    redis: aioredis.Redis,
    settings: Settings,
    workspace_id: str,
    version: AgentVersion,
    group: AgentGroup,
    run: RunInput,
) -> Task:
    """Create the task (pending, first user message) and admit it: running with a runner, or queued."""
    title = run.title or (run.query.strip()[:TITLE_FROM_PROMPT_CHARS] or None)
    spec = {
        "task_id": new_id(),
        "workspace_id": workspace_id,
        "agent_id": version.id,
        "agent_group_id": group.id,
        "version_number": version.version_number,
        "agent_name": group.name,
        "title": title,
        "query": run.query,
        "files": run.files,
        "source": run.source,
        "output_config": run.output_config,
        "disable_delegation": run.disable_delegation,
        "placement": tasks.placement_for(version.config, settings.task_placement),
    }
    new = tasks.new_spec(spec)
    pending = Task(spec=new, status=TaskStatus.PENDING.value, updated_at=new.created_at)
    # A run of the latest version (the usual case) already holds what its limit is read from.
    limit = (
        limit_of(version, settings)
        if version.id == group.latest_version_id
        else await concurrency_limit(redis, settings, pending)
    )
    # A pooled runner's place goes in with the admission; a dedicated one's (a spare or its own
    # actor) is found by its launch.
    placed = await place_pooled(pending) if new.placement == "pooled" else None
    task = await create_admitted(redis, new, limit=limit, launch_fields=placed.fields if placed else {})
    if task.status == TaskStatus.RUNNING.value:
        await launch(redis, settings, task, placed=placed)
    return task
