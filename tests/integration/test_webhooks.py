"""Webhooks through HTTP: subscriptions, signed deliveries of task and job events, retries, isolation."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support import documents
from tests.support.agents import ask, create_agent, scripted, start, wait_status
from tests.support.service import wait_for
from tests.support.webhook_receiver import Received, Receiver, receiver

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def hooks() -> Iterator[Receiver]:
    with receiver() as server:
        yield server


@pytest.fixture
def api(service: Service) -> Iterator[httpx.Client]:
    # A workspace per test: each test's subscriptions see only its own events.
    with service.client(service.key()) as client:
        yield client


def subscribe(api: httpx.Client, url: str, *events: str) -> dict[str, Any]:
    reply = api.post("/api/v1/webhooks", json={"url": url, "events": list(events), "description": "test"})
    assert reply.status_code == 201, reply.text
    return dict(reply.json())


def deliveries(api: httpx.Client, webhook_id: str) -> list[dict[str, Any]]:
    reply = api.get(f"/api/v1/webhooks/{webhook_id}/deliveries", params={"limit": 100})
    assert reply.status_code == 200, reply.text
    return list(reply.json()["data"])


def arrived(hooks: Receiver, path: str, count: int = 1) -> list[Received]:
    return wait_for(lambda: (got := hooks.at(path)) and len(got) >= count and got, timeout=60, what=path)


def test_subscriptions_are_created_listed_read_and_deleted(api: httpx.Client, hooks: Receiver) -> None:
    created = subscribe(api, hooks.url("/crud"), "task.completed", "task.failed", "task.completed")
    assert set(created) == {"id", "url", "events", "description", "created_at", "secret"}
    assert created["secret"].startswith("whsec_") and created["events"] == ["task.completed", "task.failed"]
    shown = api.get(f"/api/v1/webhooks/{created['id']}").json()
    assert shown == {k: v for k, v in created.items() if k != "secret"}
    second = subscribe(api, hooks.url("/crud2"), "extraction.job.completed")
    first_page = api.get("/api/v1/webhooks", params={"limit": 1}).json()
    assert [w["id"] for w in first_page["data"]] == [second["id"]] and first_page["has_more"]
    rest = api.get("/api/v1/webhooks", params={"cursor": first_page["next_cursor"]}).json()
    assert [w["id"] for w in rest["data"]] == [created["id"]] and not rest["has_more"]
    assert "secret" not in rest["data"][0] and "secret_sealed" not in rest["data"][0]
    assert deliveries(api, created["id"]) == []
    gone = api.delete(f"/api/v1/webhooks/{created['id']}")
    assert gone.status_code == 200 and gone.json() == {"id": created["id"], "deleted": True}
    assert api.get(f"/api/v1/webhooks/{created['id']}").status_code == 404
    assert api.get(f"/api/v1/webhooks/{uuid.uuid4()}").status_code == 404
    assert api.get("/api/v1/webhooks/not-a-uuid").status_code == 400


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"url": "http://127.0.0.1:9/x", "events": ["task.exploded"]}, "unknown webhook events"),
        ({"url": "http://127.0.0.1:9/x", "events": []}, "at least one"),
        ({"url": "ftp://example.org/x", "events": ["task.completed"]}, "http or https"),
        ({"url": "http://user:pw@127.0.0.1/x", "events": ["task.completed"]}, "user name"),
        # Refused even where private addresses are allowed (as they are in this test service).
        ({"url": "http://169.254.169.254/latest", "events": ["task.completed"]}, "metadata"),
        ({"url": "http://127.0.0.1:9/x", "events": ["task.completed"], "secret": "x"}, "secret"),
    ],
)
def test_invalid_subscriptions_are_refused(api: httpx.Client, body: dict[str, Any], fragment: str) -> None:
    reply = api.post("/api/v1/webhooks", json=body)
    assert reply.status_code == 400 and set(reply.json()) == {"error"}, reply.text
    assert fragment in reply.json()["error"]


def test_other_workspaces_cannot_see_or_touch_a_subscription(
    api: httpx.Client, service: Service, hooks: Receiver
) -> None:
    created = subscribe(api, hooks.url("/mine"), "task.completed")
    with service.client(service.key()) as stranger:
        for method, path in (
            ("GET", f"/api/v1/webhooks/{created['id']}"),
            ("GET", f"/api/v1/webhooks/{created['id']}/deliveries"),
            ("DELETE", f"/api/v1/webhooks/{created['id']}"),
        ):
            reply = stranger.request(method, path)
            assert reply.status_code == 403 and set(reply.json()) == {"error"}, (method, path, reply.text)
        assert stranger.get("/api/v1/webhooks").json()["data"] == []
    assert api.get(f"/api/v1/webhooks/{created['id']}").status_code == 200


def test_a_completed_task_is_delivered_once_signed(api: httpx.Client, hooks: Receiver) -> None:
    hook = subscribe(api, hooks.url("/done"), "task.completed")
    agent = create_agent(api, scripted({"answer": "Hi"}), name="Greeter")
    task_id = start(api, agent["id"], "hello")
    (got,) = arrived(hooks, "/done")
    assert got.signed_by(hook["secret"]) and not got.signed_by("whsec_other")
    assert (
        got.headers["x-agentry-event"] == "task.completed"
        and got.headers["content-type"] == "application/json"
    )
    body = got.json
    assert body["type"] == "task.completed" and body["id"] and body["created_at"]
    data = body["data"]
    assert data["task_id"] == task_id and data["status"] == "completed" and data["agent_name"] == "Greeter"
    assert data["error"] is None and "summary" not in data and "query" not in data
    (attempt,) = wait_for(lambda: deliveries(api, hook["id"]), what="the attempt's record")
    assert attempt["delivery_id"] == got.headers["x-agentry-delivery"] and attempt["event_id"] == body["id"]
    assert (
        attempt["event"] == "task.completed" and attempt["attempt"] == 1 and attempt["outcome"] == "succeeded"
    )
    assert attempt["status_code"] == 200 and attempt["error"] is None and attempt["next_attempt_at"] is None
    assert attempt["duration_ms"] >= 0 and attempt["started_at"] <= attempt["finished_at"]
    assert wait_status(api, task_id)["status"] == "completed"
    assert len(hooks.at("/done")) == 1


def test_a_question_is_delivered_with_its_pause(api: httpx.Client, hooks: Receiver) -> None:
    hook = subscribe(api, hooks.url("/ask"), "task.waiting_for_input", "task.completed")
    agent = create_agent(api, scripted(ask("Your name?"), {"answer": "Hello {{last_user_message}}"}))
    task_id = start(api, agent["id"])
    (waiting,) = arrived(hooks, "/ask")
    assert waiting.signed_by(hook["secret"]) and waiting.json["type"] == "task.waiting_for_input"
    assert waiting.json["data"]["status"] == "waiting_for_input"
    assert waiting.json["data"]["pause"]["kind"] == "ask_user"
    assert waiting.json["data"]["pause"]["question"] == "Your name?"
    assert api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "Ada"}).status_code == 200
    first, done = arrived(hooks, "/ask", 2)
    assert done.json["type"] == "task.completed" and done.json["data"]["pause"] is None
    assert done.headers["x-agentry-delivery"] != first.headers["x-agentry-delivery"]


def test_a_failing_receiver_is_retried_and_every_attempt_recorded(api: httpx.Client, hooks: Receiver) -> None:
    hooks.answers["/flaky"] = [500]
    hook = subscribe(api, hooks.url("/flaky"), "task.completed")
    agent = create_agent(api, scripted({"answer": "ok"}))
    start(api, agent["id"])
    failed, succeeded = arrived(hooks, "/flaky", 2)
    assert (failed.status, succeeded.status) == (500, 200)
    assert (
        failed.body == succeeded.body
        and failed.signed_by(hook["secret"])
        and succeeded.signed_by(hook["secret"])
    )
    assert failed.headers["x-agentry-delivery"] == succeeded.headers["x-agentry-delivery"]
    newest, oldest = wait_for(lambda: len(d := deliveries(api, hook["id"])) == 2 and d, what="two attempts")
    assert (oldest["attempt"], oldest["outcome"], oldest["status_code"]) == (1, "retrying", 500)
    assert oldest["next_attempt_at"] > oldest["finished_at"]
    assert (newest["attempt"], newest["outcome"], newest["status_code"]) == (2, "succeeded", 200)
    assert newest["delivery_id"] == oldest["delivery_id"] and newest["event_id"] == oldest["event_id"]
    page = api.get(f"/api/v1/webhooks/{hook['id']}/deliveries", params={"limit": 1}).json()
    assert [a["id"] for a in page["data"]] == [newest["id"]] and page["has_more"]
    after = api.get(
        f"/api/v1/webhooks/{hook['id']}/deliveries", params={"cursor": page["next_cursor"]}
    ).json()
    assert [a["id"] for a in after["data"]] == [oldest["id"]] and not after["has_more"]


def test_an_async_extraction_job_is_delivered_when_it_completes(api: httpx.Client, hooks: Receiver) -> None:
    hook = subscribe(api, hooks.url("/jobs"), "extraction.job.completed")
    upload = api.post("/api/v2/files", files={"file": ("notes.docx", documents.docx(["Heading", "Body"]))})
    assert upload.status_code == 200, upload.text
    queued = api.post("/api/v2/parse/async", json={"input": upload.json()["file_id"]})
    assert queued.status_code == 200, queued.text
    record_id = queued.json()["record_id"]
    (got,) = arrived(hooks, "/jobs")
    assert got.signed_by(hook["secret"]) and got.json["type"] == "extraction.job.completed"
    data = got.json["data"]
    assert data["record_id"] == record_id and data["status"] == "completed" and data["kind"] == "parse"
    assert data["filename"] == "notes.docx" and "result" not in data
