"""Connections to the state store: the embedded Redis by default, or `REDIS_URL`.

Every client of the service (edge replicas, task actors, the scheduler, the webhook dispatcher, the
extraction job service, the CLI) is made here. A `REDIS_URL` with the scheme `redis+cluster://`
(or `rediss+cluster://`, TLS) names a Redis Cluster by any one of its nodes: the clients are then
redis-py's cluster clients, which find the other nodes and route each key to its slot's node. The
key layout keeps everything a step touches in one slot (core.infra.keys), so the code is the same on one
server and on a cluster.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, cast

import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from core.infra.backoff import backoff_seconds
from core.infra.embedded_redis import EmbeddedRedis
from core.infra.settings import Settings

#: What a call raises when the store is unreachable (down, restarting, loading its data, too slow):
#: the HTTP edge answers 503, background loops wait and try again.
#: On a cluster, CLUSTERDOWN (a slot's node lost and not yet failed over) is an outage too.
STORE_ERRORS: tuple[type[Exception], ...] = (
    redis.ConnectionError,
    redis.TimeoutError,
    redis.exceptions.ClusterDownError,
)

#: `REDIS_URL` schemes that name a Redis Cluster, and the plain scheme redis-py's cluster client reads.
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}

#: Seconds before a Redis call gives up, so a request fails fast (503) instead of hanging.
SOCKET_TIMEOUT_SECONDS = 5.0
CONNECT_TIMEOUT_SECONDS = 2.0
#: Connections one process keeps open to the store. An edge replica serves up to
#: AGENTRY_INGRESS_MAX_ONGOING requests at once, each holding a connection while a call is in
#: flight; past this many, a call waits for a free connection (up to SOCKET_TIMEOUT_SECONDS)
#: instead of failing. redis-py's default pool (100 connections, never waits) answered 200
#: concurrent clients with MaxConnectionsError, that is with 503s (bench/load.py).
MAX_CONNECTIONS = 256


def embedded_for(settings: Settings) -> EmbeddedRedis:
    return EmbeddedRedis(settings.redis_dir, appendfsync=settings.redis_appendfsync)


def resolve_redis_url(settings: Settings, *, start: bool = True) -> tuple[str, EmbeddedRedis | None]:
    """The URL to reach the store; with no `REDIS_URL` the embedded server is started if needed.

    Returns the embedded server handle when this call is the one that started it, so the caller
    can stop it on exit.
    """
    if settings.redis_url:
        return settings.redis_url, None
    server = embedded_for(settings)
    url = server.ensure_running() if start else server.url
    return url, server if server.started_here else None


class _Cluster(RedisCluster):  # type: ignore[misc]  # redis-py's cluster client is untyped here
    """redis-py's cluster client, set up by the first call before any other runs: left to itself (8.1),
    a fresh client given hundreds of concurrent first calls sends some on connections its set-up
    closes (AttributeError from the connection), as `test_more_concurrent_calls_than_connections`
    showed on a cluster."""

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        if self._initialize:
            await self.initialize()
        return await super().execute_command(*args, **kwargs)


def cluster_url(url: str) -> str | None:
    """The plain `redis://` URL of a cluster's node when `url` names a cluster, else None."""
    scheme, sep, rest = url.partition("://")
    plain = CLUSTER_SCHEMES.get(scheme.lower()) if sep else None
    return f"{plain}://{rest}" if plain else None


def async_client(url: str) -> aioredis.Redis:
    node = cluster_url(url)
    if node is not None:
        # The cluster client answers every command the service sends (one slot per call, see
        # core.infra.keys), so callers keep one type. Its pool is per node and cannot wait for a free
        # connection: past MAX_CONNECTIONS to one node a call fails (503) instead.
        cluster = _Cluster.from_url(
            node,
            max_connections=MAX_CONNECTIONS,
            decode_responses=True,
            socket_timeout=SOCKET_TIMEOUT_SECONDS,
            socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
            health_check_interval=30,
        )
        return cast(aioredis.Redis, cluster)
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=MAX_CONNECTIONS,
        timeout=SOCKET_TIMEOUT_SECONDS,
        decode_responses=True,
        socket_timeout=SOCKET_TIMEOUT_SECONDS,
        socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
        health_check_interval=30,
    )
    # from_pool: closing the client closes its pool, as with from_url.
    return aioredis.Redis.from_pool(pool)


def sync_client(url: str) -> redis.Redis:
    node = cluster_url(url)
    if node is not None:
        cluster = redis.RedisCluster.from_url(
            node,
            decode_responses=True,
            socket_timeout=SOCKET_TIMEOUT_SECONDS,
            socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
        )
        return cast(redis.Redis, cluster)
    return redis.Redis.from_url(
        url,
        decode_responses=True,
        socket_timeout=SOCKET_TIMEOUT_SECONDS,
        socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
    )


class StoreOutage:
    """How a background loop (the scheduler, the webhook dispatcher) waits out failed passes: one
    log line per outage of the store rather than a traceback a second, and a pause that grows
    while it lasts. Any other failure is logged with its traceback."""

    FIRST_PAUSE_SECONDS = 0.5
    MAX_PAUSE_SECONDS = 2.0

    def __init__(self, who: str, log: logging.Logger) -> None:
        self.who = who
        self.log = log
        self.failures = 0

    async def pause(self, exc: Exception) -> None:
        if not isinstance(exc, STORE_ERRORS):
            self.log.exception("%s: a pass failed; trying again", self.who)
        elif self.failures == 0:
            self.log.warning(
                "%s: the state store is unreachable (%s); waiting for it", self.who, type(exc).__name__
            )
        self.failures += 1
        await asyncio.sleep(
            backoff_seconds(self.failures, base=self.FIRST_PAUSE_SECONDS, cap=self.MAX_PAUSE_SECONDS)
        )

    def over(self) -> None:
        if self.failures:
            self.log.warning("%s runs again after %d failed passes", self.who, self.failures)
        self.failures = 0
