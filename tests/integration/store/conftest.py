"""The store tests run on the embedded server and on a local three-node Redis Cluster (both started
here), or on an external Redis only with --redis-url."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis
import redis.asyncio as aioredis

from core.infra.embedded_redis import EmbeddedRedis
from core.infra.store import async_client
from tests.support.redis_cluster import LocalCluster


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    # Every test that reaches the store runs once per kind of store; an external Redis replaces both.
    if "store_kind" in metafunc.fixturenames:
        kinds = ["external"] if metafunc.config.getoption("--redis-url") else ["embedded", "cluster"]
        metafunc.parametrize("store_kind", kinds, scope="session")


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    cluster = LocalCluster(Path(tmp_path_factory.mktemp("cluster")))
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def store_url(
    request: pytest.FixtureRequest, store_kind: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    if store_kind == "external":
        external = request.config.getoption("--redis-url")
        try:
            redis.Redis.from_url(external, socket_connect_timeout=2).ping()
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            pytest.skip(f"no Redis answers at {external}")
        redis.Redis.from_url(external).flushdb()
        yield external
        return
    if store_kind == "cluster":
        yield request.getfixturevalue("redis_cluster").url
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
