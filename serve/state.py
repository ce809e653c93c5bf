"""Per-process state of the HTTP edge, created on first use inside the serving event loop."""

from __future__ import annotations

import gc
from dataclasses import dataclass

import redis.asyncio as aioredis

from core.infra.blobs import BlobStore
from core.infra.ratelimit import RateLimiter
from core.infra.settings import Settings, get_settings
from core.infra.store import async_client, resolve_redis_url
from serve.key_cache import KeyCache
from serve.replica_exit import replica_leave_probe
from serve.waiters import Waiters


@dataclass
class EdgeState:
    settings: Settings
    redis: aioredis.Redis
    limiter: RateLimiter
    waiters: Waiters
    blobs: BlobStore
    api_keys: KeyCache


#: Requests a replica keeps free of held sync runs, so polling still gets through when it is busy.
HEADROOM_REQUESTS = 50

_state: EdgeState | None = None


def edge_state() -> EdgeState:
    global _state
    if _state is None:
        settings = get_settings()
        # The deployment is given REDIS_URL; a bare edge (tests of the app alone) reaches the embedded store.
        url, _ = resolve_redis_url(settings)
        client = async_client(url)
        # The key cache learns of revocations through the waiters' subscription, which it starts.
        api_keys = KeyCache(client, subscribe=lambda: waiters.ensure_listener())
        # Leave room under the replica's request limit for polls and other calls.
        held = max(1, settings.ingress_max_ongoing - HEADROOM_REQUESTS)
        waiters = Waiters(client, max_held=held, revocations=api_keys, leaving=replica_leave_probe())
        _state = EdgeState(
            settings=settings,
            redis=client,
            limiter=RateLimiter(client),
            waiters=waiters,
            blobs=BlobStore(settings.resolved_blob_url),
            api_keys=api_keys,
        )
        # Everything alive now (modules, the app, Ray's and Serve's objects) lives as long as the
        # process: moved out of the collector's reach, a full collection walks only what requests
        # made since. Under load requests promote enough objects to start one every few hundred
        # requests, and each walked the whole heap (~200 ms for the app's 220k objects alone).
        gc.freeze()
    return _state
