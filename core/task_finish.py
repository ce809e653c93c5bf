"""A running task's completion in two round trips, each within one hash slot (Redis Cluster).

1. `complete`: one script over the task's workspace slot: status, outputs, feed item, events on
   the channel, the agent's running slot freed, the runner's lease released.
2. `after_complete`: one transaction over the `{global}` slot: the task leaves the live set, a
   delegated child's `child_task` signal and the agent's `drain_queue` (only when tasks queue for
   it) go to the runtime event stream, and the `task.completed` webhook event to the outbox.

Step 2 is what makes a completed task leave the live set, so a completed task still in the live set
is one whose completer died between the two steps: the reconciler applies step 2 for it
(`reconcile_completed`). The child_task signal is applied once whoever sends it (core.delegation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis

from core import keys, lua, metrics
from core.ids import now_iso
from core.state_machine import TaskStatus
from core.tasks import WEBHOOK_EVENTS, Task, dumps, live_member, mirror


@dataclass(frozen=True)
class Completed:
    """What the completion script found: the global effects it leaves to `after_complete`."""

    applied: bool
    previous: str
    webhook: bool = False
    parent_id: str = ""
    queued: int = 0


async def complete(
    redis: aioredis.Redis,
    task: Task,
    *,
    fields: dict[str, str],
    drop: list[str],
    lease_holder: str,
) -> Completed:
    """Complete `task` if it is still running (`lua.COMPLETE`); the workspace's slot only."""
    ws, task_id = task.workspace_id, task.id
    parent_feed, parent_member = mirror(task.spec)
    script_keys = [
        keys.task(ws, task_id),
        keys.task_feed(ws, task_id),
        keys.agent_running(ws, task.spec.agent_group_id),
        keys.task_lease(ws, task_id),
        keys.webhooks_index(ws),
        keys.agent_queue(ws, task.spec.agent_group_id),
        *parent_feed,
    ]
    stamp = now_iso()
    result = await redis.eval(
        lua.COMPLETE,
        len(script_keys),
        *script_keys,
        stamp,
        dumps(fields),
        dumps(drop),
        keys.TASK_EVENTS_CHANNEL,
        live_member(ws, task_id),
        task_id,
        parent_member,
        lease_holder,
    )
    if not int(result[0]):
        return Completed(applied=False, previous=str(result[1]))
    metrics.inc(metrics.TASK_TRANSITIONS, status=TaskStatus.COMPLETED.value)
    task.updated_at = stamp
    return Completed(
        applied=True,
        previous=str(result[1]),
        webhook=bool(int(result[2])),
        parent_id=str(result[3]),
        queued=int(result[4]),
    )


async def after_complete(redis: aioredis.Redis, task: Task, done: Completed) -> None:
    """The `{global}` slot's part of a completion, as one transaction (see the module's doc)."""
    await _global_effects(
        redis,
        task.workspace_id,
        task.id,
        task.spec.agent_group_id,
        webhook=done.webhook,
        parent_id=done.parent_id,
        queued=done.queued > 0,
        at=task.updated_at,
    )


async def _global_effects(
    redis: aioredis.Redis,
    ws: str,
    task_id: str,
    group_id: str,
    *,
    webhook: bool,
    parent_id: str,
    queued: bool,
    at: str,
) -> None:
    async with redis.pipeline(transaction=True) as pipe:
        pipe.srem(keys.live_tasks(), live_member(ws, task_id))
        if parent_id:
            pipe.xadd(
                keys.runtime_events(), {"kind": "child_task", "ws": ws, "child": task_id, "parent": parent_id}
            )
        if queued:
            pipe.xadd(keys.runtime_events(), {"kind": "drain_queue", "ws": ws, "group": group_id})
        if webhook:
            event: dict[Any, Any] = {
                "type": WEBHOOK_EVENTS[TaskStatus.COMPLETED.value],
                "ws": ws,
                "task_id": task_id,
                "from": TaskStatus.RUNNING.value,
                "at": at,
                "error": "",
                "pause": "",
            }
            pipe.xadd(keys.webhook_outbox(), event)
        await pipe.execute()


async def reconcile_completed(redis: aioredis.Redis, task: Task) -> None:
    """Apply the global part of a completion whose completer died before it (the task is completed
    and still in the live set): what `after_complete` would have written."""
    webhook = bool(await redis.zcard(keys.webhooks_index(task.workspace_id)))
    queued = bool(await redis.llen(keys.agent_queue(task.workspace_id, task.spec.agent_group_id)))
    await _global_effects(
        redis,
        task.workspace_id,
        task.id,
        task.spec.agent_group_id,
        webhook=webhook,
        parent_id=task.spec.parent_task_id or "",
        queued=queued,
        at=task.updated_at,
    )
