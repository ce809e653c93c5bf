"""A review decision is written only while the task is paused on the call it answers (the RECORD script's guard)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
import redis.asyncio as aioredis

from core import tasks
from core.infra import keys
from core.infra.ids import new_id

pytestmark = [pytest.mark.integration, pytest.mark.store]


def pending(call_id: str, digest: str, *, legacy: bool = False) -> dict[str, Any]:
    """A review pause on call `call_id`; `legacy` keeps the digest only under `binding`, as older records do."""
    call: dict[str, Any] = {"call_id": call_id, "binding": {"arguments_sha256": digest, "target": None}}
    if not legacy:
        call["arguments_sha256"] = digest
    return {"kind": "review", "pending_tool_call": call}


async def paused(store: aioredis.Redis, pause: dict[str, Any]) -> tasks.Task:
    fields: dict[str, Any] = {
        "task_id": new_id(),
        "workspace_id": f"ws-{uuid.uuid4().hex[:8]}",
        "agent_id": new_id(),
        "agent_group_id": new_id(),
        "version_number": 1,
        "agent_name": "A",
        "query": "hi",
    }
    task = await tasks.create_task(store, fields)
    assert await tasks.admit(store, task, limit=5, from_status="pending") == "running"
    applied, _ = await tasks.transition(store, task, "awaiting_review", fields={"pause": json.dumps(pause)})
    assert applied
    return task


async def decide(store: aioredis.Redis, task: tasks.Task, call_id: str, digest: str) -> int:
    return await tasks.record(
        store,
        task,
        f"s0:review:{call_id}",
        {"decision": "approve"},
        allowed=("awaiting_review",),
        drop=["pause"],
        paused_on={"call_id": call_id, "arguments_sha256": digest},
    )


async def test_a_decision_on_another_call_writes_nothing(store: aioredis.Redis) -> None:
    task = await paused(store, pending("call_2_0", "b" * 64))
    # Answering the call that was pending before (same digest or not), or the right call with other arguments.
    assert await decide(store, task, "call_1_0", "b" * 64) == -2
    assert await decide(store, task, "call_1_0", "a" * 64) == -2
    assert await decide(store, task, "call_2_0", "a" * 64) == -2
    steps = await tasks.read_steps(store, task.workspace_id, task.id)
    assert steps == {}
    assert await store.hget(keys.task(task.workspace_id, task.id), "pause") is not None
    assert await decide(store, task, "call_2_0", "b" * 64) == 1
    assert await store.hget(keys.task(task.workspace_id, task.id), "pause") is None


async def test_a_pause_recorded_before_the_digest_was_shown_is_still_matched(store: aioredis.Redis) -> None:
    task = await paused(store, pending("call_1_0", "c" * 64, legacy=True))
    assert await decide(store, task, "call_1_0", "d" * 64) == -2
    assert await decide(store, task, "call_1_0", "c" * 64) == 1


async def test_without_a_pause_nothing_is_approved(store: aioredis.Redis) -> None:
    task = await paused(store, pending("call_1_0", "e" * 64))
    await store.hdel(keys.task(task.workspace_id, task.id), "pause")
    assert await decide(store, task, "call_1_0", "e" * 64) == -2
