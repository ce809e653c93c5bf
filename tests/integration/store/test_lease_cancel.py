"""A task lease's keeper and a lock's renewer stop when cancelled, against a real Redis.

redis-py's asyncio client can swallow a cancel that lands while a command is in flight; a keeper
that ran on renewed its lease forever, and the runner that awaited it never returned (issue 20).
"""

from __future__ import annotations

import asyncio
import random
import uuid

import pytest
import redis.asyncio as aioredis

from actors.lease import Lease
from core.infra.locks import RedisLock

pytestmark = [pytest.mark.integration, pytest.mark.store]

#: Cancels per test; each lands at a random moment, many of them inside a renewal in flight.
ROUNDS = 150


async def _cancelled_in_time(task: asyncio.Future[None]) -> bool:
    await asyncio.sleep(random.uniform(0, 0.02))
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=5)
    return task in done


async def test_a_cancelled_lease_keeper_always_stops(store: aioredis.Redis) -> None:
    random.seed(20)
    stuck = 0
    for _ in range(ROUNDS):
        # Renewed every 10 ms: most cancels land between or inside renewals.
        lease = Lease(store, f"test-lease:{uuid.uuid4().hex}", "holder", ttl_seconds=0.03)
        assert await lease.acquire()
        stuck += not await _cancelled_in_time(asyncio.ensure_future(lease.keep()))
    assert stuck == 0, f"{stuck} of {ROUNDS} cancelled keepers ran on"


async def test_a_lock_released_while_renewing_always_lets_go(store: aioredis.Redis) -> None:
    random.seed(21)
    for _ in range(ROUNDS // 3):
        key = f"test-lock:{uuid.uuid4().hex}"
        lock = RedisLock(store, key, ttl_seconds=0.03, wait_seconds=1)
        await lock.acquire()
        await asyncio.sleep(random.uniform(0, 0.02))
        await asyncio.wait_for(lock.release(), timeout=5)
        assert await store.get(key) is None
