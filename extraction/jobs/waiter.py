"""Wait for jobs to finish without a thread or a Redis connection per waiter.

One listener per Redis client (that is, per process and event loop) subscribes to the channel on
which finished job ids are published and wakes the waiters of those ids. A waiter re-reads the job
record when woken and at least every `RECHECK_SECONDS`, so a message lost while the listener
reconnects delays an answer by seconds at most; it never loses one. The listener runs only while
someone waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from core.infra import slots
from extraction.jobs.schemas import JobRecord
from extraction.jobs.store import DONE_CHANNEL, load_job

log = logging.getLogger(__name__)

#: Longest a waiter goes without re-reading the job record.
RECHECK_SECONDS = 2.0
#: Pause before the listener resubscribes after losing its connection.
RECONNECT_SECONDS = 1.0


class JobWaiter:
    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = redis
        self._events: dict[str, set[asyncio.Event]] = {}
        self._listener: asyncio.Task[None] | None = None

    async def wait(self, workspace_id: str, job_id: str, seconds: float | None) -> JobRecord | None:
        """The job's record once it is no longer processing, or as it is after `seconds` (None: no
        limit); None when the job does not exist.
        """
        deadline = None if seconds is None else time.monotonic() + seconds
        event = asyncio.Event()
        self._events.setdefault(job_id, set()).add(event)
        self._ensure_listener()
        try:
            while True:
                event.clear()
                record = await load_job(self._redis, workspace_id, job_id)
                if record is None or record.status != "processing":
                    return record
                pause = RECHECK_SECONDS
                if deadline is not None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return record
                    pause = min(pause, left)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), pause)
        finally:
            waiting = self._events.get(job_id)
            if waiting is not None:
                waiting.discard(event)
                if not waiting:
                    del self._events[job_id]
            if not self._events and self._listener is not None:
                self._listener.cancel()
                self._listener = None

    def _ensure_listener(self) -> None:
        if self._listener is None or self._listener.done():
            self._listener = asyncio.get_running_loop().create_task(self._listen())

    async def _listen(self) -> None:
        while True:
            try:
                async with await slots.pubsub(self._redis) as pubsub:
                    await pubsub.subscribe(DONE_CHANNEL)
                    # Anything that finished while we were (re)subscribing is found by a re-read.
                    self._wake_all()
                    while True:
                        message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                        if message and message.get("type") == "message":
                            self._wake(str(message["data"]))
            except (RedisError, OSError) as exc:
                log.warning("job listener lost its connection (%s); resubscribing", type(exc).__name__)
                self._wake_all()
                await asyncio.sleep(RECONNECT_SECONDS)

    def _wake(self, job_id: str) -> None:
        for event in self._events.get(job_id, ()):
            event.set()

    def _wake_all(self) -> None:
        for events in self._events.values():
            for event in events:
                event.set()


_waiters: weakref.WeakKeyDictionary[aioredis.Redis, JobWaiter] = weakref.WeakKeyDictionary()


def waiter_for(redis: aioredis.Redis) -> JobWaiter:
    """The waiter that shares `redis`'s connection pool (one per client, so one per event loop)."""
    waiter = _waiters.get(redis)
    if waiter is None:
        waiter = _waiters[redis] = JobWaiter(redis)
    return waiter
