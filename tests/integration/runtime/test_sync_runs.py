"""`async=false`: selectors, outcomes, result statuses and the 201 fallback."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from core.infra.store import async_client
from serve.waiters import request_drain
from tests.integration.conftest import Service
from tests.support.agents import ask, create_agent, run_sync, scripted, start, wait_status

pytestmark = pytest.mark.integration

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}}


def test_every_selector(api: httpx.Client, placement: str) -> None:
    agent = create_agent(
        api,
        scripted(
            {"tool_calls": [{"name": "ask_user", "arguments": {"question": "q"}}]},
            {"answer": "fine", "structured": {"name": "Ada", "__internal": 1}},
            placement=placement,
            output_schema=SCHEMA,
        ),
    )
    paused = run_sync(api, agent["id"], result="summary")
    assert paused.status_code == 202, paused.text
    body = paused.json()
    assert body["outcome"] == "result_unavailable" and body["status"] == "waiting_for_input"
    assert body["result_status"] == "processing" and "result" not in body
    assert body["wait_budget_seconds"] == 45 and body["result_selector"] == "summary"
    api.post(f"/api/v1/tasks/{body['task_id']}/message", json={"message": "hi"})
    wait_status(api, body["task_id"])

    def sync(result: str) -> dict:
        response = run_sync(api, agent["id"], result=result)
        return response.json() | {"_code": response.status_code}

    agent2 = create_agent(
        api,
        scripted(
            {"tool_calls": [{"name": "ask_user", "arguments": {}}], "answer": "calling"},
            {"answer": "fine", "structured": {"name": "Ada"}},
            placement=placement,
            output_schema=SCHEMA,
        ),
    )
    structured = run_sync(api, agent2["id"], result="structured").json()
    assert structured["outcome"] == "terminal" and structured["result"] == {"name": "Ada"}
    assert structured["result_status"] == "completed"
    feed = run_sync(api, agent2["id"], result="feed").json()
    assert isinstance(feed["result"], list) and feed["result"][0]["type"] == "user_message"
    tool = run_sync(api, agent2["id"], result="tool:ask_user").json()
    assert tool["result_status"] == "not_found" and "result" not in tool
    summary = run_sync(api, agent2["id"], result="summary")
    assert summary.status_code == 200 and summary.json()["result"] == "fine"


def test_tool_selector_returns_the_last_successful_output(api: httpx.Client) -> None:
    agent = create_agent(api, scripted(ask("first?"), {"answer": "ok"}))
    task_id = start(api, agent["id"])
    wait_status(api, task_id, "waiting_for_input")
    api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "Bob"})
    wait_status(api, task_id)
    agent_b = create_agent(
        api, scripted(ask("first?"), {"answer": "ok"}, settings={"sync_result": "tool:ask_user"})
    )
    response = run_sync(api, agent_b["id"])
    assert response.status_code == 202 and response.json()["result_selector"] == "tool:ask_user"


def test_failed_and_stopped_runs_answer_200(api: httpx.Client) -> None:
    failing = create_agent(api, scripted({"error": "no"}, settings={"max_retries": 0}))
    failed = run_sync(api, failing["id"], result="summary")
    assert failed.status_code == 200
    assert failed.json()["status"] == "failed" and failed.json()["result_status"] == "failed"


def test_budget_expired(api: httpx.Client) -> None:
    agent = create_agent(api, scripted({"delay_seconds": 120, "answer": "slow"}))
    response = run_sync(api, agent["id"], result="summary")
    assert response.status_code == 202
    body = response.json()
    assert body["outcome"] == "budget_expired" and body["status"] == "running"
    assert body["result_status"] == "processing"
    api.post(f"/api/v1/tasks/{body['task_id']}/cancel")


def test_too_large_result_is_omitted_with_its_size(api: httpx.Client) -> None:
    # Request bodies are capped at 1 MiB (AGENTRY_MAX_JSON_BODY_BYTES, and a form field likewise), so
    # the answer doubles a query of 600 KiB into a result over the 1 MiB reply cap.
    query = "x" * (600 * 1024)
    big = query * 2
    agent = create_agent(api, scripted({"answer": "{{query}}{{query}}"}))
    response = run_sync(api, agent["id"], query, result="summary")
    assert response.status_code == 200
    body = response.json()
    assert (
        body["result_status"] == "too_large" and body["result_bytes"] > 1024 * 1024 and "result" not in body
    )
    summary = api.get(f"/api/v1/tasks/{body['task_id']}/summary").json()
    assert len(summary["summary"]) == len(big)


def test_stored_sync_result_and_structured_degrade(api: httpx.Client) -> None:
    agent = create_agent(api, scripted({"answer": "a"}, settings={"sync_result": "summary"}))
    response = run_sync(api, agent["id"])
    assert response.json()["result_selector"] == "summary" and response.json()["result"] == "a"
    override = run_sync(api, agent["id"], result="feed").json()
    assert override["result_selector"] == "feed"
    degrade = create_agent(api, scripted({"answer": "b"}, settings={"sync_result": "structured"}))
    body = run_sync(api, degrade["id"]).json()
    assert body["result_selector"] == "feed" and isinstance(body["result"], list)


def test_400_cases_create_nothing(api: httpx.Client) -> None:
    agent = create_agent(api, scripted({"answer": "a"}))
    before = api.get("/api/v1/tasks", params={"agent_group_id": agent["agent_group_id"]}).json()["data"]
    cases = [
        {"async": "maybe"},
        {"async": "false"},
        {"async": "false", "result": "structured"},
        {"async": "false", "result": "everything"},
        {"async": "false", "result": "tool:"},
        {"include_citations": "yes"},
    ]
    for params in cases:
        response = api.post(f"/api/v1/agents/{agent['id']}/run", params=params, json={"query": "q"})
        assert response.status_code == 400, (params, response.text)
        assert set(response.json()) == {"error"}
    for body in ({}, {"query": "q", "version": "x"}, {"query": "q", "source": "elsewhere"}, {"query": 5}):
        assert api.post(f"/api/v1/agents/{agent['id']}/run", json=body).status_code == 400, body
    assert (
        api.post(
            f"/api/v1/agents/{agent['id']}/run", json={"query": "q", "output_config": "nope"}
        ).status_code
        == 400
    )
    after = api.get("/api/v1/tasks", params={"agent_group_id": agent["agent_group_id"]}).json()["data"]
    assert after == before == []


def test_multipart_body_and_output_config(api: httpx.Client) -> None:
    agent = create_agent(api, scripted({"answer": "m", "structured": {"name": "x"}}))
    response = api.post(
        f"/api/v1/agents/{agent['id']}/run",
        params={"async": "false", "result": "structured"},
        data={"query": "hello", "output_config": '{"output_schema": {"type": "object"}}', "source": "test"},
        files={"unused": ("a.txt", b"x", "text/plain")},
    )
    assert response.status_code == 200, response.text
    assert response.json()["result"] == {"name": "x"}
    test_tasks = api.get(
        "/api/v1/tasks", params={"bucket": "test", "agent_group_id": agent["agent_group_id"]}
    )
    assert [t["task_id"] for t in test_tasks.json()["data"]] == [response.json()["task_id"]]


def test_fallback_201_when_queued_or_sync_disabled(api: httpx.Client) -> None:
    agent = create_agent(
        api, scripted({"delay_seconds": 3, "answer": "a"}, settings={"max_concurrent_tasks": 1})
    )
    first = start(api, agent["id"])
    queued = run_sync(api, agent["id"], result="summary")
    assert queued.status_code == 201 and queued.headers["X-Sync-Budget-Seconds"] == "0"
    assert queued.json()["status"] == "queued"
    api.post(f"/api/v1/tasks/{first}/cancel")
    wait_status(api, queued.json()["task_id"])


async def test_fifty_concurrent_held_requests(service: Service, api_key: str) -> None:
    headers = {"Authorization": f"Bearer {api_key}"}
    async with httpx.AsyncClient(base_url=service.url, headers=headers, timeout=60) as client:
        created = await client.post(
            "/api/v1/agents",
            # Pooled runners: the point is the replica holding 50 requests, not 50 process starts.
            json={
                "config": scripted(
                    {"delay_seconds": 1, "answer": "{{query}}"},
                    settings={"max_concurrent_tasks": 60, "placement": "pooled"},
                )
            },
        )
        agent_id = created.json()["id"]
        responses = await asyncio.gather(
            *(
                client.post(
                    f"/api/v1/agents/{agent_id}/run",
                    params={"async": "false", "result": "summary"},
                    json={"query": f"n{i}"},
                )
                for i in range(50)
            )
        )
    assert [r.status_code for r in responses] == [200] * 50
    assert sorted(r.json()["result"] for r in responses) == sorted(f"n{i}" for i in range(50))


async def test_draining_answers_held_requests(service: Service, api_key: str) -> None:
    headers = {"Authorization": f"Bearer {api_key}"}
    async with httpx.AsyncClient(base_url=service.url, headers=headers, timeout=60) as client:
        created = await client.post(
            "/api/v1/agents", json={"config": scripted({"delay_seconds": 30, "answer": "a"})}
        )
        held = asyncio.create_task(
            client.post(
                f"/api/v1/agents/{created.json()['id']}/run",
                params={"async": "false", "result": "summary"},
                json={"query": "q"},
            )
        )
        await asyncio.sleep(1.0)
        redis = async_client(service.redis_url)
        try:
            await request_drain(redis)
        finally:
            await redis.aclose()
        response = await asyncio.wait_for(held, timeout=5)
    assert response.status_code == 202 and response.json()["outcome"] == "draining"
    assert response.json()["status"] == "running"
