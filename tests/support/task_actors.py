"""The Ray actor that runs a dedicated task: its own (`task:<id>`) or a warm spare (`spare:<id>`).

The launch records its name in the task's hash (`actor`); a spare goes back to its node's list of
idle spares once its task pauses or ends, and then runs no task.
"""

from __future__ import annotations

from typing import Any

import ray

from actors.names import NAMESPACE
from actors.spares import SPARE_PREFIX
from core.infra import keys
from tests.support.service import run_async


def _launch_record(redis_url: str, task_id: str) -> dict[str, str]:
    async def read(redis: Any) -> dict[str, str]:
        workspace_id = await redis.get(keys.owner(task_id))
        if workspace_id is None:
            return {}
        fields = await redis.hmget(keys.task(workspace_id, task_id), "actor", "placed_on", "launched_at")
        record = dict(zip(("actor", "placed_on", "launched_at"), fields, strict=True))
        if record["actor"] and record["actor"].startswith(SPARE_PREFIX) and record["placed_on"]:
            idle = await redis.lrange(keys.spare_task_actors(record["placed_on"]), 0, -1)
            record["parked"] = "1" if record["actor"] in idle else ""
        return {k: v for k, v in record.items() if v}

    return dict(run_async(redis_url, read))


def _alive(name: str) -> Any:
    try:
        return ray.get_actor(name, namespace=NAMESPACE)
    except ValueError:
        return None


def running_actor(redis_url: str, task_id: str, *, launched_after_ms: int = 0) -> Any:
    """The live actor running the task now (launched after the given time), or None."""
    name = running_actor_name(redis_url, task_id, launched_after_ms=launched_after_ms)
    return _alive(name) if name is not None else None


def running_actor_name(redis_url: str, task_id: str, *, launched_after_ms: int = 0) -> str | None:
    """The name of the live actor running the task now, or None."""
    record = _launch_record(redis_url, task_id)
    if "actor" not in record or "parked" in record or int(record.get("launched_at", 0)) < launched_after_ms:
        return None
    actor = _alive(record["actor"])
    if actor is None:
        return None
    if record["actor"].startswith(SPARE_PREFIX):
        # A spare may have gone on to another task since; a task's own actor runs only its task.
        try:
            if task_id not in ray.get(actor.running.remote(), timeout=10):
                return None
        except ray.exceptions.RayError:
            return None
    return record["actor"]


def holds_no_process(redis_url: str, task_id: str) -> bool:
    """The task's last actor has exited, or is a spare back on its node's idle list."""
    return running_actor_name(redis_url, task_id) is None
