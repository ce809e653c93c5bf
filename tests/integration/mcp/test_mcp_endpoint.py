"""Agentry as an MCP server: the official SDK's client against `/mcp` of the real service (real Redis,
Ray and Serve), running agents and an extraction inside the key's workspace."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from tests.integration.conftest import Service
from tests.integration.extraction.conftest import upload
from tests.support import documents
from tests.support.agents import create_agent, scripted
from tests.support.service import wait_for

pytestmark = pytest.mark.integration

T = TypeVar("T")


@pytest.fixture
def key(service: Service) -> str:
    return service.key()


@pytest.fixture
def ws_api(service: Service, key: str) -> Iterator[httpx.Client]:
    with service.client(key) as client:
        yield client


def with_session(service: Service, key: str, work: Callable[[ClientSession], Awaitable[T]]) -> T:
    async def run() -> T:
        headers = {"Authorization": f"Bearer {key}"}
        async with (
            httpx.AsyncClient(headers=headers, timeout=120) as http,
            streamable_http_client(f"{service.url}/mcp", http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await work(session)

    return asyncio.run(run())


def call(service: Service, key: str, name: str, arguments: dict[str, Any]) -> CallToolResult:
    return with_session(service, key, lambda s: s.call_tool(name, arguments))


def poll_until_completed(service: Service, key: str, task_id: str) -> dict[str, Any]:
    def finished() -> dict[str, Any] | None:
        polled = call(service, key, "get_task", {"task_id": task_id}).structuredContent
        return polled if polled and polled["status"] == "completed" else None

    return wait_for(finished, timeout=120, interval=0.5, what=f"task {task_id} through get_task")


def tool_names(service: Service, key: str) -> dict[str, Any]:
    async def listed(session: ClientSession) -> dict[str, Any]:
        return {t.name: t for t in (await session.list_tools()).tools}

    return with_session(service, key, listed)


def test_the_workspaces_agents_are_tools_and_run_to_their_answer(
    service: Service, key: str, ws_api: httpx.Client
) -> None:
    create_agent(ws_api, scripted({"answer": "echo: {{query}}", "structured": {"ok": True}}), name="Echo Bot")
    with service.client(service.key()) as other:
        create_agent(other, scripted({"answer": "x"}), name="Not Yours")
    tools = tool_names(service, key)
    (echo,) = [name for name in tools if name.startswith("agent_echo_bot_")]
    assert not any(name.startswith("agent_not_yours") for name in tools)
    assert {"get_task", "parse", "extract"} <= set(tools)
    assert tools[echo].inputSchema["properties"]["query"]["type"] == "string"

    result = call(service, key, echo, {"query": "hi", "input": {"order": "A-1"}})
    assert not result.isError, result
    answer = result.structuredContent
    assert answer is not None
    if answer["status"] != "completed":
        # A loaded machine may take longer than the call waits: then the client polls, as any does.
        answer = poll_until_completed(service, key, answer["task_id"])
    assert answer["answer"].startswith("echo: hi") and '"order": "A-1"' in answer["answer"]
    assert answer["structured"] == {"ok": True}
    # The task is the workspace's own, visible through the API too.
    assert ws_api.get(f"/api/v1/tasks/{answer['task_id']}").json()["status"] == "completed"
    # Another workspace's key cannot read it.
    other_read = call(service, service.key(), "get_task", {"task_id": answer["task_id"]})
    assert other_read.isError and "another workspace" in other_read.content[0].text  # type: ignore[union-attr]


def test_a_long_run_returns_its_task_id_and_the_client_polls_get_task(
    service: Service, key: str, ws_api: httpx.Client
) -> None:
    create_agent(ws_api, scripted({"delay_seconds": 2, "answer": "slow answer"}), name="Slow")
    (slow,) = [name for name in tool_names(service, key) if name.startswith("agent_slow_")]
    started = call(service, key, slow, {"query": "go", "wait_seconds": 0})
    assert not started.isError and started.structuredContent is not None
    assert started.structuredContent["status"] in ("running", "pending", "queued")
    done = poll_until_completed(service, key, started.structuredContent["task_id"])
    assert done["answer"] == "slow answer"


def test_parse_and_extract_run_on_an_uploaded_file(service: Service, key: str, ws_api: httpx.Client) -> None:
    form = {"invoice_number": "INV-7", "customer_name": "Ada Lovelace"}
    file_id = upload(ws_api, documents.pdf_form(form), "form.pdf")["file_id"]
    parsed = call(service, key, "parse", {"input": file_id})
    assert not parsed.isError and parsed.structuredContent is not None, parsed
    assert parsed.structuredContent["status"] in ("completed", "processing")
    extracted = call(
        service,
        key,
        "extract",
        {"input": file_id, "extraction_config": {"json_options": list(form), "prompt_mode": "rules"}},
    )
    body = extracted.structuredContent
    assert not extracted.isError and body is not None, extracted
    if body["status"] == "processing":
        body = wait_for(
            lambda: (
                (r := ws_api.get(f"/api/v2/jobs/{body['record_id']}").json())["status"] != "processing" and r
            ),
            timeout=180,
            what="the extraction job",
        )
    assert body["result"]["data"] == form
    bad = call(service, key, "extract", {"input": file_id})
    assert bad.isError and "extraction_config" in bad.content[0].text  # type: ignore[union-attr]


def test_mcp_needs_a_key(service: Service) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream"}
    answer = httpx.post(f"{service.url}/mcp", json=body, headers=headers, timeout=30)
    assert answer.status_code == 401 and "error" in answer.json()
    wrong = httpx.post(
        f"{service.url}/mcp", json=body, headers=headers | {"Authorization": "Bearer agk_x_y"}, timeout=30
    )
    assert wrong.status_code == 401 and json.dumps(wrong.json())


def test_mcp_shares_the_keys_rate_limit_with_the_api(service: Service) -> None:
    key = service.key(rate_limit="3/minute")
    headers = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {key}"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    with httpx.Client(base_url=service.url, headers=headers, timeout=30) as api:
        assert api.get("/api/v1/agents").status_code == 200
        listed = api.post("/mcp", json=body)
        assert listed.status_code == 200, listed.text
        assert {t["name"] for t in listed.json()["result"]["tools"]} == {"get_task", "parse", "extract"}
        assert api.post("/mcp", json=body).status_code == 200
        limited = api.post("/mcp", json=body)
    assert limited.status_code == 429 and "Retry-After" in limited.headers and "error" in limited.json()
