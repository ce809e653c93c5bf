"""A task's lease: at most one runner works on a task; a runner that dies lets its lease expire."""

from __future__ import annotations

import redis.asyncio as aioredis

from core.locks import RELEASE_IF_HELD, RENEW_IF_HELD


class Lease:
    def __init__(self, redis: aioredis.Redis, key: str, holder: str, ttl_seconds: float) -> None:
        self.redis = redis
        self.key = key
        self.holder = holder
        self.ttl_ms = int(ttl_seconds * 1000)

    async def acquire(self) -> bool:
        return bool(await self.redis.set(self.key, self.holder, nx=True, px=self.ttl_ms))

    async def renew(self) -> bool:
        return bool(await self.redis.eval(RENEW_IF_HELD, 1, self.key, self.holder, self.ttl_ms))

    async def release(self) -> None:
        await self.redis.eval(RELEASE_IF_HELD, 1, self.key, self.holder)
