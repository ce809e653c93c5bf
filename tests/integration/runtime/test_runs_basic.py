"""Runs and polling: the life of a task through HTTP, under both placements."""

from __future__ import annotations

import httpx
import pytest
from agentry_client import Client, Conflict

from tests.integration.conftest import Service
from tests.support.agents import ask, create_agent, feed, of_type, run, scripted, start, task, wait_status

pytestmark = pytest.mark.integration


def test_async_run_completes_with_summary_usage_and_feed(api: httpx.Client, placement: str) -> None:
    agent = create_agent(
        api,
        scripted(
            {"answer": "Hi {{query}}", "usage": {"input_tokens": 5, "output_tokens": 2, "cost_usd": 0.01}},
            placement=placement,
        ),
    )
    created = run(api, agent["id"], "Ada")
    assert created.status_code == 201
    body = created.json()
    assert set(body) == {"task_id", "agent_id", "status", "created_at"} and body["status"] == "running"
    done = wait_status(api, body["task_id"])
    assert done["status"] == "completed", done
    assert done["usage"] == {
        "input_tokens": 5,
        "output_tokens": 2,
        "cost_usd": 0.01,
        "cost_known": True,
        "steps": 1,
        "by_purpose": {"steps": {"input_tokens": 5, "output_tokens": 2, "cost_usd": 0.01, "calls": 1}},
        "tree": {"input_tokens": 5, "output_tokens": 2, "cost_usd": 0.01, "cost_known": True},
    }
    assert done["agent_id"] == agent["id"] and done["agent_group_id"] == agent["agent_group_id"]
    assert done["query"] == "Ada" and done["title"] == "Ada" and done["pause"] is None
    summary = api.get(f"/api/v1/tasks/{body['task_id']}/summary").json()
    assert summary == {"task_id": body["task_id"], "status": "completed", "summary": "Hi Ada"}
    items = feed(api, body["task_id"])
    assert [i["seq"] for i in items] == list(range(1, len(items) + 1))
    assert items[0]["type"] == "user_message" and items[0]["text"] == "Ada"
    assert of_type(items, "assistant_message")[0]["text"] == "Hi Ada"
    changes = [(i["from"], i["to"]) for i in of_type(items, "status_changed")]
    assert changes == [("pending", "running"), ("running", "completed")]


def test_ask_user_pauses_and_reply_resumes_with_templates(client: Client, placement: str) -> None:
    agent = client.create_agent(
        config=scripted(
            ask("Your name?"),
            {"answer": "Hello {{last_user_message}}, you said {{last_tool_result.reply}}"},
            placement=placement,
        )
    )
    task_id = client.run(agent.id, "hello").task_id
    paused = client.wait(task_id, timeout=60)
    assert paused.status == "waiting_for_input" and paused.pause is not None
    assert paused.pause.kind == "ask_user" and paused.pause.question == "Your name?"
    replied = client.reply(task_id, "Grace")
    assert replied.status in ("running", "completed")
    assert client.wait(task_id, timeout=60).status == "completed"
    assert client.summary(task_id).summary == "Hello Grace, you said Grace"
    with pytest.raises(Conflict) as late:
        client.reply(task_id, "late")
    assert set(late.value.body) == {"error"}


def test_tool_calls_and_interim_answer_take_several_steps(api: httpx.Client) -> None:
    agent = create_agent(api, scripted(ask() | {"answer": "Let me ask."}, {"answer": "done"}))
    task_id = start(api, agent["id"])
    wait_status(api, task_id, "waiting_for_input")
    api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "ok"})
    done = wait_status(api, task_id)
    # Two decision steps: the one that asked, and the one that answered after the reply.
    assert done["usage"]["steps"] == 2
    items = feed(api, task_id)
    assert [i["text"] for i in of_type(items, "assistant_message")] == ["Let me ask.", "done"]
    calls, results = of_type(items, "tool_call"), of_type(items, "tool_result")
    assert calls[0]["tool_name"] == "ask_user" and results[0]["call_id"] == calls[0]["call_id"]


def test_unknown_and_invalid_tool_calls_are_tool_errors_the_model_sees(api: httpx.Client) -> None:
    agent = create_agent(
        api,
        scripted(
            {
                "tool_calls": [
                    {"name": "no_such_tool", "arguments": {}},
                    {"name": "ask_user", "arguments": {}},
                ]
            },
            {"answer": "{{last_tool_result}}"},
        ),
    )
    task_id = start(api, agent["id"])
    done = wait_status(api, task_id)
    assert done["status"] == "completed"
    results = of_type(feed(api, task_id), "tool_result")
    assert {r["status"] for r in results} == {"error"}
    assert any("question" in r["error"] for r in results)


def test_script_exhausted_fails_after_retries(api: httpx.Client) -> None:
    agent = create_agent(api, scripted({"error": "boom"}, {"error": "boom again"}))
    task_id = start(api, agent["id"])
    done = wait_status(api, task_id)
    assert done["status"] == "failed" and "script exhausted" in done["error"]


def test_model_error_is_retried_then_succeeds(api: httpx.Client) -> None:
    agent = create_agent(api, scripted({"error": "flaky"}, {"answer": "recovered"}))
    done = wait_status(api, start(api, agent["id"]))
    assert done["status"] == "completed"


def test_cancel_is_idempotent_and_the_running_step_finishes(api: httpx.Client, placement: str) -> None:
    agent = create_agent(api, scripted({"delay_seconds": 2, "answer": "late"}, placement=placement))
    task_id = start(api, agent["id"])
    wait_status(api, task_id, "running")
    first = api.post(f"/api/v1/tasks/{task_id}/cancel")
    assert first.status_code == 200 and first.json()["status"] == "stopped"
    again = api.post(f"/api/v1/tasks/{task_id}/cancel")
    assert again.status_code == 200 and again.json()["status"] == "stopped"
    assert api.post(f"/api/v1/tasks/{task_id}/cancel", params={"cascade": "maybe"}).status_code == 400
    summary = api.get(f"/api/v1/tasks/{task_id}/summary").json()
    assert summary["summary"] is None and "stopped" in summary["error"]
    assert task(api, task_id)["status"] == "stopped"


def test_task_endpoints_isolated_by_workspace(service: Service, api: httpx.Client) -> None:
    agent = create_agent(api, scripted({"answer": "x"}))
    task_id = start(api, agent["id"])
    with service.client(service.key()) as stranger:
        for method, path in (
            ("GET", f"/api/v1/tasks/{task_id}"),
            ("GET", f"/api/v1/tasks/{task_id}/summary"),
            ("GET", f"/api/v1/tasks/{task_id}/result"),
            ("GET", f"/api/v1/tasks/{task_id}/structured-response"),
            ("POST", f"/api/v1/tasks/{task_id}/cancel"),
            ("POST", f"/api/v1/tasks/{task_id}/message"),
            ("DELETE", f"/api/v1/tasks/{task_id}"),
            ("POST", f"/api/v1/agents/{agent['id']}/run"),
        ):
            response = stranger.request(method, path, json={"message": "x", "query": "x"})
            assert response.status_code == 403, (method, path, response.text)
        assert all(t["task_id"] != task_id for t in stranger.get("/api/v1/tasks").json()["data"])
    assert api.get("/api/v1/tasks/not-a-uuid").status_code == 400


def test_delete_hides_the_task(api: httpx.Client) -> None:
    agent = create_agent(api, scripted({"answer": "x"}))
    task_id = start(api, agent["id"])
    wait_status(api, task_id)
    deleted = api.delete(f"/api/v1/tasks/{task_id}")
    assert deleted.status_code == 200 and deleted.json() == {"deleted": [task_id]}
    assert api.get(f"/api/v1/tasks/{task_id}").status_code == 404
    assert all(
        t["task_id"] != task_id for t in api.get("/api/v1/tasks", params={"limit": 100}).json()["data"]
    )


def test_run_on_inactive_deleted_or_missing_version(api: httpx.Client) -> None:
    agent = create_agent(api, scripted({"answer": "v1"}))
    v2 = api.patch(f"/api/v1/agents/{agent['id']}", json={"config": scripted({"answer": "v2"})}).json()
    by_version = api.post(f"/api/v1/agents/{v2['id']}/run", json={"query": "q", "version": 1}).json()
    assert by_version["agent_id"] == agent["id"]
    latest = api.post(f"/api/v1/agents/{agent['id']}/run", json={"query": "q"}).json()
    assert latest["agent_id"] == v2["id"]
    assert api.post(f"/api/v1/agents/{agent['id']}/run", json={"query": "q", "version": 9}).status_code == 404
    api.patch(f"/api/v1/agents/{agent['id']}", json={"is_active": False})
    inactive = api.post(f"/api/v1/agents/{agent['id']}/run", json={"query": "q"})
    assert inactive.status_code == 403 and set(inactive.json()) == {"error"}
    api.delete(f"/api/v1/agents/{agent['id']}")
    assert api.post(f"/api/v1/agents/{agent['id']}/run", json={"query": "q"}).status_code == 404
