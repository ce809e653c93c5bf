"""The scheduler and the webhook dispatcher stop when cancelled, even if a store call swallowed the cancel.

What redis-py's asyncio client sometimes does (see `core.infra.cancellation`): the command in flight when
the cancel arrives returns as if nothing happened. Each pass here does that; without the check the
loops ran on for ever (until `Runaway` ends them here).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from actors import scheduler, webhook_dispatcher
from core.stores import webhook_delivery

pytestmark = pytest.mark.unit

#: Passes a loop may make before the test gives up on it stopping.
MAX_PASSES = 300


class Runaway(BaseException):
    """Ends a loop that ran on after its cancel (a BaseException: the loops' `except Exception` lets it by)."""


class SwallowingStore:
    """Each call waits a little and swallows a cancel thrown into it, as a store call in flight may."""

    def __init__(self) -> None:
        self.calls = 0
        self.started = asyncio.Event()

    async def call(self, *_: Any, **__: Any) -> int:
        self.calls += 1
        self.started.set()
        if self.calls > MAX_PASSES:
            raise Runaway
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0.01)
        return 0


async def nothing(*_: Any, **__: Any) -> None:
    return None


def no_store(*_: Any, **__: Any) -> tuple[str, None]:
    """In place of `resolve_redis_url`, which with no REDIS_URL would start an embedded Redis in the
    default data dir (and leave it running after the tests)."""
    return "redis://unused", None


async def stops_when_cancelled(loop: Callable[[], Coroutine[Any, Any, None]], store: SwallowingStore) -> None:
    running = asyncio.ensure_future(loop())
    await asyncio.wait_for(store.started.wait(), timeout=10)
    # Let it go round a few times, so the cancel lands while a call is in flight.
    await asyncio.sleep(0.05)
    running.cancel()
    done, _ = await asyncio.wait({running}, timeout=30)
    assert running in done
    assert running.cancelled(), f"the loop ended with {running.exception()!r} instead of stopping"
    assert store.calls <= MAX_PASSES


async def test_the_scheduler_loop_stops_on_a_swallowed_cancel(monkeypatch: pytest.MonkeyPatch) -> None:
    store = SwallowingStore()
    monkeypatch.setattr(scheduler, "resolve_redis_url", no_store)
    monkeypatch.setattr(scheduler, "async_client", lambda url: object())
    monkeypatch.setattr(scheduler, "warn_unless_durable", nothing)
    monkeypatch.setattr(scheduler, "_ensure_group", nothing)
    monkeypatch.setattr(scheduler, "_consume", store.call)
    for name in ("reconcile_once", "reap_task_actors", "check_timers"):
        monkeypatch.setattr(scheduler, name, nothing)
    await stops_when_cancelled(scheduler.run_scheduler, store)


async def test_the_webhook_dispatcher_loop_stops_on_a_swallowed_cancel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = SwallowingStore()

    class Dispatcher:
        def __init__(self, redis: Any, settings: Any) -> None:
            pass

        consume = staticmethod(store.call)
        dispatch_due = staticmethod(store.call)

    monkeypatch.setattr(webhook_dispatcher, "resolve_redis_url", no_store)
    monkeypatch.setattr(webhook_dispatcher, "async_client", lambda url: object())
    monkeypatch.setattr(webhook_delivery, "ensure_group", nothing)
    monkeypatch.setattr(webhook_dispatcher, "Dispatcher", Dispatcher)
    await stops_when_cancelled(webhook_dispatcher.run_dispatcher, store)
