"""A replica that is leaving on its own drains its held requests (serve.waiters, serve.replica_exit)."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from serve.waiters import Waiters

pytestmark = pytest.mark.integration


async def test_held_requests_drain_once_the_replica_is_leaving(store: aioredis.Redis) -> None:
    leaving = asyncio.Event()
    asked = 0

    async def probe() -> bool:
        nonlocal asked
        asked += 1
        return leaving.is_set()

    waiters = Waiters(store, max_held=10, leaving=probe)
    try:
        async with waiters.watch("t1") as watch:
            await asyncio.sleep(2.5)
            assert not watch.drained and asked >= 1
            leaving.set()
            await asyncio.wait_for(watch.changed.wait(), timeout=10)
            deadline = asyncio.get_running_loop().time() + 10
            while not watch.drained:
                assert asyncio.get_running_loop().time() < deadline
                watch.changed.clear()
                await asyncio.wait_for(watch.changed.wait(), timeout=10)
        assert waiters.draining
        # A request that still reaches a leaving replica is answered `draining` at once.
        async with waiters.watch("t2") as late:
            assert late.drained
    finally:
        await waiters.close()


async def test_an_idle_replica_does_not_ask(store: aioredis.Redis) -> None:
    asked = 0

    async def probe() -> bool:
        nonlocal asked
        asked += 1
        return True

    waiters = Waiters(store, max_held=10, leaving=probe)
    try:
        async with waiters.watch("t1"):
            pass
        await asyncio.sleep(2.5)
        assert asked == 0 and not waiters.draining
    finally:
        await waiters.close()
