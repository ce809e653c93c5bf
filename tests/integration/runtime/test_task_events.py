"""GET /api/v1/tasks/{id}/events: live events over HTTP, resumable with Last-Event-ID."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support.agents import ask, create_agent, feed, scripted, start, wait_status
from tests.support.sse import Event, events

pytestmark = pytest.mark.integration


def _stream_id(event_id: str) -> tuple[int, int]:
    ms, seq = event_id.split("-")
    return int(ms), int(seq)


def _as_events(task_id: str, items: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """What the events endpoint should say for these feed items."""
    out: list[tuple[str, dict[str, Any]]] = []
    for item in items:
        if item["type"] == "status_changed":
            data = {k: item[k] for k in ("from", "to", "created_at", "seq")} | {"task_id": task_id}
            out.append(("status", data))
        else:
            out.append(("feed", item))
    return out


def test_events_arrive_in_order_end_once_and_resume_without_loss(api: httpx.Client) -> None:
    agent = create_agent(
        api, scripted({"tool_calls": [{"name": "no_such_tool", "arguments": {}}]}, {"answer": "Hi"})
    )
    task_id = start(api, agent["id"])
    received = events(api, task_id)
    assert received[-1].type == "end" and received[-1].data == {"task_id": task_id, "status": "completed"}
    body = received[:-1]
    ids = [_stream_id(e.id) for e in body]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert received[-1].id == body[-1].id
    # The events are the feed, in the feed's order, status changes reshaped.
    assert [(e.type, e.data) for e in body] == _as_events(task_id, feed(api, task_id))
    statuses = [(e.data["from"], e.data["to"]) for e in body if e.type == "status"]
    assert statuses == [("pending", "running"), ("running", "completed")]

    # Resuming after any event gives exactly the ones after it, `end` included.
    middle = len(body) // 2
    resumed = events(api, task_id, last_event_id=body[middle].id)
    assert [(e.id, e.type) for e in resumed] == [(e.id, e.type) for e in received[middle + 1 :]]
    # The same through the query parameter; after `end`, only `end` again.
    reply = api.get(f"/api/v1/tasks/{task_id}/events", params={"last_event_id": received[-1].id})
    assert reply.status_code == 200
    assert reply.text == (
        f'id: {received[-1].id}\nevent: end\ndata: {{"task_id":"{task_id}","status":"completed"}}\n\n'
    )


def test_invalid_resume_points_and_other_workspaces_are_refused(api: httpx.Client, service: Service) -> None:
    agent = create_agent(api, scripted({"answer": "ok"}))
    task_id = start(api, agent["id"])
    for headers, params in (({"Last-Event-ID": "yesterday"}, {}), ({}, {"last_event_id": "12-x"})):
        bad = api.get(f"/api/v1/tasks/{task_id}/events", headers=headers, params=params)
        assert bad.status_code == 400 and set(bad.json()) == {"error"}, bad.text
    with service.client(service.key()) as stranger:
        foreign = stranger.get(f"/api/v1/tasks/{task_id}/events")
        assert foreign.status_code == 403 and set(foreign.json()) == {"error"}
        missing = stranger.get(f"/api/v1/tasks/{uuid.uuid4()}/events")
        assert missing.status_code == 404
    assert (
        api.get(f"/api/v1/tasks/{task_id}/events", headers={"Authorization": "Bearer nope"}).status_code
        == 401
    )


def test_a_waiting_task_keeps_its_stream_open_until_the_reply_moves_it_on(
    api: httpx.Client, service: Service, api_key: str
) -> None:
    agent = create_agent(api, scripted(ask("Your name?"), {"answer": "Hello {{last_user_message}}"}))
    task_id = start(api, agent["id"])
    replied: list[str] = []

    def reply_when_waiting(event: Event) -> None:
        if event.type == "status" and event.data["to"] == "waiting_for_input" and not replied:
            with service.client(api_key) as other:
                answer = other.post(f"/api/v1/tasks/{task_id}/message", json={"message": "Grace"})
                assert answer.status_code == 200, answer.text
            replied.append(event.id)

    received = events(api, task_id, on_event=reply_when_waiting)
    assert replied, "the stream never showed waiting_for_input"
    after_wait = received[[e.id for e in received].index(replied[0]) + 1 :]
    statuses = [e.data["to"] for e in after_wait if e.type == "status"]
    assert statuses[0] in ("running", "queued") and statuses[-1] == "completed"
    replies = [e.data for e in after_wait if e.type == "feed" and e.data["type"] == "user_message"]
    assert replies and replies[0]["text"] == "Grace"
    assert received[-1].type == "end" and received[-1].data["status"] == "completed"


def test_a_parent_stream_nests_its_childrens_events_without_touching_its_feed(api: httpx.Client) -> None:
    worker = create_agent(api, scripted({"answer": "done: {{query}}"}))
    lead = create_agent(
        api,
        scripted(
            {
                "tool_calls": [
                    {
                        "name": "delegate_tasks",
                        "arguments": {
                            "tasks": [{"agent_group_id": worker["agent_group_id"], "prompt": "greet"}]
                        },
                    }
                ]
            },
            {"answer": "lead: {{last_tool_result.children.0.output}}"},
        ),
    )
    parent_id = start(api, lead["id"])
    received = events(api, parent_id, read_timeout=90)
    assert received[-1].type == "end" and received[-1].data["status"] == "completed"
    assert api.get(f"/api/v1/tasks/{parent_id}/summary").json()["summary"] == "lead: done: greet"

    nested = [e.data for e in received if e.type == "child"]
    child_ids = {d["task_id"] for d in nested}
    assert len(child_ids) == 1
    (child_id,) = child_ids
    child_statuses = [d["data"]["to"] for d in nested if d["event"] == "status"]
    assert child_statuses[0] in ("running", "queued") and child_statuses[-1] == "completed"
    assert all(d["data"]["task_id"] == child_id for d in nested if d["event"] == "status")
    child_feed = [d["data"] for d in nested if d["event"] == "feed"]
    assert child_feed[0]["type"] == "user_message" and child_feed[0]["text"] == "greet"
    assert any(i["type"] == "assistant_message" and i["text"] == "done: greet" for i in child_feed)
    # The child's own stream says the same, and the parent's feed holds only the parent's items.
    own = [e for e in events(api, child_id) if e.type != "end"]
    assert [(e.type, e.data) for e in own] == [(d["event"], d["data"]) for d in nested]
    parent_feed = feed(api, parent_id)
    assert [i["seq"] for i in parent_feed] == list(range(1, len(parent_feed) + 1))
    assert [(e.type, e.data) for e in received if e.type in ("status", "feed")] == _as_events(
        parent_id, parent_feed
    )
    wait_status(api, child_id)
