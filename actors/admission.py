"""Admission control per agent: a running-slot limit and a FIFO queue. It decides; `actors.launcher`
starts what it admitted."""

from __future__ import annotations

import redis.asyncio as aioredis

from core import tasks
from core.infra import keys
from core.infra.models import AgentVersion
from core.infra.settings import Settings
from core.stores import agents
from core.tasks import Task
from core.tasks.state_machine import TaskStatus


def limit_of(latest: AgentVersion, settings: Settings) -> int:
    """`settings.max_concurrent_tasks` of the agent's latest version, else AGENTRY_AGENT_CONCURRENCY."""
    value = (latest.config.get("settings") or {}).get("max_concurrent_tasks")
    return int(value) if isinstance(value, int) and value > 0 else settings.agent_concurrency


async def concurrency_limit(redis: aioredis.Redis, settings: Settings, task: Task) -> int:
    """The limit of `task`'s agent, read from its definition (a public agent's in its publisher's
    workspace); the running slots it limits are counted in the task's own workspace."""
    try:
        group = await agents.load_group(redis, task.agent_workspace_id, task.spec.agent_group_id)
        version = await agents.latest(redis, task.agent_workspace_id, group)
    except Exception:
        return settings.agent_concurrency
    return limit_of(version, settings)


async def admit(
    redis: aioredis.Redis, settings: Settings, task: Task, *, from_status: str, limit: int | None = None
) -> str:
    """Admit the task (`running`) or queue it; returns its status.

    `limit`: the agent's limit when the caller has just read its latest version (saves reading it again).
    """
    if limit is None:
        limit = await concurrency_limit(redis, settings, task)
    return await tasks.admit(redis, task, limit=limit, from_status=from_status)


async def next_queued(redis: aioredis.Redis, workspace_id: str, group_id: str) -> Task | None:
    """The agent's oldest queued task; heads that are no longer queued are dropped from the queue."""
    while True:
        heads = await tasks.queued_heads(redis, workspace_id, group_id, 1)
        if not heads:
            return None
        task = await tasks.find_task(redis, workspace_id, heads[0])
        if task is not None and task.status == TaskStatus.QUEUED.value:
            return task
        await redis.lrem(keys.agent_queue(workspace_id, group_id), 0, heads[0])
