"""Remote MCP servers over HTTP: the CRUD of `/api/v1/mcp-servers` and agents calling their tools
through the real runtime (real Redis, Ray and Serve; the SDK's own server on loopback, private URLs
allowed by the test service)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from core.infra import keys
from tests.integration.conftest import Service
from tests.support.agents import ask, create_agent, feed, of_type, scripted, start, task, wait_status
from tests.support.mcp_server import McpTestServer
from tests.support.service import run_async

pytestmark = pytest.mark.integration

LOOKUP = "mcp__orders__lookup_order"
REFUND = "mcp__orders__refund_order"
ADD = "mcp__orders__add"


@pytest.fixture(scope="module")
def mcp_server() -> Iterator[McpTestServer]:
    with McpTestServer() as server:
        yield server


@pytest.fixture
def ws_api(service: Service) -> Iterator[httpx.Client]:
    """A workspace of its own per test, so server names never collide."""
    with service.client(service.key()) as client:
        yield client


def add_server(api: httpx.Client, url: str, name: str = "orders", **body: Any) -> dict[str, Any]:
    response = api.post("/api/v1/mcp-servers", json={"name": name, "url": url} | body)
    assert response.status_code == 201, response.text
    return dict(response.json())


def summary(api: httpx.Client, task_id: str) -> str:
    return str(api.get(f"/api/v1/tasks/{task_id}/summary").json()["summary"])


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def orders_agent(api: httpx.Client, *turns: dict[str, Any], **use: Any) -> dict[str, Any]:
    entry = {"server": "orders"} | use
    return create_agent(api, scripted(*turns, mcp_servers=[entry], settings={"max_retries": 1}))


def test_a_server_is_stored_sealed_listed_tested_patched_and_deleted(
    ws_api: httpx.Client, service: Service, mcp_server: McpTestServer
) -> None:
    token, header = "tok-very-secret-987", "hdr-very-secret-654"
    created = add_server(ws_api, mcp_server.url, bearer_token=token, headers={"X-Team": header})
    shown = json.dumps(created)
    assert token not in shown and header not in shown
    assert created["has_bearer_token"] is True and created["header_names"] == ["X-Team"]
    server_id = created["id"]

    async def raw_records(redis: Any) -> list[str]:
        found = [k async for k in redis.scan_iter(match=keys.mcp_server("*", server_id))]
        return [str(await redis.get(k)) for k in found]

    records = run_async(service.redis_url, raw_records)
    assert records and all(token not in r and header not in r for r in records)

    listed = ws_api.get("/api/v1/mcp-servers").json()["data"]
    assert [s["id"] for s in listed] == [server_id]
    assert ws_api.get(f"/api/v1/mcp-servers/{server_id}").json() == created

    tested = ws_api.post(f"/api/v1/mcp-servers/{server_id}/test").json()
    assert tested["ok"] is True, tested
    tools = {t["name"]: t for t in tested["tools"]}
    assert set(tools) == {"add", "lookup_order", "order_history", "refund_order"}
    assert tools["lookup_order"]["tool_name"] == LOOKUP
    assert tools["add"]["input_schema"]["required"] == ["a", "b"]

    renamed = ws_api.patch(f"/api/v1/mcp-servers/{server_id}", json={"name": "shop"})
    assert renamed.status_code == 200 and renamed.json()["name"] == "shop"
    assert renamed.json()["has_bearer_token"] is True
    # The old name is free again; the new one is taken.
    assert add_server(ws_api, mcp_server.url, name="orders")["name"] == "orders"
    taken = ws_api.post("/api/v1/mcp-servers", json={"name": "shop", "url": mcp_server.url})
    assert taken.status_code == 409 and "error" in taken.json()

    with service.client(service.key()) as other:
        for method, path in (
            ("GET", f"/api/v1/mcp-servers/{server_id}"),
            ("PATCH", f"/api/v1/mcp-servers/{server_id}"),
            ("DELETE", f"/api/v1/mcp-servers/{server_id}"),
            ("POST", f"/api/v1/mcp-servers/{server_id}/test"),
        ):
            answer = other.request(method, path, json={} if method == "PATCH" else None)
            assert answer.status_code == 404, (method, answer.text)
        assert other.get("/api/v1/mcp-servers").json()["data"] == []

    assert ws_api.delete(f"/api/v1/mcp-servers/{server_id}").json() == {"id": server_id, "deleted": True}
    assert ws_api.get(f"/api/v1/mcp-servers/{server_id}").status_code == 404


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"name": "Bad Name", "url": "http://127.0.0.1:1/mcp"}, "name"),
        ({"name": "a--b", "url": "http://127.0.0.1:1/mcp"}, "name"),
        ({"name": "meta", "url": "http://169.254.169.254/mcp"}, "metadata"),
        ({"name": "file", "url": "file:///etc/passwd"}, "http"),
        ({"name": "hdr", "url": "http://127.0.0.1:1/mcp", "headers": {"Host": "x"}}, "Host"),
        ({"name": "extra", "url": "http://127.0.0.1:1/mcp", "surprise": 1}, "surprise"),
    ],
)
def test_bad_servers_are_400(ws_api: httpx.Client, body: dict[str, Any], fragment: str) -> None:
    response = ws_api.post("/api/v1/mcp-servers", json=body)
    assert response.status_code == 400, response.text
    assert fragment in json.dumps(response.json()["error"])


def test_a_server_that_is_down_tests_not_ok(ws_api: httpx.Client) -> None:
    with McpTestServer() as gone:
        url = gone.url
    server = add_server(ws_api, url)
    tested = ws_api.post(f"/api/v1/mcp-servers/{server['id']}/test").json()
    assert tested["ok"] is False and "unreachable" in tested["error"]


def test_a_bad_mcp_servers_config_is_400(ws_api: httpx.Client) -> None:
    response = ws_api.post(
        "/api/v1/agents",
        json={"config": {"mcp_servers": [{"server": "orders", "require_approval": "maybe"}]}},
    )
    assert response.status_code == 400 and "require_approval" in json.dumps(response.json()["error"])


def test_an_agent_calls_two_tools_one_under_approval_and_approving_runs_it(
    ws_api: httpx.Client, mcp_server: McpTestServer
) -> None:
    add_server(ws_api, mcp_server.url)
    agent = orders_agent(
        ws_api,
        call(LOOKUP, order_id="A-100"),
        call(REFUND, order_id="A-100", amount=5),
        {"answer": "refunded: {{last_tool_result.structured.refunded}}"},
        allowed_tools=["lookup_order", "refund_order"],
        require_approval=["refund_order"],
    )
    before = len(mcp_server.tool_calls("refund_order"))
    task_id = start(ws_api, agent["id"])
    paused = wait_status(ws_api, task_id, "awaiting_review", "failed", "completed", timeout=90)
    assert paused["status"] == "awaiting_review", paused
    pending = paused["pause"]["pending_tool_call"]
    assert pending["tool_name"] == REFUND
    assert pending["arguments"] == {"order_id": "A-100", "amount": 5}
    assert pending["preview"] == {
        "server": "orders",
        "url": mcp_server.url,
        "tool": "refund_order",
        "arguments": {"order_id": "A-100", "amount": 5},
    }
    assert len(mcp_server.tool_calls("refund_order")) == before  # nothing ran before approval
    approved = ws_api.post(f"/api/v1/tasks/{task_id}/review", json={"decision": "approve"})
    assert approved.status_code == 200, approved.text
    done = wait_status(ws_api, task_id, timeout=90)
    assert done["status"] == "completed", done
    assert summary(ws_api, task_id).startswith("refunded: ")
    assert mcp_server.tool_calls("refund_order")[before:] == [{"order_id": "A-100", "amount": 5}]
    items = feed(ws_api, task_id)
    results = {r["tool_name"]: r for r in of_type(items, "tool_result")}
    assert (
        results[LOOKUP]["status"] == "ok" and results[LOOKUP]["output"]["structured"]["order_id"] == "A-100"
    )
    assert results[REFUND]["status"] == "ok"
    calls = of_type(items, "mcp_call")
    assert [(c["server"], c["tool"], c["outcome"]) for c in calls] == [
        ("orders", "lookup_order", "ok"),
        ("orders", "refund_order", "ok"),
    ]
    assert all(len(c["arguments_sha256"]) == 64 and c["duration_ms"] >= 0 for c in calls)
    assert done["usage"]["mcp_calls"] == {"orders": 2}


def test_rejecting_a_call_tells_the_model_and_never_calls_the_server(
    ws_api: httpx.Client, mcp_server: McpTestServer
) -> None:
    add_server(ws_api, mcp_server.url)
    agent = orders_agent(
        ws_api,
        call(REFUND, order_id="A-200", amount=1),
        {"answer": "{{last_tool_result.error}}"},
        require_approval="all",
    )
    before = len(mcp_server.tool_calls("refund_order"))
    task_id = start(ws_api, agent["id"])
    assert (
        wait_status(ws_api, task_id, "awaiting_review", "failed", timeout=90)["status"] == "awaiting_review"
    )
    rejected = ws_api.post(
        f"/api/v1/tasks/{task_id}/review", json={"decision": "reject", "comment": "not this one"}
    )
    assert rejected.status_code == 200, rejected.text
    done = wait_status(ws_api, task_id, timeout=90)
    assert done["status"] == "completed", done
    assert "rejected" in summary(ws_api, task_id) and "not this one" in summary(ws_api, task_id)
    assert len(mcp_server.tool_calls("refund_order")) == before
    assert of_type(feed(ws_api, task_id), "mcp_call") == []


def test_approval_is_refused_when_the_server_changed_since_the_preview(
    ws_api: httpx.Client, mcp_server: McpTestServer
) -> None:
    server = add_server(ws_api, mcp_server.url)
    agent = orders_agent(ws_api, call(REFUND, order_id="A-200", amount=1), {"answer": "done"})
    task_id = start(ws_api, agent["id"])
    assert (
        wait_status(ws_api, task_id, "awaiting_review", "failed", timeout=90)["status"] == "awaiting_review"
    )
    assert (
        ws_api.patch(f"/api/v1/mcp-servers/{server['id']}", json={"bearer_token": "new"}).status_code == 200
    )
    refused = ws_api.post(f"/api/v1/tasks/{task_id}/review", json={"decision": "approve"})
    assert refused.status_code == 409, refused.text
    assert task(ws_api, task_id)["status"] == "awaiting_review"


def test_schema_invalid_arguments_are_a_tool_error_and_never_reach_the_server(
    ws_api: httpx.Client, mcp_server: McpTestServer
) -> None:
    add_server(ws_api, mcp_server.url)
    agent = orders_agent(
        ws_api,
        call(ADD, a="two", b=3),
        call(ADD, a=2, b=3),
        {"answer": "{{last_tool_result.structured.result}}"},
        require_approval="none",
    )
    before = len(mcp_server.tool_calls("add"))
    task_id = start(ws_api, agent["id"])
    done = wait_status(ws_api, task_id, timeout=90)
    assert done["status"] == "completed", done
    assert summary(ws_api, task_id) == "5"
    first, second = of_type(feed(ws_api, task_id), "tool_result")
    assert first["status"] == "error" and "$.a" in first["error"] and "invalid arguments" in first["error"]
    assert second["status"] == "ok"
    assert mcp_server.tool_calls("add")[before:] == [{"a": 2, "b": 3}]


def test_a_long_result_is_stored_and_paged(ws_api: httpx.Client, mcp_server: McpTestServer) -> None:
    add_server(ws_api, mcp_server.url)
    history = "mcp__orders__order_history"
    agent = orders_agent(
        ws_api,
        call(history, order_id="A-100", entries=2000),
        # Scripted call ids are call_<step>_<index>: the first result's handle is s0.call_0_0.
        call("read_result", handle="s0.call_0_0", page=2),
        {"answer": "page {{last_tool_result.page}} of {{last_tool_result.pages}}"},
        require_approval="none",
    )
    task_id = start(ws_api, agent["id"])
    done = wait_status(ws_api, task_id, timeout=90)
    assert done["status"] == "completed", done
    long, page = of_type(feed(ws_api, task_id), "tool_result")
    assert long["status"] == "ok" and len(long["output"]["content"]) > 60_000  # the feed keeps it whole
    assert page["status"] == "ok" and "A-100 event" in page["output"]["text"]
    assert summary(ws_api, task_id) == f"page 2 of {page['output']['pages']}" and page["output"]["pages"] > 2


def test_a_server_that_goes_down_mid_task_is_a_retryable_failure_naming_it(ws_api: httpx.Client) -> None:
    with McpTestServer() as flaky:
        add_server(ws_api, flaky.url)
        agent = orders_agent(
            ws_api,
            call(LOOKUP, order_id="A-100"),
            ask("Go on?"),
            call(LOOKUP, order_id="A-200"),
            {"answer": "never"},
            require_approval="none",
        )
        task_id = start(ws_api, agent["id"])
        paused = wait_status(ws_api, task_id, "waiting_for_input", "failed", timeout=90)
        assert paused["status"] == "waiting_for_input", paused
    # The server is down now; the task goes on.
    assert ws_api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "yes"}).status_code == 200
    done = wait_status(ws_api, task_id, timeout=90)
    assert done["status"] == "failed", done
    assert "orders" in done["error"] and "unreachable" in done["error"]
    calls = of_type(feed(ws_api, task_id), "mcp_call")
    assert [c["outcome"] for c in calls] == ["ok", "unreachable", "unreachable"]
    assert "orders" in calls[-1]["error"]
    assert done["usage"]["mcp_calls"] == {"orders": 3}


def test_a_server_of_another_workspace_is_never_used(
    ws_api: httpx.Client, service: Service, mcp_server: McpTestServer
) -> None:
    with service.client(service.key()) as other:
        add_server(other, mcp_server.url)
    agent = orders_agent(ws_api, call(LOOKUP, order_id="A-100"), {"answer": "x"}, require_approval="none")
    before = len(mcp_server.tool_calls())
    response = ws_api.post(f"/api/v1/agents/{agent['id']}/run", json={"query": "hello"})
    assert response.status_code == 400, response.text
    assert "MCP server 'orders'" in response.json()["error"]
    assert ws_api.get("/api/v1/tasks").json()["data"] == []
    assert len(mcp_server.tool_calls()) == before
