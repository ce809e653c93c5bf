"""Finding tasks that should be running and are not, and starting them again.

Runs at start-up and then periodically. Its inputs are all in Redis (the live-task set, leases, agent
queues), so a restarted scheduler picks up exactly where the last one was.
"""

from __future__ import annotations

import logging
import time
from collections import Counter

import redis.asyncio as aioredis

from actors.admission import admit_and_launch, drain_queue
from actors.launcher import launch
from core import keys, metrics, tasks
from core.settings import Settings
from core.state_machine import TaskStatus

log = logging.getLogger(__name__)

#: The statuses of the live-task set: what may still need a runner.
LIVE_STATUSES = (TaskStatus.PENDING.value, TaskStatus.QUEUED.value, TaskStatus.RUNNING.value)


async def reconcile_once(redis: aioredis.Redis, settings: Settings) -> dict[str, int]:
    """One pass; returns what it did, for logs and tests."""
    counts = {"relaunched": 0, "admitted": 0, "queues": 0}
    now_ms = int(time.time() * 1000)
    grace_ms = int(settings.task_lease_seconds * 1000)
    queues: set[tuple[str, str]] = set()
    live: Counter[str] = Counter()
    members: list[str] = list(await redis.smembers(keys.live_tasks()))
    for member in members:
        workspace_id, _, task_id = member.partition("|")
        task = await tasks.find_task(redis, workspace_id, task_id)
        if task is None or task.status not in LIVE_STATUSES:
            await redis.srem(keys.live_tasks(), member)
            continue
        live[task.status] += 1
        launched = int(task.raw.get("launched_at") or 0)
        started_long_ago = now_ms - max(launched, _created_ms(task)) > grace_ms
        if task.status == TaskStatus.RUNNING.value:
            # No live runner renews the lease: the actor died. Its lease ran out, so a new runner may take it.
            if started_long_ago and not await redis.exists(keys.task_lease(workspace_id, task_id)):
                log.info("task %s lost its runner; starting it again", task_id)
                await launch(redis, settings, task)
                counts["relaunched"] += 1
        elif task.status == TaskStatus.PENDING.value:
            if started_long_ago:
                await admit_and_launch(redis, settings, task, from_status=TaskStatus.PENDING.value)
                counts["admitted"] += 1
        else:
            queues.add((workspace_id, task.spec.agent_group_id))
    depths: dict[str, float] = {}
    for workspace_id, group_id in queues:
        await drain_queue(redis, settings, workspace_id, group_id)
        counts["queues"] += 1
        depths[group_id] = await redis.llen(keys.agent_queue(workspace_id, group_id))
    metrics.set_gauges(metrics.TASKS_LIVE, {status: live[status] for status in LIVE_STATUSES})
    metrics.set_gauges(metrics.QUEUE_DEPTH, depths)
    return counts


def _created_ms(task: tasks.Task) -> int:
    from core.ids import parse_iso

    return int(parse_iso(task.spec.created_at).timestamp() * 1000)
