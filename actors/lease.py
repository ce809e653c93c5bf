"""A task's lease: at most one runner works on a task; a runner that dies lets its lease expire."""

from __future__ import annotations

import redis.asyncio as aioredis

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class Lease:
    def __init__(self, redis: aioredis.Redis, key: str, holder: str, ttl_seconds: float) -> None:
        self.redis = redis
        self.key = key
        self.holder = holder
        self.ttl_ms = int(ttl_seconds * 1000)

    async def acquire(self) -> bool:
        return bool(await self.redis.set(self.key, self.holder, nx=True, px=self.ttl_ms))

    async def renew(self) -> bool:
        return bool(await self.redis.eval(_RENEW, 1, self.key, self.holder, self.ttl_ms))

    async def release(self) -> None:
        await self.redis.eval(_RELEASE, 1, self.key, self.holder)
