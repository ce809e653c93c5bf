"""The scheduler: a named, detached actor that keeps the runtime moving.

It consumes the durable runtime events (new_message, child_task, await_completed) from a Redis
stream with a consumer group, runs the reconciler and the await timers periodically, and restarts
by itself (Ray restarts it; its loop starts in the constructor). Everything it works from is in
Redis, so a restart loses nothing: unacknowledged events are read again.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any

import ray
from redis.exceptions import ResponseError

from actors.delegation import check_timers, handle_event
from actors.names import NAMESPACE
from actors.reconciler import reap_task_actors, reconcile_once
from core.infra import keys
from core.infra.cancellation import raise_if_cancelled
from core.infra.persistence import warn_unless_durable
from core.infra.settings import get_settings
from core.infra.store import StoreOutage, async_client, resolve_redis_url

log = logging.getLogger(__name__)

SCHEDULER_NAME = "scheduler"
CONSUMER = "scheduler"
#: Events read per round trip, and how long one read blocks waiting for new ones.
EVENT_BATCH = 100
EVENT_BLOCK_MS = 500


async def _ensure_group(redis: Any) -> None:
    try:
        await redis.xgroup_create(keys.runtime_events(), keys.EVENTS_GROUP, id="0", mkstream=True)
    except ResponseError as exc:
        if "BUSYGROUP" not in str(exc):
            raise


async def _consume(redis: Any, settings: Any, *, backlog: bool) -> int:
    """Handle one batch; `backlog` first re-reads what a previous incarnation left unacknowledged."""
    streams = await redis.xreadgroup(
        keys.EVENTS_GROUP,
        CONSUMER,
        {keys.runtime_events(): "0" if backlog else ">"},
        count=EVENT_BATCH,
        block=None if backlog else EVENT_BLOCK_MS,
    )
    handled = 0
    for _, entries in streams or []:
        for entry_id, fields in entries:
            try:
                await handle_event(redis, settings, fields)
            except Exception:
                # Left unacknowledged: read again after a restart or the next backlog pass.
                log.exception("runtime event %s failed", fields.get("kind"))
                continue
            await redis.xack(keys.runtime_events(), keys.EVENTS_GROUP, entry_id)
            handled += 1
    return handled


async def run_scheduler() -> None:
    settings = get_settings()
    url, _ = resolve_redis_url(settings)
    redis = async_client(url)
    outage = StoreOutage("the scheduler", log)
    # Each round checks for a cancel that a store call swallowed (`core.infra.cancellation`), as the
    # lease keeper does: otherwise a stop asked while a read was in flight is lost and the loop runs on.
    # Also when the store is down as the scheduler starts: it waits for it instead of ending its thread.
    while True:
        raise_if_cancelled()
        try:
            # Once per start, in the one process a `serve deploy` cluster always has.
            await warn_unless_durable(redis, log)
            await _ensure_group(redis)
            while await _consume(redis, settings, backlog=True):
                pass
            break
        except Exception as exc:
            await outage.pause(exc)
    outage.over()
    last_reconcile = 0.0
    while True:
        raise_if_cancelled()
        try:
            await _consume(redis, settings, backlog=False)
            if time.monotonic() - last_reconcile >= settings.reconcile_seconds:
                last_reconcile = time.monotonic()
                await reconcile_once(redis, settings)
                await reap_task_actors(redis, settings)
                await check_timers(redis, settings)
                # Events that failed once are retried here.
                await _consume(redis, settings, backlog=True)
            outage.over()
        except Exception as exc:
            await outage.pause(exc)


@ray.remote(num_cpus=0, max_restarts=-1)
class Scheduler:
    """Runs `run_scheduler` on its own thread from the moment it is constructed (also after a restart)."""

    def __init__(self) -> None:
        self._thread = threading.Thread(
            target=asyncio.run, args=(run_scheduler(),), daemon=True, name="scheduler"
        )
        self._thread.start()

    def alive(self) -> bool:
        return self._thread.is_alive()


def ensure_scheduler() -> Any:
    """Get or create the scheduler (one per cluster) without waiting for it to start."""
    return Scheduler.options(  # type: ignore[attr-defined]
        name=SCHEDULER_NAME, namespace=NAMESPACE, lifetime="detached", get_if_exists=True
    ).remote()


def start_scheduler() -> Any:
    """Get or create the scheduler and wait until it runs."""
    handle = ensure_scheduler()
    ray.get(handle.alive.remote())
    return handle
