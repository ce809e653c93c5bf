"""Failure policy, spend cap, reviews and admission control."""

from __future__ import annotations

import httpx
import pytest

from tests.support.agents import ask, create_agent, feed, of_type, scripted, start, task, wait_status

pytestmark = pytest.mark.integration


def test_ask_user_policy_pauses_with_a_failure_item_and_reply_retries(
    api: httpx.Client, placement: str
) -> None:
    agent = create_agent(
        api,
        scripted(
            {"error": "down"},
            {"answer": "back"},
            placement=placement,
            on_failure="ask_user",
            settings={"max_retries": 0, "placement": placement},
        ),
    )
    task_id = start(api, agent["id"])
    paused = wait_status(api, task_id, "waiting_for_input")
    assert paused["pause"]["kind"] == "failure_pause"
    item = of_type(feed(api, task_id), "message_sent")[-1]
    assert item["kind"] == "failure_pause" and "down" in item["text"]
    api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "try again"})
    assert wait_status(api, task_id)["status"] == "completed"


def test_fail_policy_and_unattended_agents_fail(api: httpx.Client) -> None:
    failing = create_agent(api, scripted({"error": "down"}, settings={"max_retries": 0}))
    assert wait_status(api, start(api, failing["id"]))["status"] == "failed"
    unattended = create_agent(
        api,
        scripted(
            {"error": "down"}, on_failure="ask_user", settings={"max_retries": 0, "disable_ask_user": True}
        ),
    )
    done = wait_status(api, start(api, unattended["id"]))
    assert done["status"] == "failed" and "down" in done["error"]


def test_retries_consume_turns_before_the_policy_applies(api: httpx.Client) -> None:
    agent = create_agent(api, scripted({"error": "1"}, {"error": "2"}, {"error": "3"}, {"answer": "never"}))
    done = wait_status(api, start(api, agent["id"]))
    assert done["status"] == "failed" and "3" in done["error"]


def test_spend_cap_pauses_whatever_on_failure_says_and_again_while_it_persists(api: httpx.Client) -> None:
    agent = create_agent(
        api,
        scripted(
            ask() | {"usage": {"cost_usd": 0.5}},
            {"answer": "never reached"},
            on_failure="fail",
            settings={"spend_cap_usd": 0.25},
        ),
    )
    task_id = start(api, agent["id"])
    paused = wait_status(api, task_id, "waiting_for_input")
    assert paused["pause"] == {
        "kind": "failure_pause",
        "reason": "task_spend_cap_exceeded",
        "question": "the task's spend cap is exceeded",
    }
    api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "go on"})
    again = wait_status(api, task_id, "waiting_for_input")
    assert again["pause"]["reason"] == "task_spend_cap_exceeded"
    pauses = [
        i for i in of_type(feed(api, task_id), "message_sent") if i.get("reason") == "task_spend_cap_exceeded"
    ]
    assert len(pauses) == 2
    assert again["usage"]["cost_usd"] == 0.5


def test_stopped_during_error_handling_stays_stopped(api: httpx.Client) -> None:
    agent = create_agent(
        api,
        scripted(
            {"delay_seconds": 2, "error": "late failure"}, on_failure="ask_user", settings={"max_retries": 0}
        ),
    )
    task_id = start(api, agent["id"])
    wait_status(api, task_id, "running")
    api.post(f"/api/v1/tasks/{task_id}/cancel")
    done = wait_status(api, task_id)
    assert done["status"] == "stopped" and done["pause"] is None
    import time

    deadline = time.monotonic() + 4
    while time.monotonic() < deadline:
        assert task(api, task_id)["status"] == "stopped"
        time.sleep(0.5)


def test_review_approve_and_reject(api: httpx.Client, placement: str) -> None:
    config = scripted(
        {"tool_calls": [{"name": "ask_user", "arguments": {"question": "sure?"}}]},
        {"answer": "after: {{last_tool_result}}"},
        placement=placement,
        review_tools=["ask_user"],
    )
    agent = create_agent(api, config)
    task_id = start(api, agent["id"])
    waiting = wait_status(api, task_id, "awaiting_review")
    pending = waiting["pause"]["pending_tool_call"]
    assert waiting["pause"]["kind"] == "review" and pending["tool_name"] == "ask_user"
    assert pending["arguments"] == {"question": "sure?"}
    assert api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "x"}).status_code == 409
    assert api.post(f"/api/v1/tasks/{task_id}/review", json={"decision": "maybe"}).status_code == 400
    approved = api.post(f"/api/v1/tasks/{task_id}/review", json={"decision": "approve"})
    assert approved.status_code == 200
    asked = wait_status(api, task_id, "waiting_for_input")
    assert asked["pause"]["question"] == "sure?"
    assert api.post(f"/api/v1/tasks/{task_id}/review", json={"decision": "approve"}).status_code == 409

    rejected_task = start(api, agent["id"])
    wait_status(api, rejected_task, "awaiting_review")
    api.post(f"/api/v1/tasks/{rejected_task}/review", json={"decision": "reject", "comment": "not now"})
    done = wait_status(api, rejected_task)
    assert done["status"] == "completed"
    result = of_type(feed(api, rejected_task), "tool_result")[0]
    assert result["status"] == "error" and "rejected" in result["error"] and "not now" in result["error"]
    decisions = [
        i["decision"]
        for i in of_type(feed(api, rejected_task), "message_sent")
        if i["kind"] == "review_decision"
    ]
    assert decisions == ["reject"]


def test_admission_queues_fifo_and_releases_on_pause_and_end(api: httpx.Client, placement: str) -> None:
    agent = create_agent(
        api,
        scripted(
            {"delay_seconds": 1, "answer": "ok"},
            placement=placement,
            settings={"max_concurrent_tasks": 1, "placement": placement},
        ),
    )
    ids = [start(api, agent["id"]) for _ in range(3)]
    statuses = [task(api, i)["status"] for i in ids]
    assert statuses[0] == "running" and statuses[1:] == ["queued", "queued"]
    for task_id in ids:
        assert wait_status(api, task_id)["status"] == "completed"
    started = []
    for task_id in ids:
        changes = of_type(feed(api, task_id), "status_changed")
        started.append(next(c["created_at"] for c in changes if c["to"] == "running"))
    assert started == sorted(started)

    pauser = create_agent(api, scripted(ask(), {"answer": "done"}, settings={"max_concurrent_tasks": 1}))
    first = start(api, pauser["id"])
    wait_status(api, first, "waiting_for_input")
    second = start(api, pauser["id"])
    assert wait_status(api, second, "waiting_for_input")["status"] == "waiting_for_input"
