"""What a runner reads before a step, in one round trip: the task, its recorded steps, its feed and
its agent's group (for the latest version's caps); the first read also takes the task's lease.

Agent versions come from this process's cache (`core.stores.agents.version_config`): a version's config
never changes, so only the group, which names the latest version and says whether the agent was
deleted, is read each step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis

from actors.lease import Lease
from core import tasks
from core.infra import keys
from core.infra.models import AgentGroup, AgentVersion
from core.stores import agents
from core.tasks import Task


@dataclass
class StepView:
    task: Task | None
    steps: dict[str, Any]
    feed: list[dict[str, Any]]
    #: The agent's group as read with the task (None: not asked for, missing or deleted).
    group: AgentGroup | None = None
    #: False when the lease asked for is held by another runner.
    leased: bool = True


async def load_step(
    redis: aioredis.Redis,
    workspace_id: str,
    task_id: str,
    *,
    lease: Lease | None = None,
    known: Task | None = None,
) -> StepView:
    """One pipeline: the lease (when given), the task, its steps and feed, and (`known`: the task as
    last read, which names its agent) the agent's group."""
    async with redis.pipeline(transaction=False) as pipe:
        if lease is not None:
            lease.queue_acquire(pipe)
        pipe.hgetall(keys.task(workspace_id, task_id))
        pipe.hgetall(keys.task_steps(workspace_id, task_id))
        pipe.xrange(keys.task_feed(workspace_id, task_id))
        if known is not None:
            pipe.get(keys.agent_group(known.agent_workspace_id, known.spec.agent_group_id))
        results = await pipe.execute()
    leased = bool(results.pop(0)) if lease is not None else True
    raw, steps, feed = results[:3]
    return StepView(
        task=tasks.parse_task(raw) if raw else None,
        steps=tasks.step_records(steps),
        feed=tasks.feed_items(feed),
        group=agents.parse_group(results[3]) if known is not None else None,
        leased=leased,
    )


async def agent_of(redis: aioredis.Redis, task: Task) -> tuple[AgentVersion, AgentGroup | None]:
    """The task's agent version (cached) and its group, in one round trip."""
    ws = task.agent_workspace_id
    version = agents.cached_version(ws, task.spec.agent_id)
    async with redis.pipeline(transaction=False) as pipe:
        pipe.get(keys.agent_group(ws, task.spec.agent_group_id))
        if version is None:
            pipe.get(keys.agent(ws, task.spec.agent_id))
        results = await pipe.execute()
    if version is None:
        version = (
            agents.remember_version(ws, AgentVersion.model_validate_json(results[1]))
            if results[1]
            else await agents.load_version(redis, ws, task.spec.agent_id)  # raises the lookup's error
        )
    return version, agents.parse_group(results[0])


async def latest_version(redis: aioredis.Redis, task: Task, group: AgentGroup | None) -> AgentVersion | None:
    """The agent's latest version (None when its group is gone): cached, or one read."""
    if group is None:
        return None
    return await agents.version_config(redis, task.agent_workspace_id, group.latest_version_id)
