"""The Redis lock against a real Redis: exclusion, owner-only release, renewal, waiting with a deadline."""

from __future__ import annotations

import asyncio
import uuid

import pytest
import redis.asyncio as aioredis

from core.infra.locks import LockTimeout, RedisLock

pytestmark = [pytest.mark.integration, pytest.mark.store]


def lock_key() -> str:
    return f"test-lock:{uuid.uuid4().hex}"


async def test_holders_never_overlap(store: aioredis.Redis) -> None:
    key = lock_key()
    inside = 0
    most = 0
    order: list[int] = []

    async def worker(n: int) -> None:
        nonlocal inside, most
        async with RedisLock(store, key, ttl_seconds=5, wait_seconds=10):
            inside += 1
            most = max(most, inside)
            await asyncio.sleep(0.01)
            order.append(n)
            inside -= 1

    await asyncio.gather(*(worker(n) for n in range(12)))
    assert most == 1 and sorted(order) == list(range(12))
    assert await store.get(key) is None


async def test_waiter_gives_up_at_its_deadline(store: aioredis.Redis) -> None:
    key = lock_key()
    async with RedisLock(store, key, ttl_seconds=5, wait_seconds=0):
        started = asyncio.get_running_loop().time()
        with pytest.raises(LockTimeout):
            await RedisLock(store, key, ttl_seconds=5, wait_seconds=0.2).acquire()
        assert 0.15 <= asyncio.get_running_loop().time() - started < 2


async def test_only_the_holder_releases(store: aioredis.Redis) -> None:
    key = lock_key()
    held = RedisLock(store, key, ttl_seconds=5, wait_seconds=0)
    await held.acquire()
    stranger = RedisLock(store, key, ttl_seconds=5, wait_seconds=0)
    await stranger.release()
    assert await store.get(key) is not None
    await held.release()
    assert await store.get(key) is None


async def test_a_held_lock_is_renewed_past_its_ttl(store: aioredis.Redis) -> None:
    key = lock_key()
    async with RedisLock(store, key, ttl_seconds=0.3, wait_seconds=0):
        await asyncio.sleep(0.8)
        with pytest.raises(LockTimeout):
            await RedisLock(store, key, ttl_seconds=0.3, wait_seconds=0).acquire()


async def test_a_dead_holders_lock_expires(store: aioredis.Redis) -> None:
    key = lock_key()
    # A holder that died without releasing: only the TTL frees the record.
    await store.set(key, "dead-holder", px=300)
    async with RedisLock(store, key, ttl_seconds=1, wait_seconds=3):
        assert await store.get(key) != "dead-holder"
