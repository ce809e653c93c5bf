"""A model call's cost reaches its task and every ancestor in the script that records the call
(actors.usage), against a real Redis and a real Redis Cluster: a sibling reserving its budget
meanwhile never reads a cost on the child that its parent does not show yet."""

from __future__ import annotations

import uuid

import pytest
import redis.asyncio as aioredis

from actors import tree_budget
from actors.models.base import Usage
from actors.usage import record_model_call
from core import tasks
from core.infra import keys
from tests.support.stored_tasks import new_task

pytestmark = [pytest.mark.integration, pytest.mark.store]


async def _running(store: aioredis.Redis, ws: str, parent: str | None = None) -> tasks.Task:
    task = await new_task(store, ws, parent)
    assert await tasks.admit(store, task, limit=5, from_status="pending") == "running"
    return await tasks.find_task(store, ws, task.id) or task


async def _tree_cost(store: aioredis.Redis, task: tasks.Task) -> float:
    return float(await store.hget(keys.task(task.workspace_id, task.id), "tree_cost_usd") or 0)


async def test_a_call_rolls_up_to_every_ancestor_once_in_the_recording_script(store: aioredis.Redis) -> None:
    ws = f"ws-{uuid.uuid4().hex[:8]}"
    root = await _running(store, ws)
    child = await _running(store, ws, root.id)
    grandchild = await _running(store, ws, child.id)
    assert await tree_budget.ancestor_keys(store, root) == []
    assert await tree_budget.ancestor_keys(store, grandchild) == [
        keys.task(ws, child.id),
        keys.task(ws, root.id),
    ]
    paid = Usage(input_tokens=7, output_tokens=3, cost_usd=0.25)
    assert await record_model_call(store, grandchild, "s1.model", {"text": "x"}, "steps", paid) == 1
    # Recorded again (a retried runner): written once, so counted once on every level.
    assert await record_model_call(store, grandchild, "s1.model", {"text": "x"}, "steps", paid) == 0
    for member in (grandchild, child, root):
        assert await _tree_cost(store, member) == pytest.approx(0.25)
    stored = await tasks.find_task(store, ws, root.id)
    assert stored is not None and float(stored.raw["tree_input_tokens"]) == 7
    assert "cost_usd" not in stored.raw  # the root's own usage is not the child's


async def test_an_unpriced_call_is_marked_up_the_tree_and_a_deleted_ancestor_stays_deleted(
    store: aioredis.Redis,
) -> None:
    ws = f"ws-{uuid.uuid4().hex[:8]}"
    root = await _running(store, ws)
    child = await _running(store, ws, root.id)
    grandchild = await _running(store, ws, child.id)
    ancestors = await tree_budget.ancestor_keys(store, grandchild)
    await store.delete(keys.task(ws, root.id))
    unpriced = Usage(input_tokens=1, cost_known=False)
    written = await tasks.record(
        store,
        grandchild,
        "s1.model",
        {"text": "x"},
        rollup=(ancestors, tree_budget.tree_increments(1, 0, 0.0, cost_known=unpriced.cost_known)),
    )
    assert written == 1
    assert not await store.exists(keys.task(ws, root.id))
    assert await store.hget(keys.task(ws, child.id), "tree_unpriced_calls") == "1"


async def test_a_call_refused_by_the_tasks_status_rolls_up_nothing(store: aioredis.Redis) -> None:
    ws = f"ws-{uuid.uuid4().hex[:8]}"
    root = await _running(store, ws)
    child = await _running(store, ws, root.id)
    await store.hset(keys.task(ws, child.id), "status", "cancelled")
    paid = Usage(input_tokens=1, cost_usd=0.5)
    assert await record_model_call(store, child, "s1.model", {"text": "x"}, "steps", paid) == -1
    assert await _tree_cost(store, root) == 0
