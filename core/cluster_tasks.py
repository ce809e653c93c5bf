"""The task state changes of `core.tasks` on a Redis Cluster: the workspace step (`core.cluster_lua`,
where the order and why it is safe are told) and the `{global}` writes around it."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from core import cluster_lua, keys
from core.state_machine import TERMINAL_STATUSES, TaskStatus

#: Statuses whose tasks belong in the live-task set (the reconciler's list).
_LIVE = frozenset({TaskStatus.PENDING.value, TaskStatus.QUEUED.value, TaskStatus.RUNNING.value})
_TERMINAL = frozenset(status.value for status in TERMINAL_STATUSES)
#: Positions (0-based) of the global keys in the KEYS of `lua.TRANSITION` and `lua.ADMIT`.
_TRANSITION_GLOBAL = (2, 4, 5)
_ADMIT_GLOBAL = (4,)


def _workspace_keys(script_keys: list[str], global_positions: tuple[int, ...]) -> list[str]:
    """The script's KEYS with each global one replaced by the task's own key (KEYS[1] of TRANSITION,
    KEYS[3] of ADMIT: any workspace key would do), so the call stays in the workspace's slot."""
    own = next(k for i, k in enumerate(script_keys) if i not in global_positions)
    return [own if i in global_positions else k for i, k in enumerate(script_keys)]


async def transition(
    redis: aioredis.Redis, script_keys: list[str], args: list[Any], fields: dict[str, str]
) -> tuple[int, str]:
    """`lua.TRANSITION` with the arguments `core.tasks.transition` gives it; returns (applied, previous)."""
    target, stamp, member, task_id, ws, event = args[1], args[2], args[7], args[9], args[10], args[12]
    if target in _LIVE:
        await redis.sadd(keys.live_tasks(), member)
    local = _workspace_keys(script_keys, _TRANSITION_GLOBAL)
    result = await redis.eval(cluster_lua.TRANSITION_WORKSPACE, len(local), *local, *args)
    applied, previous = int(result[0]), str(result[1])
    if not applied:
        return applied, previous
    subscribed, parent = int(result[2]), str(result[3])
    async with redis.pipeline(transaction=True) as pipe:
        if event and subscribed:
            pipe.xadd(
                keys.webhook_outbox(),
                {
                    "type": event,
                    "ws": ws,
                    "task_id": task_id,
                    "from": previous,
                    "at": stamp,
                    "error": fields.get("error", ""),
                    "pause": fields.get("pause", ""),
                },
            )
        if parent:
            pipe.xadd(
                keys.runtime_events(), {"kind": "child_task", "ws": ws, "child": task_id, "parent": parent}
            )
        if target in _TERMINAL:
            pipe.srem(keys.live_tasks(), member)
        if len(pipe):
            await pipe.execute()
    return applied, previous


async def admit(redis: aioredis.Redis, script_keys: list[str], args: list[Any]) -> str:
    """`lua.ADMIT` with the arguments `core.tasks.admit` gives it: the task is added to the live-task
    set first, as its every outcome (running, queued, or unchanged) is a live status."""
    await redis.sadd(keys.live_tasks(), args[5])
    local = _workspace_keys(script_keys, _ADMIT_GLOBAL)
    return str(await redis.eval(cluster_lua.ADMIT_WORKSPACE, len(local), *local, *args))
