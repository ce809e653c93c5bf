"""delegate_tasks through HTTP: children, awaits, resume, async, guards, rosters, stop and delete."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support.agents import create_agent, feed, of_type, scripted, start, task, wait_status
from tests.support.openai_server import OpenAICompatibleServer, completion

pytestmark = pytest.mark.integration


def delegate(*entries: dict[str, Any], **options: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": "delegate_tasks", "arguments": {"tasks": list(entries)} | options}]}


def profile(description: str) -> dict[str, Any]:
    return {"delegation_profile": {"description": description, "example_input": "a name"}}


def children(api: httpx.Client, task_id: str) -> list[dict[str, Any]]:
    return list(api.get(f"/api/v1/tasks/{task_id}/children", params={"limit": 100}).json()["data"])


@pytest.fixture
def api(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key()) as client:
        yield client


def test_fan_out_waits_for_every_child_and_resumes_once(api: httpx.Client, placement: str) -> None:
    worker = create_agent(
        api,
        scripted({"answer": "done: {{query}}"}, {"answer": "done: {{query}}"}, placement=placement)
        | profile("Greets"),
    )
    lead = create_agent(
        api,
        scripted(
            delegate(
                {
                    "agent_group_id": worker["agent_group_id"],
                    "prompt": "greet {{item}}",
                    "inputs": ["Ada", "Bob"],
                    "title": "Greet {{item}}",
                },
                {"agent_group_id": worker["agent_group_id"], "prompt": "wave"},
            ),
            {"answer": "{{last_tool_result.children.0.output}} / {{last_tool_result.status}}"},
            placement=placement,
        ),
    )
    parent_id = start(api, lead["id"])
    done = wait_status(api, parent_id, timeout=90)
    assert done["status"] == "completed"
    kids = children(api, parent_id)
    assert sorted(k["title"] for k in kids) == ["Greet Ada", "Greet Bob", "wave"]
    for kid in kids:
        full = task(api, kid["task_id"])
        assert (
            full["source"] == "spawned" and full["parent_task_id"] == parent_id and full["spawn_depth"] == 1
        )
        assert full["parent_step_id"] == f"{parent_id}:0" and full["status"] == "completed"
    items = feed(api, parent_id)
    results = [r for r in of_type(items, "tool_result") if r["tool_name"] == "delegate_tasks"]
    assert len(results) == 1
    output = results[0]["output"]
    assert output["status"] == "completed" and output["strategy"] == "all_required" and output["group_id"]
    assert sorted(c["output"] for c in output["children"]) == [
        "done: greet Ada",
        "done: greet Bob",
        "done: wave",
    ]
    assert {c["agent_name"] for c in output["children"]} == {worker["name"]}
    summaries = [i for i in of_type(items, "message_sent") if i["kind"] == "delegation_summary"]
    assert len(summaries) == 1
    # docs/spec.md Delegation step 7: the consolidated message names each child as the tool result does.
    named = {c["task_id"]: c for c in summaries[0]["children"]}
    assert named.keys() == {k["task_id"] for k in kids}
    for child in output["children"]:
        assert named[child["task_id"]] == child
        assert child["task_id"] in summaries[0]["text"] and str(child["output"]) in summaries[0]["text"]
    assert done["usage"]["steps"] == 2
    changes = [(c["from"], c["to"]) for c in of_type(items, "status_changed")]
    assert ("running", "waiting_for_input") in changes and ("waiting_for_input", "running") in changes
    assert api.get(f"/api/v1/tasks/{parent_id}/summary").json()["summary"].endswith("/ completed")


def test_inputs_without_placeholder_are_appended(api: httpx.Client) -> None:
    worker = create_agent(api, scripted({"answer": "{{query}}"}))
    lead = create_agent(
        api,
        scripted(
            delegate({"agent_group_id": worker["agent_group_id"], "prompt": "Check", "inputs": [{"id": 7}]}),
            {"answer": "ok"},
        ),
    )
    parent_id = start(api, lead["id"])
    wait_status(api, parent_id, timeout=60)
    (kid,) = children(api, parent_id)
    assert task(api, kid["task_id"])["query"] == 'Check\n\n{"id": 7}'


def test_async_delegation_keeps_the_parent_running(api: httpx.Client) -> None:
    worker = create_agent(api, scripted({"delay_seconds": 1, "answer": "later"}))
    lead = create_agent(
        api,
        scripted(
            delegate(
                {"agent_group_id": worker["agent_group_id"], "prompt": "x"},
                **{"async": True, "timeout_minutes": 5},
            ),
            {
                "answer": "{{last_tool_result.status}}|{{last_tool_result.group_id}}|{{last_tool_result.strategy}}"
            },
        ),
    )
    parent_id = start(api, lead["id"])
    done = wait_status(api, parent_id, timeout=60)
    assert api.get(f"/api/v1/tasks/{parent_id}/summary").json()["summary"] == "spawned_async||"
    changes = [c["to"] for c in of_type(feed(api, parent_id), "status_changed")]
    assert "waiting_for_input" not in changes and done["status"] == "completed"
    (kid,) = children(api, parent_id)
    assert wait_status(api, kid["task_id"], timeout=60)["status"] == "completed"


def test_guards_apply_with_and_without_async(api: httpx.Client, service: Service) -> None:
    worker = create_agent(api, scripted({"answer": "w"}), name="Worker")
    other_ws_agent = None
    with service.client(service.key()) as stranger:
        other_ws_agent = create_agent(stranger, scripted({"answer": "x"}))
    for is_async in (False, True):
        lead = create_agent(api, scripted({"answer": "placeholder"}), name="Lead")
        cases = {
            "self": {"agent_group_id": lead["agent_group_id"], "prompt": "me"},
            "foreign": {"agent_group_id": other_ws_agent["agent_group_id"], "prompt": "x"},
        }
        for name, entry in cases.items():
            config = scripted(delegate(entry, **{"async": is_async}), {"answer": "{{last_tool_result}}"})
            agent = create_agent(api, config)
            if name == "self":
                entry["agent_group_id"] = agent["agent_group_id"]
                api.patch(
                    f"/api/v1/agents/{agent['id']}",
                    json={
                        "config": scripted(
                            delegate(entry, **{"async": is_async}), {"answer": "{{last_tool_result}}"}
                        )
                    },
                )
            parent_id = start(api, agent["id"])
            wait_status(api, parent_id, timeout=60)
            result = next(
                r for r in of_type(feed(api, parent_id), "tool_result") if r["tool_name"] == "delegate_tasks"
            )
            assert result["status"] == "error", (name, is_async, result)
            assert children(api, parent_id) == []
    too_many = create_agent(
        api,
        scripted(
            delegate(
                {"agent_group_id": worker["agent_group_id"], "prompt": "{{item}}", "inputs": list(range(251))}
            ),
            {"answer": "x"},
        ),
    )
    parent_id = start(api, too_many["id"])
    wait_status(api, parent_id, timeout=60)
    error = of_type(feed(api, parent_id), "tool_result")[0]["error"]
    assert "250" in error and children(api, parent_id) == []


def test_allowlist_names_allowed_agents_and_points_to_the_unrestricted_tool(api: httpx.Client) -> None:
    allowed = create_agent(api, scripted({"answer": "a"}), name="Allowed One")
    blocked = create_agent(api, scripted({"answer": "b"}), name="Blocked")
    config = scripted(
        delegate({"agent_group_id": blocked["agent_group_id"], "prompt": "x"}),
        {"answer": "x"},
        tool_settings={"delegate_tasks": {"allowed_agent_group_ids": f" {allowed['agent_group_id']} "}},
    )
    lead = create_agent(api, config)
    parent_id = start(api, lead["id"])
    wait_status(api, parent_id, timeout=60)
    error = of_type(feed(api, parent_id), "tool_result")[0]["error"]
    assert "Allowed One" in error and "unrestricted delegate_tasks" in error


def test_depth_limit(api: httpx.Client) -> None:
    # Each level delegates to the next; the agent at depth 3 may not delegate again.
    leaf = create_agent(api, scripted({"answer": "leaf"}))
    below = leaf
    for _ in range(4):
        below = create_agent(
            api,
            scripted(
                delegate({"agent_group_id": below["agent_group_id"], "prompt": "down"}),
                {"answer": "{{last_tool_result}}"},
                settings={"max_retries": 0},
            ),
        )
    top = start(api, below["id"])
    wait_status(api, top, timeout=120)
    chain = [top]
    while kids := children(api, chain[-1]):
        chain.append(kids[0]["task_id"])
    assert [task(api, t)["spawn_depth"] for t in chain] == [0, 1, 2, 3]
    deepest = feed(api, chain[-1])
    error = next(r for r in of_type(deepest, "tool_result") if r["tool_name"] == "delegate_tasks")["error"]
    assert "depth" in error


def test_roster_and_tool_removal_seen_by_the_model(api: httpx.Client, service: Service) -> None:
    listed = create_agent(
        api, scripted({"answer": "x"}) | profile("Reads intake forms"), name="Intake Reader"
    )
    create_agent(api, scripted({"answer": "x"}), name="No Profile")
    create_agent(
        api, scripted({"answer": "x"}) | profile("Hidden") | {"delegation_enabled": False}, name="Disabled"
    )
    with service.client(service.key()) as publisher:
        public = create_agent(
            publisher, scripted({"answer": "p"}) | profile("Public helper"), name="Public Helper"
        )
        publisher.patch(f"/api/v1/agents/{public['id']}", json={"is_public": True})
        twin = create_agent(publisher, scripted({"answer": "p"}) | profile("Twin"), name="Intake Reader")
        publisher.patch(f"/api/v1/agents/{twin['id']}", json={"is_public": True})
    with OpenAICompatibleServer() as server:
        for _ in range(3):
            server.push(completion("hi"))
        model = {"provider": "openai", "name": "test-model", "base_url": server.base_url}
        caller = create_agent(api, {"model": model})
        wait_status(api, start(api, caller["id"]), timeout=60)
        tools = {t["function"]["name"]: t["function"] for t in server.requests[0].body["tools"]}
        description = tools["delegate_tasks"]["description"]
        assert "Intake Reader" in description and listed["agent_group_id"] in description
        assert "Public Helper [public]" in description and public["agent_group_id"] in description
        assert twin["agent_group_id"] not in description
        assert "No Profile" not in description and "Disabled" not in description
        assert "source" not in tools["delegate_tasks"]["parameters"]["properties"]
        no_delegate = create_agent(api, {"model": model, "auto_delegate": False})
        wait_status(api, start(api, no_delegate["id"]), timeout=60)
        assert "delegate_tasks" not in {t["function"]["name"] for t in server.requests[1].body["tools"]}
        response = api.post(
            f"/api/v1/agents/{caller['id']}/run", json={"query": "q", "disable_delegation": True}
        )
        wait_status(api, response.json()["task_id"], timeout=60)
        assert "delegate_tasks" not in {t["function"]["name"] for t in server.requests[2].body["tools"]}


def test_public_agent_runs_in_the_callers_workspace(api: httpx.Client, service: Service) -> None:
    with service.client(service.key()) as publisher:
        public = create_agent(publisher, scripted({"answer": "public says {{query}}"}) | profile("Public"))
        publisher.patch(f"/api/v1/agents/{public['id']}", json={"is_public": True})
        lead = create_agent(
            api,
            scripted(
                delegate({"agent_group_id": public["agent_group_id"], "prompt": "hi"}),
                {"answer": "{{last_tool_result.children.0.output}}"},
            ),
        )
        parent_id = start(api, lead["id"])
        assert wait_status(api, parent_id, timeout=60)["status"] == "completed"
        assert api.get(f"/api/v1/tasks/{parent_id}/summary").json()["summary"] == "public says hi"
        (kid,) = children(api, parent_id)
        assert api.get(f"/api/v1/tasks/{kid['task_id']}").status_code == 200
        assert publisher.get(f"/api/v1/tasks/{kid['task_id']}").status_code == 403


def test_cascade_stop_and_delete_with_subtasks(api: httpx.Client) -> None:
    slow = create_agent(api, scripted({"delay_seconds": 30, "answer": "slow"}))
    lead = create_agent(
        api,
        scripted(
            delegate({"agent_group_id": slow["agent_group_id"], "prompt": "{{item}}", "inputs": [1, 2]}),
            {"answer": "x"},
        ),
    )
    parent_id = start(api, lead["id"])
    wait_status(api, parent_id, "waiting_for_input", timeout=60)
    kids = children(api, parent_id)
    assert len(kids) == 2
    stopped = api.post(f"/api/v1/tasks/{parent_id}/cancel", params={"cascade": "true"}).json()
    assert stopped["status"] == "stopped"
    for kid in kids:
        assert wait_status(api, kid["task_id"], timeout=30)["status"] == "stopped"

    orphan_parent = start(api, lead["id"])
    wait_status(api, orphan_parent, "waiting_for_input", timeout=60)
    orphans = children(api, orphan_parent)
    api.post(f"/api/v1/tasks/{orphan_parent}/cancel")
    assert all(task(api, k["task_id"])["status"] in ("running", "pending", "queued") for k in orphans)
    # Cascade on an already-terminal parent still stops its orphaned children.
    api.post(f"/api/v1/tasks/{orphan_parent}/cancel", params={"cascade": "true"})
    for kid in orphans:
        assert wait_status(api, kid["task_id"], timeout=30)["status"] == "stopped"

    kept = start(api, lead["id"])
    wait_status(api, kept, "waiting_for_input", timeout=60)
    running = children(api, kept)
    deleted = api.delete(f"/api/v1/tasks/{kept}", params={"include_subtasks": "true"}).json()["deleted"]
    assert set(deleted) == {kept, *(k["task_id"] for k in running)}
    for kid in running:
        assert api.get(f"/api/v1/tasks/{kid['task_id']}").status_code == 404
    # The stopped children's signals found their parents' awaits cancelled: harmless, and recorded.
    recorded = {
        e["task_ids"][0]
        for e in api.get("/api/v1/audit", params={"limit": 100}).json()["data"]
        if e["action"] == "delegation.signal_no_match"
    }
    assert {k["task_id"] for k in kids + orphans} <= recorded
