"""`GET /api/v1/tasks/{task_id}/events`: a task's stream of events as Server-Sent Events.

The stream's backlog is read with XRANGE; then the response waits on the replica's one pub/sub
subscription (`serve.waiters`), which every write to the task (and to its children, which wake
their parent) publishes to, and reads again. Waiting holds no Redis connection, so open streams
cost a replica no connections; a lost wake-up costs at most one ping interval, because each ping
reads again. The response ends at a terminal state (after `end`), when the server drains, or after
`stream_seconds`, always before the proxy's request timeout would cut it: the client then resumes
with `Last-Event-ID` and misses nothing. A client that disconnects cancels the generator, which
leaves its watch on the way out.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import redis.asyncio as aioredis

from core.infra import keys
from core.infra.settings import Settings
from core.tasks import Task
from core.tasks import events as task_events
from core.tasks.state_machine import TERMINAL_STATUSES
from serve.waiters import Waiters

#: Seconds of silence before a keep-alive comment.
PING_SECONDS = 15.0
#: Entries read per round trip.
BATCH = 500
#: Shortest life of one response, whatever the sync budget is set to.
MIN_STREAM_SECONDS = 30.0

_TERMINAL = frozenset(s.value for s in TERMINAL_STATUSES)


def stream_seconds(settings: Settings) -> float:
    """How long one response lasts at most: the proxy cuts requests at the sync budget plus 60 s
    (`serve.deployment.deploy`, `serve/config.yaml`), so ending at the budget leaves a margin."""
    return max(MIN_STREAM_SECONDS, float(settings.sync_budget_seconds))


async def _last_entry_id(redis: aioredis.Redis, feed: str) -> str:
    last = await redis.xrevrange(feed, "+", "-", count=1)
    return str(last[0][0]) if last else "0-0"


async def task_event_stream(
    redis: aioredis.Redis,
    waiters: Waiters,
    task: Task,
    *,
    last_event_id: str | None,
    max_seconds: float,
    ping_seconds: float = PING_SECONDS,
) -> AsyncIterator[str]:
    """SSE text for the task's entries after `last_event_id` (all of them when None), then more as they come."""
    feed = keys.task_feed(task.workspace_id, task.id)
    task_key = keys.task(task.workspace_id, task.id)
    start = task_events.after(last_event_id)
    deadline = time.monotonic() + max_seconds
    async with waiters.watch(task.id) as watch:
        while True:
            watch.changed.clear()
            # The status first: a terminal status is written with its last entries in one step, so
            # the read that follows sees every entry that precedes `end`.
            status = await redis.hget(task_key, "status")
            entries = await redis.xrange(feed, min=start, count=BATCH)
            for entry_id, fields in entries:
                start = task_events.after(entry_id)
                event = task_events.entry_event(task.id, entry_id, fields)
                if event is not None:
                    yield event.encode()
            if len(entries) == BATCH:
                continue
            if status in _TERMINAL:
                yield task_events.end_event(task.id, str(status), await _last_entry_id(redis, feed)).encode()
                return
            remaining = deadline - time.monotonic()
            if watch.drained or remaining <= 0:
                return
            try:
                await asyncio.wait_for(watch.changed.wait(), timeout=min(ping_seconds, remaining))
            except TimeoutError:
                yield task_events.PING
