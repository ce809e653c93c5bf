"""A running task's completion (`lua.COMPLETE`): status, outputs, feed item, events on the channel,
the agent's running slot freed and the runner's lease released, in the workspace's slot; and its
global step: the task leaves the live set, a delegated child's `child_task` signal and the agent's
`drain_queue` (only when tasks queue for it) go to the runtime event stream, and the
`task.completed` webhook event to the outbox.

On one server both steps are one script. On a Redis Cluster the script journals the global step in
the workspace's slot and `after_complete` applies it; should the completer die in between, the
reconciler applies it (`core.tasks.cluster`). The child_task signal is applied once whoever sends
it (core.tasks.delegation).
"""

from __future__ import annotations

from dataclasses import dataclass

import redis.asyncio as aioredis

from core.infra import keys, metrics, slots
from core.infra.ids import now_iso
from core.tasks import cluster as cluster_tasks
from core.tasks import lua
from core.tasks.changes import WEBHOOK_EVENTS
from core.tasks.records import Task, dumps, live_member, mirror
from core.tasks.state_machine import TaskStatus


@dataclass(frozen=True)
class Completed:
    """What the completion script did: whether it applied, and the global step it journalled ('' on
    one server, where it applied it too)."""

    applied: bool
    previous: str
    journal: str = ""


async def complete(
    redis: aioredis.Redis,
    task: Task,
    *,
    fields: dict[str, str],
    drop: list[str],
    lease_holder: str,
) -> Completed:
    """Complete `task` if it is still running (`lua.COMPLETE`); on a cluster, its workspace's slot only."""
    ws, task_id = task.workspace_id, task.id
    parent_feed, parent_member = mirror(task.spec)
    member = live_member(ws, task_id)
    script_keys = [
        keys.task(ws, task_id),
        keys.task_feed(ws, task_id),
        keys.agent_running(ws, task.spec.agent_group_id),
        keys.task_lease(ws, task_id),
        keys.webhooks_index(ws),
        keys.agent_queue(ws, task.spec.agent_group_id),
        keys.task_journal(ws, task_id),
        keys.live_tasks(),
        keys.runtime_events(),
        keys.webhook_outbox(),
        *parent_feed,
    ]
    cluster = slots.is_cluster(redis)
    if cluster:
        await cluster_tasks.will_journal(redis, member)
        script_keys = cluster_tasks.workspace_keys(script_keys, cluster_tasks.COMPLETE_GLOBAL)
    stamp = now_iso()
    result = await redis.eval(
        lua.COMPLETE,
        len(script_keys),
        *script_keys,
        stamp,
        dumps(fields),
        dumps(drop),
        keys.TASK_EVENTS_CHANNEL,
        member,
        task_id,
        parent_member,
        lease_holder,
        ws,
        task.spec.agent_group_id,
        WEBHOOK_EVENTS[TaskStatus.COMPLETED.value],
        "0" if cluster else "1",
    )
    if not int(result[0]):
        return Completed(applied=False, previous=str(result[1]))
    metrics.inc(metrics.TASK_TRANSITIONS, status=TaskStatus.COMPLETED.value)
    task.updated_at = stamp
    return Completed(applied=True, previous=str(result[1]), journal=str(result[2]))


async def after_complete(redis: aioredis.Redis, done: Completed) -> None:
    """The completion's global step, when its script journalled it (a cluster)."""
    if done.journal:
        await cluster_tasks.apply(redis, done.journal)
