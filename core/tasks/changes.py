"""Every change of a task's status and every recorded piece of a step: one atomic Lua call each,
which checks the current status against the state machine's table; on a Redis Cluster a step
that also writes `{global}` keys runs as two, with nothing lost between them
(`core.tasks.cluster`). The webhook event each status change emits is named here too.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from core.infra import keys, metrics, slots
from core.infra.ids import now_iso
from core.tasks import cluster as cluster_tasks
from core.tasks import lua
from core.tasks.records import Task, dumps, live_member, mirror
from core.tasks.state_machine import TaskStatus, transition_table_json

_TABLE = transition_table_json()


#: The webhook event each status raises (`core.stores.webhooks` lists every event a subscription may name).
WEBHOOK_EVENTS: dict[str, str] = {
    TaskStatus.COMPLETED.value: "task.completed",
    TaskStatus.FAILED.value: "task.failed",
    TaskStatus.WAITING_FOR_INPUT.value: "task.waiting_for_input",
    TaskStatus.AWAITING_REVIEW.value: "task.awaiting_review",
}


async def transition(
    redis: aioredis.Redis,
    task: Task,
    target: str,
    *,
    fields: dict[str, str] | None = None,
    drop: list[str] | None = None,
    items: list[dict[str, Any]] | None = None,
    expected: str = "",
) -> tuple[bool, str]:
    """Move the task to `target` if the state machine allows it from its current status.

    Returns (applied, status before the call). Refused transitions write nothing.
    """
    ws, task_id = task.workspace_id, task.id
    stamp = now_iso()
    encoded = [dumps(item | {"created_at": stamp}) for item in items or []]
    parent_feed, parent_member = mirror(task.spec)
    script_keys = [
        keys.task(ws, task_id),
        keys.task_feed(ws, task_id),
        keys.live_tasks(),
        keys.agent_running(ws, task.spec.agent_group_id),
        keys.runtime_events(),
        keys.webhook_outbox(),
        keys.webhooks_index(ws),
        keys.task_journal(ws, task_id),
        *parent_feed,
    ]
    cluster = slots.is_cluster(redis)
    args = [
        _TABLE,
        target,
        stamp,
        dumps(fields or {}),
        dumps(drop or []),
        dumps(encoded),
        keys.TASK_EVENTS_CHANNEL,
        live_member(ws, task_id),
        expected,
        task_id,
        ws,
        parent_member,
        WEBHOOK_EVENTS.get(target, ""),
        "0" if cluster else "1",
    ]
    if cluster:
        applied, previous = await cluster_tasks.transition(redis, script_keys, args)
    else:
        # One server: the global step was applied in the same script (the result's third item is '').
        result = await redis.eval(lua.TRANSITION, len(script_keys), *script_keys, *args)
        applied, previous = result[0], result[1]
    if int(applied):
        metrics.inc(metrics.TASK_TRANSITIONS, status=target)
    return bool(int(applied)), str(previous)


async def record(
    redis: aioredis.Redis,
    task: Task,
    marker: str,
    value: Any,
    *,
    allowed: tuple[str, ...] = (TaskStatus.RUNNING.value,),
    fields: dict[str, str] | None = None,
    drop: list[str] | None = None,
    items: list[dict[str, Any]] | None = None,
    increments: dict[str, float] | None = None,
    markers: dict[str, Any] | None = None,
    paused_on: dict[str, str] | None = None,
    rollup: tuple[list[str], dict[str, float]] | None = None,
) -> int:
    """Write one recorded piece of a step exactly once (see `lua.RECORD` for the result codes).

    `paused_on` (`{call_id, arguments_sha256}`) writes only while the task's pending reviewed call
    is that one, checked in the same script that writes. `rollup` (ancestors' hash keys, increments)
    adds the increments to each ancestor in the same script.
    """
    ws, task_id = task.workspace_id, task.id
    stamp = now_iso()
    encoded = [dumps(item | {"created_at": stamp}) for item in items or []]
    parent_feed, parent_member = mirror(task.spec)
    script_keys = [
        keys.task(ws, task_id),
        keys.task_feed(ws, task_id),
        keys.task_steps(ws, task_id),
        *parent_feed,
    ]
    ancestors, rolled = rollup if rollup is not None else ([], {})
    script_keys += ancestors
    result = await redis.eval(
        lua.RECORD,
        len(script_keys),
        *script_keys,
        marker,
        dumps(value),
        dumps(list(allowed)),
        dumps(fields or {}),
        dumps(drop or []),
        dumps(encoded),
        dumps(increments or {}),
        stamp,
        keys.TASK_EVENTS_CHANNEL,
        live_member(ws, task_id),
        dumps({k: dumps(v) for k, v in (markers or {}).items()}),
        task_id,
        parent_member,
        "" if paused_on is None else dumps(paused_on),
        dumps(rolled),
        len(ancestors),
    )
    return int(result)


async def admit(redis: aioredis.Redis, task: Task, *, limit: int, from_status: str) -> str:
    """Take one of the agent's running slots, or join its FIFO queue. Returns the new status."""
    ws, task_id, group = task.workspace_id, task.id, task.spec.agent_group_id
    parent_feed, parent_member = mirror(task.spec)
    script_keys = [
        keys.agent_running(ws, group),
        keys.agent_queue(ws, group),
        keys.task(ws, task_id),
        keys.task_feed(ws, task_id),
        keys.live_tasks(),
        *parent_feed,
    ]
    member = live_member(ws, task_id)
    args = [limit, task_id, _TABLE, now_iso(), keys.TASK_EVENTS_CHANNEL, member, from_status, parent_member]
    if slots.is_cluster(redis):
        result = await cluster_tasks.admit(redis, script_keys, args)
    else:
        result = await redis.eval(lua.ADMIT, len(script_keys), *script_keys, *args, "1")
    if result and result != from_status:
        metrics.inc(metrics.TASK_TRANSITIONS, status=str(result))
    return str(result)


async def queued_heads(redis: aioredis.Redis, workspace_id: str, group_id: str, count: int) -> list[str]:
    heads: list[str] = await redis.lrange(keys.agent_queue(workspace_id, group_id), 0, max(count, 1) - 1)
    return heads
