"""A mutual-exclusion lock in Redis, shared by every process of the service.

`SET key token NX PX ttl` takes the lock; only the holder's token releases it (a Lua compare-and-delete),
so a holder that outlived its TTL cannot free a lock someone else has taken since. While held, the lock
is renewed in the background, so the TTL can stay short: a holder that dies frees it within one TTL.
Waiters poll with a growing pause until their deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from types import TracebackType

import redis.asyncio as aioredis

from core.infra.backoff import backoff_seconds
from core.infra.cancellation import raise_if_cancelled

log = logging.getLogger(__name__)

#: Extend a key's expiry only while it still holds our token (shared with task leases).
RENEW_IF_HELD = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
#: Delete a key only while it still holds our token.
RELEASE_IF_HELD = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

#: First pause between two attempts to take a busy lock; it doubles up to `_MAX_POLL_SECONDS`.
_FIRST_POLL_SECONDS = 0.005
_MAX_POLL_SECONDS = 0.1


class LockTimeout(Exception):
    """The lock stayed busy until the waiter's deadline."""


class RedisLock:
    """`async with RedisLock(redis, key, ttl_seconds=..., wait_seconds=...):` runs the block alone.

    Raises LockTimeout when the lock cannot be taken within `wait_seconds`. The key should not carry
    sensitive values (it shows up in Redis tooling); hash them first.
    """

    def __init__(self, redis: aioredis.Redis, key: str, *, ttl_seconds: float, wait_seconds: float) -> None:
        if ttl_seconds <= 0 or wait_seconds < 0:
            raise ValueError("ttl_seconds must be positive and wait_seconds not negative")
        self._redis = redis
        self.key = key
        self._ttl_ms = max(1, int(ttl_seconds * 1000))
        self._wait_seconds = wait_seconds
        self._token = secrets.token_hex(16)
        self._renewer: asyncio.Task[None] | None = None

    async def acquire(self) -> None:
        deadline = time.monotonic() + self._wait_seconds
        attempt = 0
        while not await self._redis.set(self.key, self._token, nx=True, px=self._ttl_ms):
            left = deadline - time.monotonic()
            if left <= 0:
                raise LockTimeout(f"the lock was still busy after {self._wait_seconds:g} s")
            # Jitter keeps a crowd of waiters from retrying in lockstep.
            attempt += 1
            await asyncio.sleep(
                min(left, backoff_seconds(attempt, base=_FIRST_POLL_SECONDS, cap=_MAX_POLL_SECONDS))
            )
        self._renewer = asyncio.create_task(self._renew())

    async def release(self) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
            self._renewer = None
        await self._redis.eval(RELEASE_IF_HELD, 1, self.key, self._token)

    async def _renew(self) -> None:
        interval = self._ttl_ms / 1000 / 3
        while True:
            raise_if_cancelled()
            await asyncio.sleep(interval)
            try:
                renewed = await self._redis.eval(RENEW_IF_HELD, 1, self.key, self._token, self._ttl_ms)
            except Exception as exc:
                log.warning("could not renew lock %s: %s", self.key, type(exc).__name__)
                continue
            if not renewed:
                log.warning("lock %s expired while held; another holder may run concurrently", self.key)
                return

    async def __aenter__(self) -> RedisLock:
        await self.acquire()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.release()
