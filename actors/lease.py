"""A task's lease: at most one runner works on a task; a runner that dies lets its lease expire.

While it works, a runner renews its lease (`hold_while`). The store may be unreachable for a
while: renewals are retried, and a lease that expired meanwhile is taken again unless another
runner took it first, in which case this runner's work is cancelled, so two runners never go on
side by side.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any

import redis.asyncio as aioredis

from core.infra.backoff import backoff_seconds
from core.infra.cancellation import raise_if_cancelled
from core.infra.locks import RELEASE_IF_HELD, RENEW_IF_HELD

log = logging.getLogger(__name__)

#: Pause between renewals while the store is unreachable.
RETRY_SECONDS = 0.5


class Lease:
    def __init__(self, redis: aioredis.Redis, key: str, holder: str, ttl_seconds: float) -> None:
        self.redis = redis
        self.key = key
        self.holder = holder
        self.ttl_ms = int(ttl_seconds * 1000)

    async def acquire(self) -> bool:
        return bool(await self.redis.set(self.key, self.holder, nx=True, px=self.ttl_ms))

    def queue_acquire(self, pipe: Any) -> None:
        """`acquire` as one command of a pipeline (its reply: truthy when taken)."""
        pipe.set(self.key, self.holder, nx=True, px=self.ttl_ms)

    async def renew(self) -> bool:
        return bool(await self.redis.eval(RENEW_IF_HELD, 1, self.key, self.holder, self.ttl_ms))

    async def release(self) -> None:
        await self.redis.eval(RELEASE_IF_HELD, 1, self.key, self.holder)

    async def keep(self) -> None:
        """Renew every third of the TTL; returns only when another holder has the lease."""
        interval = self.ttl_ms / 1000 / 3
        failures = 0
        while True:
            raise_if_cancelled()
            # After a failed renewal, try again soon (jittered, growing): the store may be back before
            # the lease lapses.
            await asyncio.sleep(
                backoff_seconds(failures, base=RETRY_SECONDS / 4, cap=min(interval, RETRY_SECONDS))
                if failures
                else interval
            )
            try:
                if await self.renew() or await self.acquire():
                    if failures:
                        log.info("lease %s renewed again", self.key)
                        failures = 0
                    continue
            except Exception as exc:
                # The store is down or restarting (STORE_ERRORS): the lease is only lost to another holder.
                if not failures:
                    log.warning("cannot renew lease %s (%s); trying again", self.key, type(exc).__name__)
                failures += 1
                continue
            return


async def hold_while(lease: Lease, work: Coroutine[Any, Any, None]) -> bool:
    """Run `work` while keeping `lease`. True when it ran to its end; False when another holder
    took the lease and `work` was cancelled. Exceptions of `work` propagate."""
    working = asyncio.ensure_future(work)
    keeping = asyncio.ensure_future(lease.keep())
    try:
        await asyncio.wait({working, keeping}, return_when=asyncio.FIRST_COMPLETED)
        if not working.done():
            working.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await working
            return False
        working.result()
        return True
    finally:
        for future in (working, keeping):
            future.cancel()
        for future in (working, keeping):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await future
