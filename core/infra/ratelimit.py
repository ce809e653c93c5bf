"""Per-key rate limiting with GCRA, one atomic Lua call per request.

GCRA keeps one timestamp per key (the theoretical arrival time), so the limiter costs one small
string per key and one round trip per request, and bursts up to the full quota are allowed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import redis.asyncio as aioredis

# Redis TIME keeps every replica on one clock; scripts replicate by effect, so reading it is safe.
_GCRA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local new_tat = tat + interval
local allow_at = new_tat - tolerance
if allow_at > now then
  return {0, allow_at - now}
end
redis.call('SET', KEYS[1], new_tat, 'PX', math.ceil(new_tat - now) + 1000)
return {1, 0}
"""


@dataclass(frozen=True)
class Decision:
    allowed: bool
    retry_after_seconds: int


class RateLimiter:
    def __init__(self, redis: aioredis.Redis) -> None:
        self._script = redis.register_script(_GCRA)

    async def hit(self, key: str, *, requests: int, period_seconds: int) -> Decision:
        interval_ms = period_seconds * 1000 / requests
        tolerance_ms = period_seconds * 1000
        allowed, wait_ms = await self._script(keys=[key], args=[interval_ms, tolerance_ms])
        if allowed:
            return Decision(True, 0)
        # docs/spec.md: Retry-After is whole seconds and never 0.
        return Decision(False, max(1, math.ceil(float(wait_ms) / 1000)))
