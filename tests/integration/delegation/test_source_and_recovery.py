"""Source mode, delegation profiles, and crash safety of the delegation steps."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import ray

from actors import run_checks
from actors.names import NAMESPACE
from actors.scheduler import SCHEDULER_NAME
from tests.integration.conftest import Service
from tests.integration.delegation.test_delegation import children, delegate, profile
from tests.support.agents import create_agent, feed, of_type, scripted, start, task, wait_status
from tests.support.hosts import host_running
from tests.support.service import wait_for
from tests.support.task_actors import running_actor

pytestmark = pytest.mark.integration


@pytest.fixture
def api(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key()) as client:
        yield client


def upload(api: httpx.Client, name: str) -> str:
    response = api.post(
        "/api/v2/files", files={"file": (name, f"contents of {name}\n".encode(), "text/plain")}
    )
    assert response.status_code == 200, response.text
    return str(response.json()["file_id"])


def source(worker: dict[str, Any], **extra: Any) -> dict[str, Any]:
    spec = {
        "tool": "list_files",
        "arguments": {},
        "item_key_field": "file_id",
        "agent_group_id": worker["agent_group_id"],
        "prompt": "Summarise {{item}}",
    } | extra
    return {"tool_calls": [{"name": "delegate_tasks", "arguments": {"source": spec}}]}


def delegate_results(api: httpx.Client, task_id: str) -> list[dict[str, Any]]:
    return [r for r in of_type(feed(api, task_id), "tool_result") if r["tool_name"] == "delegate_tasks"]


def test_source_mode_one_child_per_item_rollup_and_rerun(api: httpx.Client) -> None:
    ids = [upload(api, f"f{i}.txt") for i in range(3)]
    worker = create_agent(api, scripted({"answer": "ok"}, {"answer": "ok"}, {"answer": "ok"}))
    lead = create_agent(
        api,
        scripted(
            source(worker),
            source(worker),
            {"answer": "{{last_tool_result.status}}"},
            settings={"delegate_source_mode": True},
        ),
    )
    parent_id = start(api, lead["id"])
    assert wait_status(api, parent_id, timeout=90)["status"] == "completed"
    kids = children(api, parent_id)
    assert sorted(k["item_key"] for k in kids) == sorted(ids)
    first, second = delegate_results(api, parent_id)
    rollup = first["output"]
    assert rollup["total_items"] == 3 and rollup["created_children"] == 3 and rollup["completed"] == 3
    assert rollup["children"] == [] and rollup["pages_fetched"] == 1
    # The same parent runs the batch again: every item's child is terminal, so all are skipped.
    assert second["output"]["status"] == "batch_already_complete" and second["output"]["skipped_count"] == 3
    assert api.get(f"/api/v1/tasks/{parent_id}/summary").json()["summary"] == "batch_already_complete"
    assert len(children(api, parent_id)) == 3


def test_source_mode_failures_never_truncate(api: httpx.Client) -> None:
    for i in range(3):
        upload(api, f"g{i}.txt")
    worker = create_agent(api, scripted({"answer": "ok"}))
    cases = [
        (source(worker, max_items=2), "max_items"),
        (source(worker, item_key_field="no_such_field"), "no value"),
    ]
    for turn, expected in cases:
        lead = create_agent(api, scripted(turn, {"answer": "x"}, settings={"delegate_source_mode": True}))
        parent_id = start(api, lead["id"])
        wait_status(api, parent_id, timeout=60)
        (result,) = delegate_results(api, parent_id)
        assert result["status"] == "error" and expected in result["error"]
        assert children(api, parent_id) == []
    hidden = create_agent(api, scripted(source(worker), {"answer": "x"}))
    parent_id = start(api, hidden["id"])
    wait_status(api, parent_id, timeout=60)
    assert "not enabled" in delegate_results(api, parent_id)[0]["error"]


def test_source_mode_with_no_items_does_not_pause(service: Service) -> None:
    with service.client(service.key()) as api:
        worker = create_agent(api, scripted({"answer": "ok"}))
        lead = create_agent(
            api,
            scripted(
                source(worker),
                {"answer": "{{last_tool_result.status}}"},
                settings={"delegate_source_mode": True},
            ),
        )
        parent_id = start(api, lead["id"])
        wait_status(api, parent_id, timeout=60)
        assert api.get(f"/api/v1/tasks/{parent_id}/summary").json()["summary"] == "batch_no_items"
        assert "waiting_for_input" not in [c["to"] for c in of_type(feed(api, parent_id), "status_changed")]


def test_delegation_profiles(api: httpx.Client) -> None:
    described = create_agent(
        api, {"system_prompt": "Reads clinic intake forms. Returns the patient's details."}, name="Reader"
    )
    plain = create_agent(api, {}, name="Plain")
    done = create_agent(api, profile("Already described"), name="Done")
    generated = api.post(f"/api/v1/agents/{described['id']}/delegation-profile").json()
    assert generated["version_number"] == 2
    assert generated["config"]["delegation_profile"]["description"].startswith("Reads clinic intake forms.")
    result = api.post("/api/v1/agents/delegation-profiles/backfill").json()
    assert plain["agent_group_id"] in result["updated"] and done["agent_group_id"] in result["skipped"]
    forced = api.post("/api/v1/agents/delegation-profiles/backfill", params={"force": "true"}).json()
    assert done["agent_group_id"] in forced["updated"]
    assert (
        api.post("/api/v1/agents/delegation-profiles/backfill", params={"force": "maybe"}).status_code == 400
    )


def _assert_resumed_once(api: httpx.Client, parent_id: str, expected_children: int) -> None:
    assert wait_status(api, parent_id, timeout=120)["status"] == "completed"
    assert len(delegate_results(api, parent_id)) == 1
    items = feed(api, parent_id)
    assert len([i for i in of_type(items, "message_sent") if i["kind"] == "delegation_summary"]) == 1
    assert [c["to"] for c in of_type(items, "status_changed")].count("waiting_for_input") == 1
    kids = children(api, parent_id)
    assert len(kids) == expected_children
    assert all(task(api, k["task_id"])["status"] == "completed" for k in kids)


def test_killing_a_child_loses_nothing(service: Service, api: httpx.Client) -> None:
    worker = create_agent(
        api, scripted({"delay_seconds": 3, "answer": "w"}, {"delay_seconds": 3, "answer": "w"})
    )
    lead = create_agent(
        api,
        scripted(
            delegate({"agent_group_id": worker["agent_group_id"], "prompt": "{{item}}", "inputs": [1, 2]}),
            {"answer": "x"},
        ),
    )
    parent_id = start(api, lead["id"])
    wait_for(lambda: len(children(api, parent_id)) == 2, timeout=60, what="children")
    victim_id = children(api, parent_id)[0]["task_id"]
    victim = wait_for(
        lambda: running_actor(service.redis_url, victim_id), timeout=60, what="the child's actor"
    )
    ray.kill(victim, no_restart=True)
    _assert_resumed_once(api, parent_id, 2)


def test_killing_the_scheduler_after_some_children_finished(api: httpx.Client) -> None:
    fast = create_agent(api, scripted({"answer": "fast"}))
    slow = create_agent(api, scripted({"delay_seconds": 4, "answer": "slow"}))
    lead = create_agent(
        api,
        scripted(
            delegate(
                {"agent_group_id": fast["agent_group_id"], "prompt": "a"},
                {"agent_group_id": slow["agent_group_id"], "prompt": "b"},
            ),
            {"answer": "x"},
        ),
    )
    parent_id = start(api, lead["id"])

    def fast_done() -> bool:
        kids = children(api, parent_id)
        return any(k["status"] == "completed" for k in kids)

    wait_for(fast_done, timeout=60, what="the fast child")
    ray.kill(ray.get_actor(SCHEDULER_NAME, namespace=NAMESPACE), no_restart=False)
    _assert_resumed_once(api, parent_id, 2)


def test_killing_the_parent_during_resume(service: Service, api: httpx.Client, placement: str) -> None:
    worker = create_agent(api, scripted({"answer": "w"}))
    lead = create_agent(
        api,
        scripted(
            delegate({"agent_group_id": worker["agent_group_id"], "prompt": "a"}),
            {"delay_seconds": 4, "answer": "after resume"},
            placement=placement,
        ),
    )
    parent_id = start(api, lead["id"])
    wait_for(lambda: len(delegate_results(api, parent_id)) == 1, timeout=60, what="the resume")
    if placement == "dedicated":
        victim = wait_for(
            lambda: running_actor(service.redis_url, parent_id), timeout=60, what="the resumed parent's actor"
        )
    else:
        victim = wait_for(lambda: host_running(parent_id), timeout=60, what="the resumed parent's host")
    ray.kill(victim, no_restart=True)
    _assert_resumed_once(api, parent_id, 1)
    assert api.get(f"/api/v1/tasks/{parent_id}/summary").json()["summary"] == "after resume"


def test_a_rerun_delegate_call_never_spawns_twice(service: Service, api: httpx.Client) -> None:
    # As if the parent's runner died after spawning but before recording the pause: the step runs
    # the same call again, which must find its children instead of creating new ones.
    import asyncio

    from core import tasks as task_store
    from core.infra.settings import load_settings
    from core.infra.store import async_client
    from tools.context import ToolContext
    from tools.delegate import delegate_tasks
    from tools.signals import PauseForChildren

    worker = create_agent(api, scripted({"delay_seconds": 2, "answer": "w"}))
    lead = create_agent(api, scripted({"delay_seconds": 30, "answer": "parent"}))
    parent_id = start(api, lead["id"])

    async def call_twice() -> tuple[str, str]:
        redis = async_client(service.redis_url)
        try:
            parent = await task_store.find_task(
                redis, (await redis.get(f"ag:{{global}}:owner:{parent_id}")), parent_id
            )
            assert parent is not None
            ctx = ToolContext(
                workspace_id=parent.workspace_id,
                task_id=parent_id,
                step_id=f"{parent_id}:0",
                call_id="call_0_0",
                agent_config={},
                settings=load_settings(),
                redis=redis,
                injected={},
                run_check=run_checks.for_tools(redis, load_settings()),
            )
            arguments = {
                "tasks": [
                    {"agent_group_id": worker["agent_group_id"], "prompt": "{{item}}", "inputs": [1, 2]}
                ]
            }
            groups = []
            for _ in range(2):
                try:
                    await delegate_tasks(arguments, ctx)
                except PauseForChildren as signal:
                    groups.append(signal.group_id)
            return groups[0], groups[1]
        finally:
            await redis.aclose()

    first, second = asyncio.run(call_twice())
    assert first == second
    assert len(children(api, parent_id)) == 2
    api.post(f"/api/v1/tasks/{parent_id}/cancel", params={"cascade": "true"})
