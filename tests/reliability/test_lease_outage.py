"""A runner's lease through a store outage (a real Redis, killed with `kill -9`; no Ray needed).

The lease must outlive an outage shorter than its TTL (otherwise the reconciler would start a
second runner beside the first), be taken again after a longer one when nobody else took it, and
stop the work when another runner did take it.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from actors.lease import Lease, hold_while
from core.infra.embedded_redis import EmbeddedRedis
from core.infra.store import async_client
from tests.support.service import wait_for

pytestmark = pytest.mark.reliability

KEY = "ag:test:lease"


@pytest.fixture
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    embedded = EmbeddedRedis(Path(tmp_path_factory.mktemp("lease")) / "redis")
    embedded.ensure_running()
    try:
        yield embedded
    finally:
        embedded.shutdown()


async def _outage(server: EmbeddedRedis, *, until: float) -> None:
    """`kill -9` the server, keep it down until `time.monotonic()` passes `until`, start it again
    from its append-only file."""
    pid = int((server.directory / "redis.pid").read_text())
    os.kill(pid, signal.SIGKILL)
    await asyncio.to_thread(wait_for, lambda: not server.is_running(), timeout=30, what="redis to die")
    await asyncio.sleep(max(0.0, until - time.monotonic()))
    await asyncio.to_thread(server.ensure_running)


async def _eventually(check: Callable[[], Awaitable[bool]], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not await check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


async def _holder(redis: aioredis.Redis) -> str | None:
    value: str | None = await redis.get(KEY)
    return value


async def _is_holder(redis: aioredis.Redis, holder: str) -> bool:
    return await _holder(redis) == holder


async def test_a_lease_outlives_an_outage_shorter_than_its_ttl(server: EmbeddedRedis) -> None:
    redis = async_client(server.url)
    # Renewed every 4 s; long enough that a restart on a loaded machine still fits in it.
    lease = Lease(redis, KEY, "runner-1", ttl_seconds=12.0)
    assert await lease.acquire()
    expires = time.monotonic() + 12.0

    async def work() -> None:
        # Down across the first renewal, back before the TTL runs out.
        await _outage(server, until=time.monotonic() + 5.0)
        assert time.monotonic() < expires - 1.0, "the restart took too long for this test"
        # Past the TTL counted from the last write before the outage: only renewals keep it.
        while time.monotonic() < expires + 2.0:
            assert not await Lease(redis, KEY, "runner-2", ttl_seconds=12.0).acquire()
            assert await _holder(redis) == "runner-1"
            await asyncio.sleep(0.5)

    assert await hold_while(lease, work())
    await redis.aclose()


async def test_a_lease_that_lapsed_in_a_long_outage_is_taken_again(server: EmbeddedRedis) -> None:
    redis = async_client(server.url)
    lease = Lease(redis, KEY, "runner-1", ttl_seconds=1.5)
    assert await lease.acquire()

    async def work() -> None:
        await _outage(server, until=time.monotonic() + 2.5)
        # Nobody else took it: the lease is ours again at the next renewal.
        assert await _eventually(lambda: _is_holder(redis, "runner-1"), 5.0)

    assert await hold_while(lease, work())
    await redis.aclose()


async def test_work_stops_when_another_runner_holds_the_lease(server: EmbeddedRedis) -> None:
    redis = async_client(server.url)
    lease = Lease(redis, KEY, "runner-1", ttl_seconds=1.5)
    assert await lease.acquire()
    reached_the_end = False

    async def work() -> None:
        nonlocal reached_the_end
        # As if the lease had lapsed and the reconciler's new runner had taken it.
        await redis.set(KEY, "runner-2", px=60_000)
        await asyncio.sleep(5)
        reached_the_end = True

    assert not await hold_while(lease, work())
    assert not reached_the_end and await _holder(redis) == "runner-2"
    await redis.aclose()
