"""The edge's cache of verified API keys: served from memory, dropped on revocation, never trusted
without the revocation subscription."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest
import redis.asyncio as aioredis

from core.infra import keys
from core.infra.errors import Unauthorized
from core.stores import apikeys
from serve.key_cache import KeyCache
from serve.waiters import Waiters

pytestmark = pytest.mark.store

POLL_SECONDS = 0.01


@pytest.fixture
async def edge(store: aioredis.Redis) -> AsyncIterator[tuple[KeyCache, Waiters]]:
    cache = KeyCache(store, subscribe=lambda: waiters.ensure_listener())
    waiters = Waiters(store, max_held=10, revocations=cache)
    try:
        yield cache, waiters
    finally:
        await waiters.close()


async def _until(check: Callable[[], bool], what: str, seconds: float = 10.0) -> None:
    for _ in range(int(seconds / POLL_SECONDS)):
        if check():
            return
        await asyncio.sleep(POLL_SECONDS)
    pytest.fail(f"{what} did not happen within {seconds} s")


async def _issue(store: aioredis.Redis) -> apikeys.IssuedKey:
    workspace = await apikeys.get_or_create_workspace(store, "key-cache")
    return await apikeys.create_key(store, workspace.id)


async def test_a_verified_key_is_served_from_memory_once_subscribed(
    store: aioredis.Redis, edge: tuple[KeyCache, Waiters]
) -> None:
    cache, _ = edge
    issued = await _issue(store)
    header = f"Bearer {issued.key}"
    await cache.authenticate(header)
    await _until(lambda: cache._trusted, "the revocation subscription")
    principal = await cache.authenticate(header)
    # The stored record is gone, yet the key still verifies: this answer came from the cache.
    await store.delete(keys.api_key(issued.record.key_id))
    assert await cache.authenticate(header) == principal
    # The secret is still checked against the cached hash.
    with pytest.raises(Unauthorized):
        await cache.authenticate(header[:-4] + "AAAA")


async def test_a_revocation_reaches_the_cache_through_the_subscription(
    store: aioredis.Redis, edge: tuple[KeyCache, Waiters]
) -> None:
    cache, _ = edge
    issued = await _issue(store)
    header = f"Bearer {issued.key}"
    await cache.authenticate(header)
    await _until(lambda: cache._trusted, "the revocation subscription")
    await cache.authenticate(header)
    assert issued.record.key_id in cache._records
    await apikeys.revoke_key(store, issued.record.key_id)
    # Pushed, not expired: the entry goes long before its TTL.
    await _until(lambda: issued.record.key_id not in cache._records, "the revocation to arrive")
    with pytest.raises(Unauthorized, match="revoked"):
        await cache.authenticate(header)


async def test_nothing_is_cached_without_the_subscription(store: aioredis.Redis) -> None:
    cache = KeyCache(store, subscribe=lambda: None)
    issued = await _issue(store)
    header = f"Bearer {issued.key}"
    await cache.authenticate(header)
    assert cache._records == {}
    await apikeys.revoke_key(store, issued.record.key_id)
    with pytest.raises(Unauthorized, match="revoked"):
        await cache.authenticate(header)


async def test_losing_the_subscription_empties_the_cache(
    store: aioredis.Redis, edge: tuple[KeyCache, Waiters]
) -> None:
    cache, waiters = edge
    issued = await _issue(store)
    header = f"Bearer {issued.key}"
    await cache.authenticate(header)
    await _until(lambda: cache._trusted, "the revocation subscription")
    await cache.authenticate(header)
    assert cache._records
    await waiters.close()
    assert not cache._trusted and cache._records == {}
