"""A top-level run's task, created and admitted in two round trips, each within one hash slot.

First its `{global}` facts (which workspace owns the id; its live-set member, so the reconciler
watches it), then one script over its workspace's slot that creates it and admits it (running, or
queued behind the agent's running slots). A task is never in its workspace without its global
facts; facts whose task was never created (the second step failed) are dropped by the reconciler.
A delegated child is created with its parent's records instead (core.tasks.delegation).
"""

from __future__ import annotations

import redis.asyncio as aioredis

from core.infra import keys, metrics
from core.infra.ids import now_iso
from core.tasks import lua
from core.tasks.records import Task, TaskSpec, created_fields, dumps, first_item, live_member
from core.tasks.state_machine import TaskStatus


async def create_admitted(
    redis: aioredis.Redis, spec: TaskSpec, *, limit: int, launch_fields: dict[str, str]
) -> Task:
    """Store the new task and admit it under the agent's `limit`; `launch_fields` are set on it
    when it is admitted to run (where its runner goes)."""
    if spec.parent_task_id:
        raise ValueError("a delegated child is created with its parent's records (core.tasks.delegation)")
    ws, task_id = spec.workspace_id, spec.task_id
    member = live_member(ws, task_id)
    async with redis.pipeline(transaction=True) as pipe:
        pipe.set(keys.owner(task_id), ws)
        pipe.sadd(keys.live_tasks(), member)
        await pipe.execute()
    script_keys = [
        keys.task(ws, task_id),
        keys.task_feed(ws, task_id),
        keys.tasks_index(ws),
        keys.agent_running(ws, spec.agent_group_id),
        keys.agent_queue(ws, spec.agent_group_id),
    ]
    stamp = now_iso()
    status = str(
        await redis.eval(
            lua.CREATE_ADMIT,
            len(script_keys),
            *script_keys,
            dumps(created_fields(spec)),
            dumps(first_item(spec)),
            spec.index_member,
            limit,
            task_id,
            stamp,
            keys.TASK_EVENTS_CHANNEL,
            member,
            dumps(launch_fields),
        )
    )
    metrics.inc(metrics.TASK_TRANSITIONS, status=TaskStatus.PENDING.value)
    metrics.inc(metrics.TASK_TRANSITIONS, status=status)
    raw = {k: str(v) for k, v in created_fields(spec).items()} | {"status": status, "updated_at": stamp}
    if status == TaskStatus.RUNNING.value:
        raw |= launch_fields
    return Task(spec=spec, status=status, updated_at=stamp, raw=raw)
