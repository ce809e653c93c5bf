"""The gauges operators alert on, kept in the store: live tasks by status, queue depth per agent,
task actors.

The scheduler's reconcile pass computes them from Redis (and Ray's actor list) and writes one
snapshot here; `GET /metrics` renders it in Prometheus text from any node. A gauge that Ray exports
goes with the node its recorder ran on, so a lost node would hide it until the scheduler came back
elsewhere; the snapshot outlives any node, and its age tells whether the scheduler still writes it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping

import redis.asyncio as aioredis
from pydantic import BaseModel

from core.infra import keys

#: Content type of the Prometheus text exposition format.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class GaugeSnapshot(BaseModel):
    at: float
    tasks_live: dict[str, int]
    queue_depth: dict[str, int]
    task_actors: int


async def save(
    redis: aioredis.Redis,
    *,
    tasks_live: Mapping[str, int],
    queue_depth: Mapping[str, int],
    task_actors: int,
) -> None:
    snapshot = GaugeSnapshot(
        at=time.time(), tasks_live=dict(tasks_live), queue_depth=dict(queue_depth), task_actors=task_actors
    )
    await redis.set(keys.gauges(), snapshot.model_dump_json())


async def load(redis: aioredis.Redis) -> GaugeSnapshot | None:
    raw = await redis.get(keys.gauges())
    return GaugeSnapshot.model_validate(json.loads(raw)) if raw else None


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def render(snapshot: GaugeSnapshot | None, now: float) -> str:
    """Prometheus text of the snapshot; without one (no scheduler pass yet) only its absence."""
    lines = [
        "# HELP agentry_gauges_age_seconds Seconds since the scheduler last wrote these gauges.",
        "# TYPE agentry_gauges_age_seconds gauge",
    ]
    if snapshot is None:
        return "\n".join(lines) + "\n"
    lines.append(f"agentry_gauges_age_seconds {max(0.0, now - snapshot.at):.3f}")
    lines += [
        "# HELP agentry_tasks_live Tasks not yet paused or ended, by status.",
        "# TYPE agentry_tasks_live gauge",
        *(f'agentry_tasks_live{{status="{_label(s)}"}} {n}' for s, n in sorted(snapshot.tasks_live.items())),
        "# HELP agentry_agent_queue_depth Tasks queued behind an agent's concurrency limit.",
        "# TYPE agentry_agent_queue_depth gauge",
        *(
            f'agentry_agent_queue_depth{{agent_id="{_label(a)}"}} {n}'
            for a, n in sorted(snapshot.queue_depth.items())
        ),
        "# HELP agentry_task_actors Task actors in the cluster (each task's own and the warm spares), alive or waiting for a task slot.",
        "# TYPE agentry_task_actors gauge",
        f"agentry_task_actors {snapshot.task_actors}",
    ]
    return "\n".join(lines) + "\n"
