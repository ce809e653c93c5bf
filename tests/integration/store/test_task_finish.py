"""A top-level task's creation and admission, and a task's completion, against a real Redis: each
workspace-slot script writes only its workspace's keys, and a completion's global step is written
once (its completer dying between the steps on a cluster: test_task_journal.py)."""

from __future__ import annotations

import uuid

import pytest
import redis.asyncio as aioredis

from core import tasks
from core.infra import keys
from core.infra.ids import new_id
from core.tasks import create as task_create
from core.tasks import finish as task_finish

pytestmark = [pytest.mark.integration, pytest.mark.store]


def new_spec(ws: str, group: str) -> tasks.TaskSpec:
    return tasks.new_spec(
        {
            "task_id": new_id(),
            "workspace_id": ws,
            "agent_id": new_id(),
            "agent_group_id": group,
            "version_number": 1,
            "agent_name": "A",
            "query": "hi",
            "placement": "pooled",
        }
    )


async def test_create_admits_under_the_limit_then_queues(store: aioredis.Redis) -> None:
    ws, group = f"ws-{uuid.uuid4().hex[:8]}", new_id()
    first = await task_create.create_admitted(
        store, new_spec(ws, group), limit=1, launch_fields={"placed_on": "node-a"}
    )
    second = await task_create.create_admitted(
        store, new_spec(ws, group), limit=1, launch_fields={"placed_on": "node-a"}
    )
    assert (first.status, second.status) == ("running", "queued")
    stored = await tasks.find_task(store, ws, first.id)
    assert stored is not None and stored.status == "running" and stored.raw["placed_on"] == "node-a"
    queued = await tasks.find_task(store, ws, second.id)
    assert queued is not None and "placed_on" not in queued.raw
    assert await store.lrange(keys.agent_queue(ws, group), 0, -1) == [second.id]
    assert await store.get(keys.owner(first.id)) == ws
    assert await store.sismember(keys.live_tasks(), tasks.live_member(ws, second.id))
    feed = await tasks.read_feed(store, ws, first.id)
    assert [(i["seq"], i["type"]) for i in feed] == [(1, "user_message"), (2, "status_changed")]
    assert feed[1]["to"] == "running"


async def test_complete_frees_the_slot_releases_the_lease_and_reports_the_queue(
    store: aioredis.Redis,
) -> None:
    ws, group = f"ws-{uuid.uuid4().hex[:8]}", new_id()
    task = await task_create.create_admitted(store, new_spec(ws, group), limit=1, launch_fields={})
    await task_create.create_admitted(store, new_spec(ws, group), limit=1, launch_fields={})
    await store.set(keys.task_lease(ws, task.id), "me")
    done = await task_finish.complete(
        store, task, fields={"summary": "ok"}, drop=["pause"], lease_holder="me"
    )
    assert done.applied
    stored = await tasks.find_task(store, ws, task.id)
    assert stored is not None and (stored.status, stored.summary) == ("completed", "ok")
    assert not await store.sismember(keys.agent_running(ws, group), task.id)
    assert not await store.exists(keys.task_lease(ws, task.id))
    # Not running any more: a second completion is refused and writes nothing.
    again = await task_finish.complete(store, stored, fields={"summary": "no"}, drop=[], lease_holder="me")
    assert (again.applied, again.previous, again.journal) == (False, "completed", "")
    await task_finish.after_complete(store, done)
    # The global step: the task left the live set, and its agent's queue (one task waits) is drained.
    assert not await store.sismember(keys.live_tasks(), tasks.live_member(ws, task.id))
    drains = [
        f
        for _, f in await store.xrange(keys.runtime_events())
        if f.get("kind") == "drain_queue" and f["ws"] == ws
    ]
    assert drains == [{"kind": "drain_queue", "ws": ws, "group": group}]


async def test_complete_keeps_another_holders_lease(store: aioredis.Redis) -> None:
    ws, group = f"ws-{uuid.uuid4().hex[:8]}", new_id()
    task = await task_create.create_admitted(store, new_spec(ws, group), limit=1, launch_fields={})
    await store.set(keys.task_lease(ws, task.id), "another")
    done = await task_finish.complete(store, task, fields={}, drop=[], lease_holder="me")
    assert done.applied
    assert await store.get(keys.task_lease(ws, task.id)) == "another"
    await task_finish.after_complete(store, done)
    assert not await store.sismember(keys.live_tasks(), tasks.live_member(ws, task.id))
    # No task waits for the agent: no drain_queue event.
    assert not [f for _, f in await store.xrange(keys.runtime_events()) if f.get("ws") == ws]
