"""Killed runners resume from Redis; the reconciler restarts what lost its runner or was never admitted."""

from __future__ import annotations

import time

import httpx
import pytest
import ray

from core import tasks
from core.infra import keys
from core.infra.ids import new_id
from core.stores import agents
from tests.integration.conftest import Service
from tests.support.agents import ask, create_agent, feed, of_type, scripted, start, task, wait_status
from tests.support.hosts import host_running
from tests.support.service import run_async, wait_for
from tests.support.task_actors import holds_no_process, running_actor

pytestmark = pytest.mark.integration


def test_killed_runner_resumes_after_the_last_recorded_step(
    service: Service, api: httpx.Client, placement: str
) -> None:
    agent = create_agent(
        api,
        scripted(
            ask() | {"usage": {"input_tokens": 1}},
            {"delay_seconds": 4, "usage": {"input_tokens": 10}, "answer": "done"},
            placement=placement,
        ),
    )
    task_id = start(api, agent["id"])
    wait_status(api, task_id, "waiting_for_input")
    replied_ms = int(time.time() * 1000)
    api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "go"})
    if placement == "dedicated":
        victim = wait_for(
            lambda: running_actor(service.redis_url, task_id, launched_after_ms=replied_ms),
            timeout=30,
            what="the task actor (its own, or the spare it was handed to)",
        )
    else:
        victim = wait_for(lambda: host_running(task_id), timeout=30, what="the task's host")
    ray.kill(victim, no_restart=True)
    assert task(api, task_id)["status"] == "running"
    done = wait_status(api, task_id, timeout=90)
    assert done["status"] == "completed"
    # The recorded first model call and the ask_user call did not run again; the killed call did.
    assert done["usage"]["input_tokens"] == 11
    items = feed(api, task_id)
    assert len(of_type(items, "tool_call")) == 1
    assert [i["text"] for i in of_type(items, "assistant_message")] == ["done"]


def test_a_paused_task_holds_no_process(service: Service, api: httpx.Client) -> None:
    agent = create_agent(api, scripted(ask(), {"answer": "x"}))
    task_id = start(api, agent["id"])
    wait_status(api, task_id, "waiting_for_input")
    # Its actor exits, or, a spare, goes back to its node's idle list and runs no task.
    wait_for(
        lambda: holds_no_process(service.redis_url, task_id),
        timeout=30,
        what="the paused task's actor to exit or go idle",
    )


def test_reconciler_admits_a_task_left_pending(service: Service, api: httpx.Client) -> None:
    agent = create_agent(api, scripted({"answer": "recovered"}))
    workspace_id = run_async(service.redis_url, lambda r: _workspace_of(r, agent["id"]))

    # As if the replica had died between writing the task and admitting it.
    task_id = run_async(
        service.redis_url, lambda r: _left_pending(r, workspace_id, agent["id"], "left behind")
    )
    assert task(api, task_id)["status"] == "pending"
    assert wait_status(api, task_id, timeout=60)["status"] == "completed"


def test_a_task_whose_agent_is_not_in_the_store_fails_once(service: Service, api: httpx.Client) -> None:
    """A task written around the API, naming an agent nobody has, cannot run: it fails with the
    lookup's error instead of crashing its runner, which the reconciler would relaunch forever."""
    agent = create_agent(api, scripted({"answer": "unused"}))
    workspace_id = run_async(service.redis_url, lambda r: _workspace_of(r, agent["id"]))
    missing = new_id()
    spec = {
        "task_id": new_id(),
        "workspace_id": workspace_id,
        "agent_id": missing,
        "agent_group_id": new_id(),
        "version_number": 1,
        "agent_name": "gone",
        "query": "nobody runs me",
    }
    task_id = run_async(service.redis_url, lambda redis: _created(redis, spec))
    failed = wait_status(api, task_id, timeout=60)
    assert failed["status"] == "failed", failed
    assert missing in failed["error"], failed
    wait_for(
        lambda: holds_no_process(service.redis_url, task_id),
        timeout=30,
        what="the failed task's actor to exit or go idle",
    )


def test_live_tasks_that_will_not_load_hold_back_no_other(service: Service, api: httpx.Client) -> None:
    """The reconciler takes each live task on its own: records it cannot read (logged, retried each
    pass) do not stop it from admitting a task left pending beside them."""
    agent = create_agent(api, scripted({"answer": "recovered"}))
    workspace_id = run_async(service.redis_url, lambda r: _workspace_of(r, agent["id"]))
    # Several, so that without the isolation the pass would almost always reach one before the good task.
    broken = [new_id() for _ in range(5)]

    async def poison(redis):
        for task_id in broken:
            await redis.hset(keys.task(workspace_id, task_id), mapping={"spec": "{not json"})
            await redis.sadd(keys.live_tasks(), tasks.live_member(workspace_id, task_id))

    async def cure(redis):
        for task_id in broken:
            await redis.srem(keys.live_tasks(), tasks.live_member(workspace_id, task_id))
            await redis.delete(keys.task(workspace_id, task_id))

    run_async(service.redis_url, poison)
    try:
        task_id = run_async(
            service.redis_url, lambda r: _left_pending(r, workspace_id, agent["id"], "beside broken records")
        )
        assert wait_status(api, task_id, timeout=60)["status"] == "completed"
    finally:
        run_async(service.redis_url, cure)


async def _created(redis, spec: dict) -> str:
    return (await tasks.create_task(redis, spec)).id


async def _left_pending(redis, workspace_id: str, agent_id: str, query: str) -> str:
    """A task of the agent written to the store and never admitted: what a replica dying between
    the two leaves behind."""
    version, group = await agents.resolve(redis, workspace_id, agent_id)
    spec = {
        "task_id": new_id(),
        "workspace_id": workspace_id,
        "agent_id": version.id,
        "agent_group_id": group.id,
        "version_number": 1,
        "agent_name": group.name,
        "query": query,
    }
    return await _created(redis, spec)


async def _workspace_of(redis, agent_id: str) -> str:
    return str(await redis.get(keys.owner(agent_id)))
