"""The task log against a real Redis: children mirrored into the parent, the webhook outbox, and the
event stream's ends (drain, its time limit) without Ray or HTTP."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
import redis.asyncio as aioredis

from core import tasks
from core.infra import keys
from serve.event_stream import task_event_stream
from serve.waiters import DRAIN_CHANNEL, Waiters, request_drain
from tests.support.stored_tasks import new_task

pytestmark = [pytest.mark.integration, pytest.mark.store]


async def test_child_items_reach_the_parent_log_but_not_its_feed(store: aioredis.Redis) -> None:
    ws = f"ws-{uuid.uuid4().hex[:8]}"
    parent = await new_task(store, ws)
    child = await new_task(store, ws, parent=parent.id)
    assert await tasks.admit(store, child, limit=5, from_status="pending") == "running"
    await tasks.record(store, child, "m1", {"x": 1}, items=[{"type": "assistant_message", "text": "hey"}])
    applied, _ = await tasks.transition(store, child, "completed")
    assert applied
    log = await store.xrange(keys.task_feed(ws, parent.id))
    mirrored = [fields for _, fields in log if "child" in fields]
    assert {f["child"] for f in mirrored} == {child.id} and len(mirrored) == 4
    assert [f.get("seq") for _, f in log if "item" in f] == ["1"]
    own = await tasks.read_feed(store, ws, parent.id)
    assert [i["seq"] for i in own] == [1] and own[0]["type"] == "user_message"
    assert [i["seq"] for i in await tasks.read_feed(store, ws, child.id)] == [1, 2, 3, 4]


async def test_the_outbox_gets_an_event_only_for_a_subscribed_workspace(store: aioredis.Redis) -> None:
    quiet, subscribed = f"ws-{uuid.uuid4().hex[:8]}", f"ws-{uuid.uuid4().hex[:8]}"
    await store.zadd(keys.webhooks_index(subscribed), {"00000000000000001:hook": 0})
    for ws in (quiet, subscribed):
        task = await new_task(store, ws)
        await tasks.admit(store, task, limit=5, from_status="pending")
        await tasks.transition(store, task, "failed", fields={"error": "boom"})
    events = [f for _, f in await store.xrange(keys.webhook_outbox()) if f["ws"] in (quiet, subscribed)]
    assert len(events) == 1
    (event,) = events
    assert (event["ws"], event["type"], event["from"], event["error"]) == (
        subscribed,
        "task.failed",
        "running",
        "boom",
    )


async def _next(stream: Any) -> str:
    return str(await asyncio.wait_for(anext(stream), 5.0))


async def test_a_stream_pings_when_idle_and_ends_on_drain_or_at_its_limit(store: aioredis.Redis) -> None:
    task = await new_task(store, f"ws-{uuid.uuid4().hex[:8]}")
    waiters = Waiters(store, max_held=10)
    try:
        stream = task_event_stream(store, waiters, task, last_event_id=None, max_seconds=60, ping_seconds=0.2)
        assert (await _next(stream)).startswith("id: ") and waiters.held == 1
        assert await _next(stream) == ": ping\n\n"
        await _subscribed(store)
        await request_drain(store)
        remaining = await asyncio.wait_for(_collect(stream), 5.0)
        assert all(chunk == ": ping\n\n" for chunk in remaining) and waiters.held == 0

        short = task_event_stream(store, waiters, task, last_event_id=None, max_seconds=0.5, ping_seconds=10)
        chunks = await asyncio.wait_for(_collect(short), 5.0)
        assert chunks[0].startswith("id: ") and set(chunks[1:]) <= {": ping\n\n"} and waiters.held == 0
    finally:
        await waiters.close()


async def _subscribed(store: aioredis.Redis) -> None:
    """Wait (with a deadline) until the replica's subscription listens on the drain channel."""
    deadline = asyncio.get_running_loop().time() + 5
    while dict(await store.pubsub_numsub(DRAIN_CHANNEL)).get(DRAIN_CHANNEL, 0) < 1:
        assert asyncio.get_running_loop().time() < deadline, "the subscription never started"
        await asyncio.sleep(0.05)


async def _collect(stream: Any) -> list[str]:
    return [chunk async for chunk in stream]
