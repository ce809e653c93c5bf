"""A state change's global step (the webhook event, a delegated child's `child_task` signal, the
live set) is written exactly once, even when its caller dies between its two steps on a Redis
Cluster: the workspace step journals it, and the reconciler's pass applies what a dead caller left
(`core.tasks.cluster`). On one server both steps are one script."""

from __future__ import annotations

import asyncio
import sys
import time
import uuid
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from actors import reconciler
from core import tasks
from core.infra import keys
from core.tasks import cluster as cluster_tasks
from core.tasks import finish as task_finish
from tests.support.die_between_steps import MOVE_FIELDS
from tests.support.stored_tasks import new_task

pytestmark = [pytest.mark.integration, pytest.mark.store]

ROOT = Path(__file__).resolve().parents[3]
#: Each move: the webhook event it raises (None: none), whether a child signals its parent.
MOVES: dict[str, tuple[str | None, bool]] = {
    "failed": ("task.failed", True),
    "stopped": (None, True),
    "waiting_for_input": ("task.waiting_for_input", False),
    "awaiting_review": ("task.awaiting_review", False),
    "completed": ("task.completed", True),
}
#: A subprocess imports the service's modules first: seconds on a loaded machine.
PROCESS_TIMEOUT_SECONDS = 120


async def _running_child(store: aioredis.Redis) -> tuple[str, tasks.Task, tasks.Task]:
    """A running delegated child in a workspace subscribed to webhooks: (workspace, parent, child)."""
    ws = f"ws-{uuid.uuid4().hex[:8]}"
    await store.zadd(keys.webhooks_index(ws), {"00000000000000001:hook": 0})
    parent = await new_task(store, ws)
    child = await new_task(store, ws, parent=parent.id)
    assert await tasks.admit(store, child, limit=5, from_status="pending") == "running"
    return ws, parent, child


async def _reported(store: aioredis.Redis, child: tasks.Task) -> tuple[list[dict[str, str]], list[str]]:
    """(the outbox's events about the child, the parents its child_task signals name)."""
    hooks = [f for _, f in await store.xrange(keys.webhook_outbox()) if f.get("task_id") == child.id]
    signals = [
        f["parent"]
        for _, f in await store.xrange(keys.runtime_events())
        if f.get("kind") == "child_task" and f.get("child") == child.id
    ]
    return hooks, signals


def _assert_once(
    reported: tuple[list[dict[str, str]], list[str]], move: str, parent: tasks.Task, ws: str
) -> None:
    hooks, signals = reported
    event, signals_parent = MOVES[move]
    assert [h["type"] for h in hooks] == ([event] if event else [])
    if event:
        (hook,) = hooks
        assert (hook["ws"], hook["from"]) == (ws, "running")
        assert hook["error"] == MOVE_FIELDS[move].get("error", "")
        assert hook["pause"] == MOVE_FIELDS[move].get("pause", "")
    assert signals == ([parent.id] if signals_parent else [])


async def _move(store: aioredis.Redis, child: tasks.Task, move: str) -> None:
    if move == "completed":
        done = await task_finish.complete(store, child, fields=MOVE_FIELDS[move], drop=[], lease_holder="me")
        assert done.applied
        await task_finish.after_complete(store, done)
    else:
        applied, _ = await tasks.transition(store, child, move, fields=MOVE_FIELDS[move])
        assert applied


async def _reconcile(store: aioredis.Redis, cutoff_ms: int) -> None:
    """The reconciler's pass over the journals (actors.reconciler), with the grace ending at `cutoff_ms`."""
    await reconciler.apply_journals(store, cutoff_ms)


def _now_ms() -> int:
    return int(time.time() * 1000)


@pytest.mark.parametrize("move", list(MOVES))
async def test_a_caller_killed_between_the_steps_loses_nothing(
    store: aioredis.Redis, store_url: str, store_kind: str, move: str
) -> None:
    ws, parent, child = await _running_child(store)
    process = await asyncio.create_subprocess_exec(
        *[sys.executable, "-m", "tests.support.die_between_steps", store_url, ws, child.id, move],
        cwd=ROOT,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, stderr = await asyncio.wait_for(process.communicate(), PROCESS_TIMEOUT_SECONDS)
    stored = await tasks.find_task(store, ws, child.id)
    assert stored is not None and stored.status == move
    journal = keys.task_journal(ws, child.id)
    if store_kind != "cluster":
        # One server: the global step was in the workspace step's script, so there was no "between".
        assert process.returncode == 0, stderr.decode()
        assert not await store.exists(journal)
        _assert_once(await _reported(store, child), move, parent, ws)
        return
    assert process.returncode == -9, stderr.decode()
    # Killed between the steps: the workspace step and its journal committed, nothing global did.
    assert await _reported(store, child) == ([], [])
    entries = await store.hgetall(journal)
    assert len(entries) == 1
    # A caller may still be on its way within the grace: the reconciler leaves its journal alone.
    await _reconcile(store, _now_ms() - 60_000)
    assert await store.hlen(journal) == 1 and await _reported(store, child) == ([], [])
    # Past the grace, the reconciler's pass applies it, once, and clears the journal and its index.
    await _reconcile(store, _now_ms())
    _assert_once(await _reported(store, child), move, parent, ws)
    assert not await store.exists(journal)
    assert await store.zscore(keys.task_journals(), tasks.live_member(ws, child.id)) is None
    if MOVES[move][1]:
        assert not await store.sismember(keys.live_tasks(), tasks.live_member(ws, child.id))
    # An applier that died after the global step but before deleting the entry: applying it again
    # writes nothing.
    await store.hset(journal, mapping=entries)
    await cluster_tasks.will_journal(store, tasks.live_member(ws, child.id))
    await _reconcile(store, _now_ms())
    _assert_once(await _reported(store, child), move, parent, ws)
    assert not await store.exists(journal)


@pytest.mark.parametrize("move", list(MOVES))
async def test_the_normal_path_reports_once(store: aioredis.Redis, move: str) -> None:
    ws, parent, child = await _running_child(store)
    await _move(store, child, move)
    _assert_once(await _reported(store, child), move, parent, ws)
    assert not await store.exists(keys.task_journal(ws, child.id))
    # The reconciler's pass finds nothing of it left to apply.
    await _reconcile(store, _now_ms())
    _assert_once(await _reported(store, child), move, parent, ws)
    if MOVES[move][1]:  # a terminal move: the task left the live set
        assert not await store.sismember(keys.live_tasks(), tasks.live_member(ws, child.id))


async def test_a_refused_move_journals_nothing(store: aioredis.Redis) -> None:
    ws, _, child = await _running_child(store)
    await _move(store, child, "stopped")
    applied, previous = await tasks.transition(store, child, "failed", fields={"error": "late"})
    assert (applied, previous) == (False, "stopped")
    done = await task_finish.complete(store, child, fields={}, drop=[], lease_holder="me")
    assert (done.applied, done.previous, done.journal) == (False, "stopped", "")
    assert not await store.exists(keys.task_journal(ws, child.id))
