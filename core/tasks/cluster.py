"""The task state changes of `core.tasks` and `core.tasks.finish` on a Redis Cluster: the workspace
step, and its global step journalled by it and applied next (`core.tasks.lua`, where the order and why
it is safe are told).

A step that may journal first adds its task to the journals' index (`keys.task_journals`, global),
then runs its workspace script, which writes the global step it owes to the task's journal; the
caller then applies it (`apply`: once, whoever applies it) and deletes it. A caller that dies in
between leaves the entry, and the index names its task: the reconciler applies what is left in
journals whose last step began more than a grace ago (`journalled`, `reconcile_journal`).
"""

from __future__ import annotations

import json
import time
from typing import Any

import redis.asyncio as aioredis

from core.infra import keys
from core.tasks import lua
from core.tasks.state_machine import TaskStatus

#: Statuses whose tasks belong in the live-task set (the reconciler's list).
_LIVE = frozenset({TaskStatus.PENDING.value, TaskStatus.QUEUED.value, TaskStatus.RUNNING.value})
#: Positions (0-based) of the global keys in the KEYS of `lua.TRANSITION`, `lua.COMPLETE`, `lua.ADMIT`.
TRANSITION_GLOBAL = (2, 4, 5)
COMPLETE_GLOBAL = (7, 8, 9)
_ADMIT_GLOBAL = (4,)
#: How long an applied entry's marker is kept: whoever applies the entry again within it (its
#: caller and the reconciler both, or the reconciler twice when it died before deleting the entry)
#: writes nothing. The reconciler deletes an entry a grace (AGENTRY_TASK_LEASE_SECONDS) after its
#: step, so this covers a reconciler stopped for most of a day.
APPLIED_MARKER_SECONDS = 24 * 3600


def workspace_keys(script_keys: list[str], global_positions: tuple[int, ...]) -> list[str]:
    """The script's KEYS with each global one replaced by the task's own key (KEYS[1] of TRANSITION
    and COMPLETE, KEYS[3] of ADMIT: any workspace key would do), so the call stays in the
    workspace's slot."""
    own = next(k for i, k in enumerate(script_keys) if i not in global_positions)
    return [own if i in global_positions else k for i, k in enumerate(script_keys)]


async def will_journal(redis: aioredis.Redis, member: str) -> None:
    """Name the task in the journals' index, before a workspace step that may journal."""
    await redis.zadd(keys.task_journals(), {member: int(time.time() * 1000)})


async def transition(redis: aioredis.Redis, script_keys: list[str], args: list[Any]) -> tuple[int, str]:
    """`lua.TRANSITION` with the arguments `core.tasks.transition` gives it; returns (applied, previous)."""
    target, member = args[1], args[7]
    if target in _LIVE:
        await redis.sadd(keys.live_tasks(), member)
    else:
        await will_journal(redis, member)
    local = workspace_keys(script_keys, TRANSITION_GLOBAL)
    result = await redis.eval(lua.TRANSITION, len(local), *local, *args)
    applied, previous = int(result[0]), str(result[1])
    if applied and result[2]:
        await apply(redis, str(result[2]))
    return applied, previous


async def apply(redis: aioredis.Redis, entry: str) -> bool:
    """Apply one journal entry's global step unless it was already, then delete the entry; True when
    this call applied it."""
    step = json.loads(entry)
    member, entry_id = step["member"], step["id"]
    applied = await redis.eval(
        lua.APPLY_JOURNAL,
        4,
        keys.journal_applied(member, entry_id),
        keys.live_tasks(),
        keys.runtime_events(),
        keys.webhook_outbox(),
        entry,
        APPLIED_MARKER_SECONDS,
    )
    await redis.hdel(keys.task_journal(step["ws"], step["task_id"]), entry_id)
    return bool(int(applied))


async def journalled(redis: aioredis.Redis, cutoff_ms: int) -> list[str]:
    """The tasks (live-set members) whose last step that may journal began before `cutoff_ms`:
    their journals hold what a caller that died (or is slower than the grace) left."""
    members: list[str] = await redis.zrangebyscore(keys.task_journals(), "-inf", cutoff_ms)
    return members


async def reconcile_journal(redis: aioredis.Redis, member: str, cutoff_ms: int) -> int:
    """Apply what is left in the journal of one task of `journalled`, and drop it from the index
    unless a new step that may journal began for it meanwhile. Returns how many entries this call
    applied."""
    ws, _, task_id = member.partition("|")
    applied = 0
    for entry in (await redis.hgetall(keys.task_journal(ws, task_id))).values():
        applied += await apply(redis, entry)
    # Any later step that may journal re-scored the member first, and keeps it.
    await redis.eval(lua.FORGET_JOURNAL, 1, keys.task_journals(), member, cutoff_ms)
    return applied


async def admit(redis: aioredis.Redis, script_keys: list[str], args: list[Any]) -> str:
    """`lua.ADMIT` with the arguments `core.tasks.admit` gives it: the task is added to the live-task
    set first, as its every outcome (running, queued, or unchanged) is a live status."""
    await redis.sadd(keys.live_tasks(), args[5])
    local = workspace_keys(script_keys, _ADMIT_GLOBAL)
    return str(await redis.eval(lua.ADMIT, len(local), *local, *args, "0"))
