"""Whether the store keeps what it acknowledged through a restart: its AOF and RDB settings.

Every durable fact lives in Redis (docs/architecture.md), so a Redis with neither the append-only file
nor RDB snapshots loses every task, key and file record when it restarts. Start-up says so loudly
and `/readyz` reports it; the embedded store always runs with AOF on.
"""

from __future__ import annotations

import logging

import redis.asyncio as aioredis
from pydantic import BaseModel
from redis.exceptions import ResponseError


class Persistence(BaseModel):
    """The store's persistence; None where the store does not tell (a managed Redis may refuse CONFIG)."""

    aof: bool | None
    rdb: bool | None
    appendfsync: str | None = None

    @property
    def durable(self) -> bool | None:
        """True when AOF or RDB is on, False when both are off, None when it cannot be told."""
        if self.aof or self.rdb:
            return True
        if self.aof is False and self.rdb is False:
            return False
        return None


async def _config(redis: aioredis.Redis, name: str) -> str | None:
    try:
        reply = await redis.config_get(name)
    except ResponseError:
        # CONFIG is often renamed or refused on managed services.
        return None
    value = reply.get(name)
    return None if value is None else str(value)


async def store_persistence(redis: aioredis.Redis) -> Persistence:
    info = await redis.info("persistence")
    aof: bool | None = bool(int(info["aof_enabled"])) if "aof_enabled" in info else None
    appendonly = await _config(redis, "appendonly")
    if appendonly is not None:
        aof = appendonly == "yes"
    save = await _config(redis, "save")
    return Persistence(
        aof=aof,
        # `save ""` switches RDB snapshots off; any "<seconds> <changes>" rule keeps them.
        rdb=None if save is None else bool(save.strip()),
        appendfsync=await _config(redis, "appendfsync"),
    )


async def warn_unless_durable(redis: aioredis.Redis, log: logging.Logger) -> Persistence:
    """Log an error when the store has neither AOF nor RDB (it loses everything on a restart)."""
    persistence = await store_persistence(redis)
    if persistence.durable is False:
        log.error(
            'THE STATE STORE IS NOT DURABLE: Redis runs with `appendonly no` and `save ""`, so a '
            "restart of it loses every task, API key and file record. Turn AOF on "
            "(`appendonly yes`, `appendfsync everysec` or `always`)."
        )
    elif persistence.aof is False:
        log.warning(
            "the state store runs without AOF: a restart loses the writes since its last RDB snapshot"
        )
    return persistence
