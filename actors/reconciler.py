"""Finding tasks that should be running and are not, and starting them again; ending task actors
whose task has ended.

Runs at start-up and then periodically. Its inputs are all in Redis (the live-task set, leases, agent
queues), so a restarted scheduler picks up exactly where the last one was.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter

import ray
import redis.asyncio as aioredis

from actors.launcher import admit_and_launch, drain_queue, launch
from actors.names import NAMESPACE, TASK_ACTOR_PREFIX, count_task_actors, task_actor_names
from core import tasks
from core.infra import gauges, keys, metrics
from core.infra.ids import now_iso, parse_iso
from core.infra.settings import Settings
from core.infra.store import STORE_ERRORS
from core.tasks import cluster as cluster_tasks
from core.tasks.state_machine import TaskStatus

log = logging.getLogger(__name__)

#: The statuses of the live-task set: what may still need a runner.
LIVE_STATUSES = (TaskStatus.PENDING.value, TaskStatus.QUEUED.value, TaskStatus.RUNNING.value)


async def reconcile_once(redis: aioredis.Redis, settings: Settings) -> dict[str, int]:
    """One pass; returns what it did, for logs and tests."""
    counts = {"relaunched": 0, "admitted": 0, "queues": 0}
    now_ms = int(time.time() * 1000)
    grace_ms = int(settings.task_lease_seconds * 1000)
    counts["journalled"] = await apply_journals(redis, now_ms - grace_ms)
    queues: set[tuple[str, str]] = set()
    live: Counter[str] = Counter()
    members: list[str] = list(await redis.smembers(keys.live_tasks()))
    for member in members:
        try:
            status = await _reconcile_task(redis, settings, member, now_ms, grace_ms, queues, counts)
        except STORE_ERRORS:
            raise
        except Exception:
            # One task whose launch fails (a Ray call refused, a record that will not load) must not
            # hold back every task after it in the set: the next pass tries it again.
            log.exception("reconciling task %s failed; the next pass tries again", member)
            continue
        if status is not None:
            live[status] += 1
    depths: dict[str, int] = {}
    for workspace_id, group_id in queues:
        try:
            await drain_queue(redis, settings, workspace_id, group_id)
        except STORE_ERRORS:
            raise
        except Exception:
            log.exception("draining the queue of agent %s failed; the next pass tries again", group_id)
        counts["queues"] += 1
        depths[group_id] = await redis.llen(keys.agent_queue(workspace_id, group_id))
    by_status = {status: live[status] for status in LIVE_STATUSES}
    actors = await asyncio.to_thread(count_task_actors)
    # In the store, so a lost node (with this process's Ray gauges) hides nothing: GET /metrics.
    await gauges.save(redis, tasks_live=by_status, queue_depth=depths, task_actors=actors)
    metrics.set_gauges(metrics.TASKS_LIVE, by_status)
    metrics.set_gauges(metrics.QUEUE_DEPTH, depths)
    metrics.set_gauge(metrics.TASK_ACTORS, actors)
    return counts


async def apply_journals(redis: aioredis.Redis, cutoff_ms: int) -> int:
    """On a Redis Cluster, the global steps (signals, webhook events) whose caller died after their
    workspace step, before `cutoff_ms` (a caller still on its way gets the grace: core.tasks.cluster).
    Returns how many were applied."""
    applied = 0
    for member in await cluster_tasks.journalled(redis, cutoff_ms):
        try:
            applied += await cluster_tasks.reconcile_journal(redis, member, cutoff_ms)
        except STORE_ERRORS:
            raise
        except Exception:
            # As for a live task: one journal that fails must not hold back the others.
            log.exception("applying the journal of task %s failed; the next pass tries again", member)
    return applied


async def _reconcile_task(
    redis: aioredis.Redis,
    settings: Settings,
    member: str,
    now_ms: int,
    grace_ms: int,
    queues: set[tuple[str, str]],
    counts: dict[str, int],
) -> str | None:
    """One member of the live-task set: relaunch, admit or note its queue; returns its live status."""
    workspace_id, _, task_id = member.partition("|")
    task = await tasks.find_task(redis, workspace_id, task_id)
    if task is None or task.status not in LIVE_STATUSES:
        await redis.srem(keys.live_tasks(), member)
        # A resume may have moved it back meanwhile: it added the member before its move (on a
        # Redis Cluster, core.cluster_lua), perhaps just before this removal, so read again.
        task = await tasks.find_task(redis, workspace_id, task_id)
        if task is None or task.status not in LIVE_STATUSES:
            return None
        await redis.sadd(keys.live_tasks(), member)
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
    return task.status


#: A stopped task's runner may still finish the step it was in (its results are not recorded); after
#: this long its actor is ended anyway.
FINISHING_STEP_SECONDS = 300.0


async def reap_task_actors(redis: aioredis.Redis, settings: Settings) -> int:
    """End the dedicated task actors whose task is terminal (or gone); returns how many.

    A runner ends its actor itself once its task leaves `running`; this catches any that did not.
    An actor gets `task_lease_seconds` after its task ended to exit by itself, or, while its runner
    still holds the lease (a stopped task's step finishing), `FINISHING_STEP_SECONDS`.
    """
    reaped = 0
    now = time.time()
    for name in await asyncio.to_thread(task_actor_names):
        task_id = name[len(TASK_ACTOR_PREFIX) :]
        workspace_id = await redis.get(keys.owner(task_id))
        task = await tasks.find_task(redis, workspace_id, task_id) if workspace_id else None
        if task is not None:
            if not task.terminal:
                continue
            leased = await redis.exists(keys.task_lease(task.workspace_id, task_id))
            grace = FINISHING_STEP_SECONDS if leased else settings.task_lease_seconds
            if now - _ended_s(task) < grace:
                continue
        if await asyncio.to_thread(_kill, name):
            log.warning("task actor %s outlived its task; ended it", name)
            reaped += 1
            if task is not None:
                # Kept with the task, for operators (and tests): its actor did not exit by itself.
                await redis.hset(keys.task(task.workspace_id, task_id), "actor_reaped_at", now_iso())
    return reaped


def _kill(name: str) -> bool:
    try:
        ray.kill(ray.get_actor(name, namespace=NAMESPACE), no_restart=True)
    except ValueError:
        return False  # it exited by itself meanwhile
    return True


def _ended_s(task: tasks.Task) -> float:
    return parse_iso(task.updated_at).timestamp() if task.updated_at else 0.0


def _created_ms(task: tasks.Task) -> int:
    return int(parse_iso(task.spec.created_at).timestamp() * 1000)
