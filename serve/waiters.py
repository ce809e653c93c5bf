"""Held `async=false` requests wait here: one pub/sub subscription per replica wakes them all.

Pub/sub only wakes waiters; each waiter re-reads the task from Redis, so a lost message costs at
most a re-check at the end of the wait, never a wrong answer. The same subscription carries key
revocations to the replica's key cache, which it trusts only while the subscription is confirmed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Protocol

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from core.infra import keys, slots

log = logging.getLogger(__name__)

#: Published by a stopping service: every held request answers `draining` at once.
DRAIN_CHANNEL = "ag:drain"
#: While it holds requests, a replica asks this often whether it is leaving (serve.replica_exit).
LEAVE_POLL_SECONDS = 2.0


class Watch:
    """One held request: woken on any change of its task, and told when the server drains."""

    def __init__(self) -> None:
        self.changed = asyncio.Event()
        self.drained = False


class Revocations(Protocol):
    def trust(self) -> None: ...
    def distrust(self) -> None: ...
    def forget(self, key_id: str) -> None: ...


class Waiters:
    """The held requests of one replica.

    `leaving`, when given, says whether this replica is being taken away on its own (a rolling
    `serve deploy` or a downscale): then its held requests answer `draining` as on a full stop.
    """

    def __init__(
        self,
        redis: aioredis.Redis,
        *,
        max_held: int,
        leaving: Callable[[], Awaitable[bool]] | None = None,
        revocations: Revocations | None = None,
    ) -> None:
        self.redis = redis
        self.max_held = max_held
        self.revocations = revocations
        self._events: dict[str, set[Watch]] = defaultdict(set)
        self._listener: asyncio.Task[None] | None = None
        self._leaving = leaving
        self._leave_watch: asyncio.Task[None] | None = None
        #: Set once this replica leaves: every held request, and any that still arrives, drains.
        self.draining = False
        self.held = 0

    def ensure_listener(self) -> None:
        if self._listener is None or self._listener.done():
            self._listener = asyncio.create_task(self._listen())
        if self._leaving is not None and (self._leave_watch is None or self._leave_watch.done()):
            self._leave_watch = asyncio.create_task(self._watch_leave(self._leaving))

    async def _watch_leave(self, leaving: Callable[[], Awaitable[bool]]) -> None:
        while not self.draining:
            await asyncio.sleep(LEAVE_POLL_SECONDS)
            if not self.held:
                continue
            try:
                gone = await leaving()
            except Exception as exc:
                # The controller may be restarting; the next round asks again.
                log.debug("could not ask whether this replica is leaving: %s", type(exc).__name__)
                continue
            if gone:
                self.drain_here()

    def drain_here(self) -> None:
        """This replica is leaving: its held requests answer `draining` now."""
        self.draining = True
        self._wake_all(drain=True)

    async def _listen(self) -> None:
        while True:
            try:
                pubsub = await slots.pubsub(self.redis)
                await pubsub.subscribe(keys.TASK_EVENTS_CHANNEL, DRAIN_CHANNEL, keys.KEY_REVOCATIONS_CHANNEL)
                # Anything that changed while we were not subscribed is caught by re-checking.
                self._wake_all()
                async for message in pubsub.listen():
                    kind = message.get("type")
                    if kind == "subscribe" and message["channel"] == keys.KEY_REVOCATIONS_CHANNEL:
                        if self.revocations is not None:
                            self.revocations.trust()
                        continue
                    if kind != "message":
                        continue
                    if message["channel"] == keys.KEY_REVOCATIONS_CHANNEL:
                        if self.revocations is not None:
                            self.revocations.forget(str(message["data"]))
                        continue
                    if message["channel"] == DRAIN_CHANNEL:
                        # Requests held now answer `draining`; a stopping server gets no new ones.
                        self._wake_all(drain=True)
                        continue
                    member = str(message["data"]).split("|")
                    if len(member) >= 2:
                        for watch in list(self._events.get(member[1], ())):
                            watch.changed.set()
            except (RedisConnectionError, RedisTimeoutError, OSError):
                log.warning("task event subscription lost; reconnecting")
                await asyncio.sleep(0.5)
            finally:
                if self.revocations is not None:
                    self.revocations.distrust()
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    def _wake_all(self, *, drain: bool = False) -> None:
        for watches in self._events.values():
            for watch in watches:
                watch.drained = watch.drained or drain
                watch.changed.set()

    async def close(self) -> None:
        """Stop listening (a replica's listener lives as long as its process; tests stop theirs)."""
        for task in (self._listener, self._leave_watch):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._listener = self._leave_watch = None

    @property
    def full(self) -> bool:
        return self.held >= self.max_held

    @contextlib.asynccontextmanager
    async def watch(self, task_id: str) -> AsyncIterator[Watch]:
        """Register before reading the task, so no change between the read and the wait is missed."""
        self.ensure_listener()
        watch = Watch()
        watch.drained = self.draining
        self._events[task_id].add(watch)
        self.held += 1
        try:
            yield watch
        finally:
            self.held -= 1
            self._events[task_id].discard(watch)
            if not self._events[task_id]:
                self._events.pop(task_id, None)


async def request_drain(redis: aioredis.Redis) -> None:
    await redis.publish(DRAIN_CHANNEL, "drain")
