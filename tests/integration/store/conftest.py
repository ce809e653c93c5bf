"""The store tests run on the embedded server, and again on an external Redis with --redis-url."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis
import redis.asyncio as aioredis

from core.embedded_redis import EmbeddedRedis
from core.store import async_client


@pytest.fixture(scope="session")
def store_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    external = request.config.getoption("--redis-url")
    if external:
        try:
            redis.Redis.from_url(external, socket_connect_timeout=2).ping()
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            pytest.skip(f"no Redis answers at {external}")
        redis.Redis.from_url(external).flushdb()
        yield external
        return
    server = EmbeddedRedis(Path(tmp_path_factory.mktemp("store")) / "redis")
    url = server.ensure_running()
    try:
        yield url
    finally:
        server.stop()


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[aioredis.Redis]:
    client = async_client(store_url)
    try:
        yield client
    finally:
        await client.aclose()
