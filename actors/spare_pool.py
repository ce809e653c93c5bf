"""A node's warm spare `TaskActor`s, as one launching process drives them.

A dedicated launch takes an idle spare of its node (`actors.spares` keeps the list in Redis), or
waits in this process's queue for one (`actors.spare_queue`); meanwhile the node's spares are grown
toward its target: the floor when launches are few, up to the bound and the node's free task slots
in a burst. The counts here (warming, busy, demand) are this process's view, which is all a launch
needs to avoid asking twice for the same shortfall.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import weakref
from collections.abc import Callable
from typing import Any

import ray
import redis.asyncio as aioredis
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from actors import spare_queue, spares
from actors.hosts import TaskActor
from actors.names import NAMESPACE, actor_name
from actors.placement import RecentPlaces, cluster_nodes
from core import tasks
from core.infra import keys
from core.infra.settings import Settings
from core.tasks import Task
from core.tasks.state_machine import TaskStatus

log = logging.getLogger(__name__)

#: Starts a task's own actor, for a task whose spare never came: (task, node id, whether the
#: cluster has task slots).
OwnActor = Callable[[Task, "str | None", bool], None]


class SparePool:
    def __init__(self, recent: RecentPlaces, own_actor: OwnActor) -> None:
        #: The launching process's places (shared with the launcher): a task on a spare counts
        #: against its node's slots until its run returns.
        self._recent = recent
        self._own_actor = own_actor
        self._warming = spares.Warming()
        #: Dedicated launches per node lately: how many spares the node is asked for now.
        self._demand = spares.Recent(spares.DEMAND_SECONDS)
        #: Spares this process handed a task whose run has not returned, per node: with the idle
        #: and the warming ones, what the node has toward its target.
        self._busy = spares.Counted()
        #: Nodes this process is starting spares on now: one refill per node at a time, so that a
        #: burst's launches do not each count the same shortfall.
        self._refilling: set[str] = set()
        #: The launches waiting for spares, per event loop (a replica or the scheduler has one; its
        #: queue's coroutines and store client belong to it).
        self._queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, spare_queue.SpareQueue] = (
            weakref.WeakKeyDictionary()
        )
        self._background: set[asyncio.Task[None]] = set()

    def wanted_on(self, node_id: str) -> None:
        """A dedicated launch is headed for the node: its spares' target grows with the demand."""
        self._demand.add(node_id)

    async def take(self, redis: aioredis.Redis, node_id: str) -> tuple[str, Any] | None:
        """An idle spare of the node, promised to this launch; None when the node has none ready."""
        while (name := await spares.take(redis, node_id)) is not None:
            try:
                return name, await asyncio.to_thread(ray.get_actor, name, namespace=NAMESPACE)
            except ValueError:
                continue  # it died while idle (its node was lost, or it was killed): the next one
        return None

    def run_on(
        self, redis: aioredis.Redis, settings: Settings, waiting: spare_queue.Waiting, spare: tuple[str, Any]
    ) -> None:
        """Hand the waiting task to the spare."""
        node_id = waiting.node_id
        self._busy.add(node_id)
        try:
            run = spare[1].run.remote(waiting.task.workspace_id, waiting.task.id)
        except BaseException:
            self._busy.done(node_id)
            raise
        run.future().add_done_callback(self._after_run(redis, settings, waiting.task, node_id))

    def wait_for_one(self, redis: aioredis.Redis, settings: Settings, waiting: spare_queue.Waiting) -> None:
        """Queue a launch that found no idle spare: the next spare of its node takes it."""
        self._queue(redis, settings).add(redis, waiting, settings.task_lease_seconds / 3)

    def refill_soon(self, redis: aioredis.Redis, settings: Settings, node_id: str, free_slots: float) -> None:
        """Grow the node's spares toward its target, off the launching task's path."""
        job = asyncio.get_running_loop().create_task(self._refill(redis, settings, node_id, free_slots))
        # Held until done: the loop keeps only weak references to its tasks.
        self._background.add(job)
        job.add_done_callback(self._background.discard)

    def _queue(self, redis: aioredis.Redis, settings: Settings) -> spare_queue.SpareQueue:
        """This loop's launches waiting for spares."""
        loop = asyncio.get_running_loop()
        queue = self._queues.get(loop)
        if queue is None:

            async def hand(waiting: spare_queue.Waiting, name: str, handle: Any) -> None:
                key = keys.task(waiting.task.workspace_id, waiting.task.id)
                try:
                    await redis.hset(key, "actor", name)
                    self.run_on(redis, settings, waiting, (name, handle))
                except BaseException:
                    self._recent.pooled_done(waiting.node_id)
                    raise

            async def cold(waiting: spare_queue.Waiting) -> None:
                self._recent.pooled_done(waiting.node_id)
                key = keys.task(waiting.task.workspace_id, waiting.task.id)
                await redis.hset(key, "actor", actor_name(waiting.task.id))
                await asyncio.to_thread(self._own_actor, waiting.task, waiting.node_id, waiting.slots)

            queue = self._queues[loop] = spare_queue.SpareQueue(hand, cold, self._warming.count)
        return queue

    async def _refill(
        self, redis: aioredis.Redis, settings: Settings, node_id: str, free_slots: float
    ) -> None:
        """Start spares on the node until its idle, warming and busy spares reach its target. Started
        at once, not one after another: each is a worker process Ray starts while the others start."""
        if node_id in self._refilling:
            return
        self._refilling.add(node_id)
        floor = settings.spare_task_actors
        limit = max(floor, settings.max_spare_task_actors)
        try:
            # Again while launches meanwhile raised the demand.
            while True:
                wanted = spares.target(floor, limit, self._demand.count(node_id), free_slots)
                idle = await spares.idle_count(redis, node_id)
                missing = wanted - idle - self._warming.count(node_id) - self._busy.count(node_id)
                if missing <= 0:
                    return
                for _ in range(missing):
                    self._warming.add(node_id)
                await asyncio.gather(
                    *(asyncio.to_thread(self._start, node_id, limit, floor) for _ in range(missing))
                )
        except Exception:
            # Spares only save time: the next launch on the node tries again.
            log.warning("could not start a spare task actor on node %s", node_id, exc_info=True)
        finally:
            self._refilling.discard(node_id)

    def _start(self, node_id: str, limit: int, floor: int) -> None:
        actor = TaskActor.options(  # type: ignore[attr-defined]
            name=spares.spare_name(),
            namespace=NAMESPACE,
            lifetime="detached",
            num_cpus=0,
            max_restarts=0,
            # Pinned: it waits on this node's list.
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
        ).remote()
        actor.stand_by.remote(node_id, limit, floor).future().add_done_callback(
            lambda _: self._warming.done(node_id)
        )

    def _after_run(self, redis: aioredis.Redis, settings: Settings, task: Task, node_id: str) -> Any:
        """What follows a spare's run: its place is free again, and should the spare have died
        before its runner took the task, the task gets its own actor now rather than at the
        reconciler's next look once the grace has passed."""
        loop = asyncio.get_running_loop()

        def done(run: concurrent.futures.Future[Any]) -> None:
            self._recent.pooled_done(node_id)
            self._busy.done(node_id)
            if run.cancelled() or not isinstance(run.exception(), ray.exceptions.RayActorError):
                return
            asyncio.run_coroutine_threadsafe(self._unless_running(redis, task, node_id), loop)

        return done

    async def _unless_running(self, redis: aioredis.Redis, task: Task, node_id: str) -> None:
        try:
            current = await tasks.find_task(redis, task.workspace_id, task.id)
            if current is None or current.status != TaskStatus.RUNNING.value:
                return
            if await redis.exists(keys.task_lease(task.workspace_id, task.id)):
                return  # a runner took it (the spare died after): the reconciler watches its lease
            log.info("the spare given task %s died before running it; starting its own actor", task.id)
            nodes = await asyncio.to_thread(cluster_nodes)
            await asyncio.to_thread(self._own_actor, task, node_id, any(n.total for n in nodes))
        except Exception:
            # The reconciler starts it once its grace has passed.
            log.warning("could not restart task %s after its spare died", task.id, exc_info=True)
