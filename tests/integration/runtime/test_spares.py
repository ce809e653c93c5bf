"""Warm spare task actors (actors.spares): a dedicated task's run or resume is handed to an idle
spare of its node, which goes back to its node's list once the task pauses or ends; a spare that
died while idle costs the task nothing but the warm start."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import ray

from actors.names import NAMESPACE
from actors.placement import TASK_SLOT_RESOURCE
from actors.spares import SPARE_PREFIX
from core.infra import keys
from tests.support.agents import ask, create_agent, scripted, start, wait_status
from tests.support.service import run_async, wait_for
from tests.support.session_service import Service
from tests.support.task_actors import holds_no_process

pytestmark = pytest.mark.integration


def _record(service: Service, task_id: str) -> dict[str, str]:
    async def read(redis: Any) -> dict[str, str]:
        workspace_id = await redis.get(keys.owner(task_id))
        return dict(await redis.hgetall(keys.task(workspace_id, task_id)))

    return dict(run_async(service.redis_url, read))


def _idle(service: Service) -> list[str]:
    """Idle spares on the (one) node of this session's Ray."""
    node_id = ray.get_runtime_context().get_node_id()
    return list(run_async(service.redis_url, lambda r: r.lrange(keys.spare_task_actors(node_id), 0, -1)))


def _spares_ready(service: Service) -> list[str] | None:
    idle = _idle(service)
    return idle if len(idle) >= service.settings.spare_task_actors else None


def test_a_resume_runs_on_a_warm_spare_that_then_waits_again(service: Service, api: httpx.Client) -> None:
    agent = create_agent(api, scripted(ask(), {"answer": "done"}, placement="dedicated"))
    # Any dedicated launch fills the node's list; a first task may still have started cold.
    first = start(api, agent["id"])
    wait_status(api, first, "waiting_for_input")
    ready = wait_for(lambda: _spares_ready(service), timeout=90, interval=0.5, what="the node's spares")
    assert all(name.startswith(SPARE_PREFIX) for name in ready)

    reply = api.post(f"/api/v1/tasks/{first}/message", json={"message": "go on"})
    assert reply.status_code == 200, reply.text
    assert wait_status(api, first, "completed", "failed")["status"] == "completed"
    ran_on = _record(service, first)["actor"]
    assert ran_on in ready
    assert api.get(f"/api/v1/tasks/{first}/summary").json()["summary"] == "done"
    # It runs nothing now: back on its node's list, or exited when other spares had filled the list
    # meanwhile (the list never holds more than its bound: the floor, or more while dedicated
    # launches on the node ask for more, until they shrink back). No task slot is held for it.
    wait_for(
        lambda: holds_no_process(service.redis_url, first),
        timeout=60,
        interval=0.2,
        what="the spare to go idle",
    )
    if ran_on in _idle(service):
        assert ray.get(ray.get_actor(ran_on, namespace=NAMESPACE).running.remote(), timeout=30) == []
    assert len(_idle(service)) <= max(
        service.settings.spare_task_actors, service.settings.max_spare_task_actors
    )
    slots_free = ray.available_resources().get(TASK_SLOT_RESOURCE, 0)
    assert slots_free > 0


def test_a_spare_that_died_idle_is_passed_over(service: Service, api: httpx.Client) -> None:
    agent = create_agent(api, scripted({"answer": "fine"}, placement="dedicated"))
    warm = start(api, agent["id"])
    wait_status(api, warm, "completed")
    ready = wait_for(lambda: _spares_ready(service), timeout=90, interval=0.5, what="the node's spares")
    # Every idle spare dies where it waits (as on a lost node): the next tasks still run, at once.
    for name in ready:
        ray.kill(ray.get_actor(name, namespace=NAMESPACE), no_restart=True)
    task_ids = [start(api, agent["id"], f"after {n}") for n in range(3)]
    for task_id in task_ids:
        # On another spare or on an actor of its own, never on a dead one.
        assert wait_status(api, task_id, "completed", "failed", timeout=60)["status"] == "completed"
        assert _record(service, task_id)["actor"] not in ready


def test_a_burst_of_dedicated_tasks_grows_the_spares_which_shrink_back_when_idle(
    service: Service, api: httpx.Client
) -> None:
    floor = service.settings.spare_task_actors
    bound = max(floor, service.settings.max_spare_task_actors)
    agent = create_agent(api, scripted({"answer": "fine"}, placement="dedicated"))
    # More dedicated tasks at once than the floor covers: the node is asked for more spares.
    burst = [start(api, agent["id"], f"burst {n}") for n in range(floor + 4)]

    def grown() -> list[str] | None:
        idle = _idle(service)
        return idle if len(idle) > floor else None

    assert len(wait_for(grown, timeout=120, interval=0.5, what="more idle spares than the floor")) <= bound
    for task_id in burst:
        assert wait_status(api, task_id, "completed", "failed", timeout=90)["status"] == "completed"
    # Idle once the burst is over: back to the floor, which stays (an idle floor spare waits minutes).
    wait_for(
        lambda: len(_idle(service)) == floor,
        timeout=120,
        interval=0.5,
        what="the spares to shrink back to the floor",
    )


def test_a_burst_beyond_the_idle_spares_waits_for_them_and_each_runs_several_tasks(
    service: Service, api: httpx.Client
) -> None:
    agent = create_agent(api, scripted({"answer": "fine"}, placement="dedicated"))
    warm = start(api, agent["id"])
    wait_status(api, warm, "completed")
    wait_for(lambda: _spares_ready(service), timeout=90, interval=0.5, what="the node's spares")
    # More tasks at once than idle spares: the others wait for a spare to come back (or to start)
    # rather than each starting a process of its own.
    burst = [start(api, agent["id"], f"wave {n}") for n in range(service.settings.spare_task_actors + 6)]
    for task_id in burst:
        assert wait_status(api, task_id, "completed", "failed", timeout=120)["status"] == "completed"
    ran_on = [_record(service, task_id)["actor"] for task_id in burst]
    on_spares = [name for name in ran_on if name.startswith(SPARE_PREFIX)]
    # A spare took the next task once it finished one.
    assert len(set(on_spares)) < len(on_spares)
