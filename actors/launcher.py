"""The one place a task is launched from: admission decides, then its runner starts, in its own Ray
actor (`dedicated`) or as a coroutine in a warm host (`pooled`), on the node `actors.placement` picks.

Whatever starts a task (a run, a reply or review, a child's or parent's turn, the reconciler, a
freed slot) calls `admit_and_launch`, `drain_queue` or `launch` here. The warm spares a dedicated
task runs on are driven by `actors.spare_pool`."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
import zlib
from dataclasses import dataclass
from typing import Any

import ray
import redis.asyncio as aioredis
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from actors import admission, spare_queue
from actors.hosts import TaskActor, TaskHost
from actors.names import NAMESPACE, actor_name, host_name
from actors.placement import (
    TASK_SLOT_RESOURCE,
    NodeSlots,
    RecentPlaces,
    cluster_nodes,
    hosts_on,
    least_full,
    pick_node,
)
from actors.spare_pool import SparePool
from core.infra import keys
from core.infra.ids import parse_iso
from core.infra.settings import Settings
from core.tasks import Task
from core.tasks.state_machine import TaskStatus

log = logging.getLogger(__name__)

#: Coroutines one pooled host runs at once.
HOST_MAX_CONCURRENCY = 1000

_recent = RecentPlaces()


async def admit_and_launch(
    redis: aioredis.Redis, settings: Settings, task: Task, *, from_status: str, limit: int | None = None
) -> str:
    """Admit the task (running) or queue it; a running task gets its runner started. Returns its status.

    `limit`: the agent's limit when the caller has just read its latest version (saves reading it again).
    """
    status = await admission.admit(redis, settings, task, from_status=from_status, limit=limit)
    if status == TaskStatus.RUNNING.value:
        await launch(redis, settings, task)
    return status


async def drain_queue(redis: aioredis.Redis, settings: Settings, workspace_id: str, group_id: str) -> None:
    """Admit queued tasks of the agent, oldest first, while it has free slots."""
    while (task := await admission.next_queued(redis, workspace_id, group_id)) is not None:
        status = await admit_and_launch(redis, settings, task, from_status=TaskStatus.QUEUED.value)
        if status != TaskStatus.RUNNING.value:
            return


def task_actor_options(task_id: str, node_id: str | None, *, slots: bool) -> dict[str, Any]:
    options: dict[str, Any] = {
        "name": actor_name(task_id),
        "namespace": NAMESPACE,
        "lifetime": "detached",
        "get_if_exists": True,
        "num_cpus": 0,
        "max_restarts": 0,
    }
    # A joined cluster started without the resource would leave every task actor unplaceable.
    if slots:
        options["resources"] = {TASK_SLOT_RESOURCE: 1}
    if node_id is not None:
        # Soft: should the node be gone by the time Ray places the actor, another node takes it. Not
        # spilled when the node is busy: Ray would pick the next node itself (the head, as likely).
        options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node_id, soft=True)
    # Else every slot is taken: Ray starts the actor wherever a slot frees first.
    return options


#: Handles of the pooled hosts this process launched on, by name: asking the GCS for a named actor
#: on every launch (`get_if_exists`) was a tenth of a replica's CPU in a burst.
_hosts: dict[str, Any] = {}


def host_handle(nodes: list[NodeSlots], node_id: str | None, task_id: str) -> tuple[str, Any]:
    """The pooled host for a task, one of its node's hosts: its name and a handle."""
    options: dict[str, Any] = {
        "namespace": NAMESPACE,
        "lifetime": "detached",
        "get_if_exists": True,
        "num_cpus": 0,
        "max_concurrency": HOST_MAX_CONCURRENCY,
    }
    node = next((n for n in nodes if n.node_id == node_id), None)
    if node is None:
        options["name"] = host_name("any", 0)
    else:
        options["name"] = host_name(node.node_id, zlib.crc32(task_id.encode()) % hosts_on(node))
        # Pinned: a host lives and dies with its node.
        options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node.node_id, soft=False)
    name = str(options["name"])
    handle = _hosts.get(name)
    if handle is None:
        handle = _hosts[name] = TaskHost.options(**options).remote()  # type: ignore[attr-defined]
    return name, handle


def _forget_dead_host(name: str, run: concurrent.futures.Future[Any]) -> None:
    """A host that died (its node was lost, or it was killed) is asked for by name again next time."""
    if not run.cancelled() and isinstance(run.exception(), ray.exceptions.RayActorError):
        _hosts.pop(name, None)


def _place(nodes: list[NodeSlots], task: Task, *, on_spare: bool) -> str | None:
    """The node for the task's runner; None leaves it to Ray (every slot taken, or no slots at all).
    `on_spare`: a dedicated task that is to run on a warm spare."""
    previous = task.raw.get("placed_on")
    if task.status == TaskStatus.RUNNING.value and previous in {n.node_id for n in nodes}:
        # Started again while its node lives (its runner was slow to take the lease, or died):
        # the same node, so that a second launching process does not place it twice.
        return str(previous)
    recent = _recent.counts()
    node_id = pick_node(nodes, recent)
    if task.spec.placement == "pooled" or on_spare:
        # Its runner takes no Ray slot (counted from its launch until its run returns, in `launch`);
        # when every slot is counted, it waits on the least loaded node for a spare or a host.
        return node_id or least_full(nodes, recent)
    if node_id is not None:
        _recent.add(node_id)
    return node_id


@dataclass(frozen=True)
class Placed:
    """A pooled runner's place, decided before its task was admitted, whose `fields` the admission
    wrote with the task (core.tasks.create): its launch writes nothing more."""

    nodes: list[NodeSlots]
    node_id: str | None

    @property
    def fields(self) -> dict[str, str]:
        fields = {"launched_at": str(int(time.time() * 1000))}
        if self.node_id is not None:
            fields["placed_on"] = self.node_id
        return fields


async def place_pooled(task: Task) -> Placed:
    """Where a new pooled task's runner goes (a Ray control-store call, on a thread)."""
    nodes = await asyncio.to_thread(cluster_nodes)
    return Placed(nodes, _place(nodes, task, on_spare=False))


async def launch(
    redis: aioredis.Redis, settings: Settings, task: Task, *, placed: Placed | None = None
) -> None:
    """Start a runner for an admitted task. Safe to repeat: the task's lease admits one runner.

    A dedicated task goes to an idle spare of its node, or, when none is idle, waits for one
    (`actors.spare_queue`) while the node grows its spares to the demand; an actor of its own is
    started for a relaunch (its actor may still be starting) or when spares are off.

    Ray's control-store calls (the nodes, a named actor's lookup or creation) block until answered,
    seconds on a busy node: they run on a thread, so the caller's event loop (an HTTP replica's)
    goes on serving meanwhile.
    """
    pooled = task.spec.placement == "pooled"
    on_spare = not pooled and settings.spare_task_actors > 0 and not _relaunch(task)
    if placed is not None:
        nodes, node_id = placed.nodes, placed.node_id
    else:
        nodes = await asyncio.to_thread(cluster_nodes)
        node_id = _place(nodes, task, on_spare=on_spare)
    # The node whose spare runs the task; None: a pooled host, or an actor of its own.
    spare_node = node_id if on_spare else None
    spare = await _spares.take(redis, spare_node) if spare_node is not None else None
    # Counted at once (other launches of this process may run while this one awaits the store): a
    # runner that takes no Ray slot counts against its node's slots until its run returns.
    counted = node_id if pooled else spare_node
    if counted is not None:
        _recent.add_pooled(counted)
    if not pooled and node_id is not None:
        _spares.wanted_on(node_id)
    try:
        fields = {"launched_at": str(int(time.time() * 1000))}
        if node_id is not None:
            fields["placed_on"] = node_id
        if spare is not None:
            # Which process runs it, for operators: a spare (once handed one), or its own actor.
            fields["actor"] = spare[0]
        elif not pooled and spare_node is None:
            fields["actor"] = actor_name(task.id)
        if placed is None:
            await redis.hset(keys.task(task.workspace_id, task.id), mapping=fields)
        if pooled:
            host, handle = host_handle(nodes, node_id, task.id)
            run = handle.run.remote(task.workspace_id, task.id).future()
            run.add_done_callback(lambda done: _forget_dead_host(host, done))
            if node_id is not None:
                run.add_done_callback(lambda _: _recent.pooled_done(node_id))
            return
        if spare_node is not None:
            waiting = spare_queue.Waiting(task, spare_node, slots=any(n.total for n in nodes))
            if spare is not None:
                _spares.run_on(redis, settings, waiting, spare)
            else:
                _spares.wait_for_one(redis, settings, waiting)
    except BaseException:
        if counted is not None:
            _recent.pooled_done(counted)
        raise
    if spare_node is None:
        await asyncio.to_thread(_start_own_actor, task, node_id, nodes)
    else:
        # Not on the task's path: its run is on its way already, or waits for these.
        _spares.refill_soon(redis, settings, spare_node, _free_slots(nodes, spare_node))


def _relaunch(task: Task) -> bool:
    """Launched already since the task last changed: its actor may still be starting (a busy node
    takes seconds), so it goes to that same named actor rather than to a spare beside it."""
    launched_ms = int(task.raw.get("launched_at") or 0)
    return bool(task.updated_at) and launched_ms >= parse_iso(task.updated_at).timestamp() * 1000


def _start_own_actor(task: Task, node_id: str | None, nodes: list[NodeSlots]) -> None:
    _own_actor(task, node_id, any(n.total for n in nodes))


def _own_actor(task: Task, node_id: str | None, slots: bool) -> None:
    options = task_actor_options(task.id, node_id, slots=slots)
    actor = TaskActor.options(**options).remote()  # type: ignore[attr-defined]
    actor.run.remote(task.workspace_id, task.id)


def _free_slots(nodes: list[NodeSlots], node_id: str) -> float:
    """The node's task slots free for spares: Ray's view, less the actors this process placed there
    lately (a task on a spare takes no Ray slot: the spare's process is what a slot bounds)."""
    node = next((n for n in nodes if n.node_id == node_id), None)
    return 0.0 if node is None else node.free - _recent.placed(node_id)


_spares = SparePool(_recent, _own_actor)
