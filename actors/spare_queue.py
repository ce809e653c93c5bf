"""Dedicated launches of this process waiting for a warm spare of their node (`actors.spares`).

A burst of dedicated tasks outnumbers a node's idle spares. Starting an actor per task then costs a
worker process and its imports per task (seconds of CPU each on a busy node: that is what paced such
a burst, at half the rate of bare Ray actors). Instead, a launch that finds no idle spare waits here,
and each of the node's spares takes the next waiting task as it comes back to its list: the spares
the burst asked for (`actors.spares.target`, bounded by AGENTRY_MAX_SPARE_TASK_ACTORS and the node's
free slots) run the burst one task after another, with no process started per task.

A waiting launch starts an actor of its own instead when the node's spares hand over nothing for
`STALL_SECONDS` and none is on its way (they all run long tasks, or died): waiting is then no
faster than a cold start. While spares warm up (seconds to a minute on a loaded node) it waits.
While it waits, its task's `launched_at` is renewed, so that the reconciler does not take it for a
task whose runner died; should this process die, the renewal stops and the reconciler starts the
task again once its grace has passed, as for any launch lost on the way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import ray

from actors.names import NAMESPACE
from core.infra import keys
from core.tasks import Task

if TYPE_CHECKING:
    import redis.asyncio as aioredis

log = logging.getLogger(__name__)

#: A waiting launch starts its own actor once its node's spares handed over nothing for this long:
#: longer than a spare takes to start on a busy node, so a burst's first spares are waited for.
STALL_SECONDS = 10.0
#: How long one wait for a spare to come back to its node's list blocks (a store round trip).
POLL_SECONDS = 0.25


@dataclass
class Waiting:
    """A dedicated launch waiting for a spare."""

    task: Task
    #: The node whose spare it waits for; its own actor goes there should it stop waiting.
    node_id: str
    #: Whether the cluster's nodes have task slots (its own actor then takes one).
    slots: bool
    since: float = field(default_factory=time.monotonic)


#: A spare's name and handle, given the task it now runs.
Hand = Callable[[Waiting, str, Any], Awaitable[None]]
#: No spare came: the task gets an actor of its own.
Cold = Callable[[Waiting], Awaitable[None]]


class SpareQueue:
    """Per node, the launches waiting in arrival order, and one coroutine handing them spares."""

    def __init__(self, hand: Hand, cold: Cold, warming: Callable[[str], int]) -> None:
        self._hand = hand
        self._cold = cold
        #: Spares of a node on their way: while any is, it comes sooner than a cold start would.
        self._warming = warming
        self._waiting: dict[str, deque[Waiting]] = {}
        self._serving: dict[str, asyncio.Task[None]] = {}

    def waiting(self, node_id: str) -> int:
        return len(self._waiting.get(node_id, ()))

    def add(self, redis: aioredis.Redis, waiting: Waiting, renew_seconds: float) -> None:
        """Queue a launch for a spare of its node; `renew_seconds`: how often its `launched_at` is renewed."""
        node_id = waiting.node_id
        self._waiting.setdefault(node_id, deque()).append(waiting)
        if node_id not in self._serving:
            job = asyncio.get_running_loop().create_task(self._serve(redis, node_id, renew_seconds))
            self._serving[node_id] = job
            job.add_done_callback(lambda _: self._serving.pop(node_id, None))

    async def _serve(self, redis: aioredis.Redis, node_id: str, renew_seconds: float) -> None:
        queue = self._waiting[node_id]
        progress = renewed = time.monotonic()
        try:
            while queue:
                try:
                    handed = await self._hand_one(redis, node_id, queue)
                except Exception:
                    # The store or Ray slow to answer (a loaded node): as if no spare came.
                    log.warning("waiting for a spare of node %s failed", node_id, exc_info=True)
                    handed = False
                    await asyncio.sleep(POLL_SECONDS)
                now = time.monotonic()
                if handed:
                    progress = now
                elif (
                    queue
                    and now - max(progress, queue[0].since) >= STALL_SECONDS
                    and not self._warming(node_id)
                ):
                    log.info(
                        "no spare of node %s came for %.0f s; %d tasks start cold",
                        node_id,
                        STALL_SECONDS,
                        len(queue),
                    )
                    await self._cold_all(queue)
                if queue and now - renewed >= renew_seconds:
                    renewed = now
                    with contextlib.suppress(Exception):
                        # Else the reconciler may start some of them again: their lease admits one runner.
                        await _renew(redis, list(queue))
        except BaseException:
            # Not left waiting for a coroutine that is gone (its loop closes): each starts its own actor.
            await self._cold_all(queue)
            raise

    async def _cold_all(self, queue: deque[Waiting]) -> None:
        while queue:
            waiting = queue.popleft()
            try:
                await self._cold(waiting)
            except Exception:
                # The reconciler starts it once its grace has passed.
                log.warning("could not start task %s", waiting.task.id, exc_info=True)

    async def _hand_one(self, redis: aioredis.Redis, node_id: str, queue: deque[Waiting]) -> bool:
        """Wait a moment for a spare of the node; True when the oldest waiting launch was given one."""
        popped = await redis.blpop([keys.spare_task_actors(node_id)], timeout=POLL_SECONDS)
        if popped is None:
            return False
        name = str(popped[1])
        try:
            handle = await asyncio.to_thread(ray.get_actor, name, namespace=NAMESPACE)
        except ValueError:
            return False  # it died while idle (its node was lost, or it was killed)
        await self._hand(queue.popleft(), name, handle)
        return True


async def _renew(redis: aioredis.Redis, queue: list[Waiting]) -> None:
    """Mark the waiting tasks launched now, so the reconciler leaves them to this process."""
    now_ms = str(int(time.time() * 1000))
    async with redis.pipeline(transaction=False) as pipe:
        for waiting in queue:
            pipe.hset(keys.task(waiting.task.workspace_id, waiting.task.id), "launched_at", now_ms)
        await pipe.execute()
