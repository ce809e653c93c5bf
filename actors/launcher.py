"""Starting a task's runner: its own Ray actor (`dedicated`) or a coroutine in a warm host (`pooled`)."""

from __future__ import annotations

import time
import zlib
from functools import lru_cache
from typing import Any

import ray
import redis.asyncio as aioredis

from core import keys
from core.settings import Settings
from core.tasks import Task

#: Ray namespace of every named actor of ours (Serve replicas live in "serve").
NAMESPACE = "agentry"
#: Ray custom resource bounding live task actors per node (AGENTRY_MAX_LIVE_TASKS_PER_NODE).
TASK_SLOT_RESOURCE = "agentry_task_slot"
#: Coroutines one pooled host runs at once.
HOST_MAX_CONCURRENCY = 1000


#: Prefix of a dedicated task actor's name; the task id follows.
TASK_ACTOR_PREFIX = "task:"


def actor_name(task_id: str) -> str:
    return f"{TASK_ACTOR_PREFIX}{task_id}"


def count_task_actors() -> int:
    """Dedicated task actors in the cluster, alive or still waiting for a task slot."""
    named: list[dict[str, str]] = ray.util.list_named_actors(all_namespaces=True)
    return sum(1 for a in named if a["namespace"] == NAMESPACE and a["name"].startswith(TASK_ACTOR_PREFIX))


@lru_cache(maxsize=1)
def _cluster_has_task_slots() -> bool:
    # A joined cluster started without the resource would leave every task actor unplaceable.
    return bool(ray.cluster_resources().get(TASK_SLOT_RESOURCE))


def task_actor_options(task_id: str) -> dict[str, Any]:
    options: dict[str, Any] = {
        "name": actor_name(task_id),
        "namespace": NAMESPACE,
        "lifetime": "detached",
        "get_if_exists": True,
        "num_cpus": 0,
        "max_restarts": 0,
    }
    if _cluster_has_task_slots():
        options["resources"] = {TASK_SLOT_RESOURCE: 1}
    return options


def host_handle(index: int) -> Any:
    from actors.hosts import TaskHost

    return TaskHost.options(  # type: ignore[attr-defined]
        name=f"taskhost-{index}",
        namespace=NAMESPACE,
        lifetime="detached",
        get_if_exists=True,
        num_cpus=0,
        max_concurrency=HOST_MAX_CONCURRENCY,
    ).remote()


async def launch(redis: aioredis.Redis, settings: Settings, task: Task) -> None:
    """Start a runner for an admitted task. Safe to repeat: the task's lease admits one runner."""
    from actors.hosts import TaskActor

    await redis.hset(keys.task(task.workspace_id, task.id), "launched_at", str(int(time.time() * 1000)))
    if task.spec.placement == "pooled":
        host = host_handle(zlib.crc32(task.id.encode()) % settings.task_hosts)
        host.run.remote(task.workspace_id, task.id)
        return
    actor = TaskActor.options(**task_actor_options(task.id)).remote()  # type: ignore[attr-defined]
    actor.run.remote(task.workspace_id, task.id)
