"""No task actor and no task slot outlives its task (issue 20 point 1).

Many tasks under both placements, among them a queue that `max_concurrent_tasks` 1 runs one at a
time (each finishing runner admits the next): once every task is terminal, no `task:<id>` actor
of theirs is left and the task slots they held are free again. Ray needs a moment to tear an
actor down, so every check polls with a deadline.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import ray

from actors.names import NAMESPACE, TASK_ACTOR_PREFIX, actor_name
from actors.placement import TASK_SLOT_RESOURCE
from core.infra import keys
from tests.support.agents import TERMINAL, create_agent, scripted, start, task
from tests.support.hosts import host_tasks
from tests.support.service import run_async, wait_for
from tests.support.session_service import Service
from tests.support.task_actors import holds_no_process, running_actor

pytestmark = pytest.mark.integration

#: Tasks run at once by the first agent; the second agent runs its queue one by one.
BURST = 8
SEQUENCE = 4


def _task_actors() -> set[str]:
    """Task ids of the dedicated task actors Ray still knows (alive, starting or waiting for a slot)."""
    named = ray.util.list_named_actors(all_namespaces=True)
    return {
        a["name"][len(TASK_ACTOR_PREFIX) :]
        for a in named
        if a["namespace"] == NAMESPACE and a["name"].startswith(TASK_ACTOR_PREFIX)
    }


def _reaped(service: Service, task_ids: list[str]) -> list[str]:
    """Those tasks whose actor the reconciler had to end instead of it exiting by itself."""

    async def marked(redis: Any) -> list[str]:
        workspace_ids = [await redis.get(keys.owner(t)) for t in task_ids]
        return [
            t
            for t, ws in zip(task_ids, workspace_ids, strict=True)
            if await redis.hexists(keys.task(ws, t), "actor_reaped_at")
        ]

    return run_async(service.redis_url, marked)


def _slots_held() -> float:
    return float(
        ray.cluster_resources().get(TASK_SLOT_RESOURCE, 0)
        - ray.available_resources().get(TASK_SLOT_RESOURCE, 0)
    )


def test_nothing_is_held_once_every_task_is_terminal(
    service: Service, api: httpx.Client, placement: str
) -> None:
    burst = create_agent(
        api,
        scripted(
            {"delay_seconds": 0.5, "answer": "done"},
            placement=placement,
            settings={"max_concurrent_tasks": 3, "placement": placement},
        ),
    )
    one_by_one = create_agent(
        api,
        scripted(
            {"answer": "done"},
            placement=placement,
            settings={"max_concurrent_tasks": 1, "placement": placement},
        ),
    )
    ids = [start(api, burst["id"], f"burst {n}") for n in range(BURST)]
    ids += [start(api, one_by_one["id"], f"in turn {n}") for n in range(SEQUENCE)]

    def all_terminal() -> bool:
        return all(task(api, task_id)["status"] in TERMINAL for task_id in ids)

    wait_for(all_terminal, timeout=120, interval=0.5, what="every task to end")
    assert {task(api, task_id)["status"] for task_id in ids} == {"completed"}

    def released() -> bool:
        left = _task_actors()
        pooled = {t for running in host_tasks().values() for t in running}
        # A spare that ran one of them went back to its node's idle list (or exited).
        on_spares = {t for t in ids if not holds_no_process(service.redis_url, t)}
        # Other tests' tasks (task actors, pooled runs) may still hold slots here; ours hold none,
        # and no slot is held by anything but a live task actor (spares and pooled runs take none).
        return not (left | pooled | on_spares) & set(ids) and _slots_held() <= len(left)

    wait_for(released, timeout=60, interval=0.5, what="the tasks' actors and slots to be released")
    # They exited by themselves: the reconciler's reaping is only a safety net.
    assert _reaped(service, ids) == []


def test_a_finished_task_leaves_while_the_next_of_its_queue_runs(service: Service, api: httpx.Client) -> None:
    # The finishing runner admits the next queued task: its actor must not wait for that task to end.
    agent = create_agent(
        api,
        scripted({"delay_seconds": 1, "answer": "first"}, settings={"max_concurrent_tasks": 1}),
    )
    first = start(api, agent["id"], "first")
    slow = api.patch(
        f"/api/v1/agents/{agent['id']}",
        json={
            "config": scripted(
                {"delay_seconds": 600, "answer": "never"}, settings={"max_concurrent_tasks": 1}
            )
        },
    )
    assert slow.status_code == 200, slow.text
    second = start(api, slow.json()["id"], "second")
    try:
        wait_for(lambda: task(api, first)["status"] == "completed", timeout=60, what="the first task")
        wait_for(lambda: task(api, second)["status"] == "running", timeout=60, what="the second task")
        wait_for(
            lambda: first not in _task_actors() and holds_no_process(service.redis_url, first),
            timeout=60,
            interval=0.5,
            what="the first task's actor to exit (or, a spare, to go idle)",
        )
    finally:
        # A stopped task's step may finish (here: for minutes); its actor is not left to it here.
        api.post(f"/api/v1/tasks/{second}/cancel")
        runner = running_actor(service.redis_url, second)
        if runner is not None:
            ray.kill(runner, no_restart=True)


def test_the_reconciler_ends_a_task_actor_whose_task_ended(service: Service, api: httpx.Client) -> None:
    from actors.hosts import TaskActor

    agent = create_agent(api, scripted({"answer": "done"}))
    task_id = start(api, agent["id"])
    wait_for(lambda: task(api, task_id)["status"] == "completed", timeout=60, what="the task")
    wait_for(lambda: task_id not in _task_actors(), timeout=60, interval=0.5, what="its actor to exit")
    # An actor left behind for the ended task (as one whose exit hung would be): never given a run.
    stray = TaskActor.options(  # type: ignore[attr-defined]
        name=actor_name(task_id), namespace=NAMESPACE, lifetime="detached", num_cpus=0
    ).remote()
    try:
        wait_for(lambda: _reaped(service, [task_id]), timeout=60, interval=0.5, what="the reaping")
        wait_for(lambda: task_id not in _task_actors(), timeout=30, interval=0.5, what="the stray to go")
    finally:
        ray.kill(stray, no_restart=True)
