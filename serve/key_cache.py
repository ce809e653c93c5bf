"""Verified API keys kept briefly in the replica, so a request does not read its key from Redis.

A revocation is published on `keys.KEY_REVOCATIONS_CHANNEL` (`core.stores.apikeys.revoke_key`); the
replica's one pub/sub subscription (`serve.waiters`) drops the key here when it arrives, within
milliseconds. The cache is trusted only while that subscription is confirmed: before it, or once it
is lost, every request reads its key from Redis again, so a revocation can never be missed. Entries
also expire after `TTL_SECONDS`, which bounds how long anything else about a key could be stale.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import redis.asyncio as aioredis

from core.infra.models import ApiKeyRecord
from core.stores import apikeys
from core.stores.apikeys import Principal

#: How long a verified key is served from memory (revocations are pushed, so this is not their delay).
TTL_SECONDS = 30.0
#: Keys kept per replica; beyond it the cache starts over (a bound on memory, not an eviction policy).
MAX_KEYS = 10_000


class KeyCache:
    def __init__(self, redis: aioredis.Redis, *, subscribe: Callable[[], None]) -> None:
        self.redis = redis
        self._subscribe = subscribe
        self._records: dict[str, tuple[ApiKeyRecord, float]] = {}
        self._trusted = False
        #: Bumped by every revocation and loss of the subscription: a read that overlapped one is not cached.
        self._generation = 0

    async def authenticate(self, authorization: str | None) -> Principal:
        key_id, secret = apikeys.parse_bearer(authorization)
        cached = self._records.get(key_id)
        now = time.monotonic()
        if cached is not None and cached[1] > now:
            return apikeys.verify(cached[0], secret)
        self._subscribe()
        # A revocation that arrives while Redis is read may concern the record being read.
        generation = self._generation
        record = await apikeys.load_key(self.redis, key_id)
        principal = apikeys.verify(record, secret)
        if self._trusted and generation == self._generation:
            if len(self._records) >= MAX_KEYS:
                self._records.clear()
            self._records[key_id] = (record, now + TTL_SECONDS)
        return principal

    def trust(self) -> None:
        """The revocation channel is subscribed (confirmed by Redis): from now on no revocation is missed."""
        self._trusted = True
        # A read that began before the confirmation could have missed a revocation published then.
        self._generation += 1

    def distrust(self) -> None:
        """The subscription is gone: revocations could be missed, so nothing cached may be served."""
        self._trusted = False
        self._generation += 1
        self._records.clear()

    def forget(self, key_id: str) -> None:
        self._generation += 1
        self._records.pop(key_id, None)
