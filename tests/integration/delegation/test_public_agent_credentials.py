"""A public agent runs on the caller's credentials (docs/spec.md, delegation rule 3; docs/contract.md
section 6): real Redis, Ray and Serve; each workspace's model connection and MCP server on a loopback
server of its own, so which one a call reached (and with which key) tells whose credentials it used."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support.agents import create_agent, feed, of_type, run, scripted, start, wait_status
from tests.support.mcp_server import McpTestServer
from tests.support.openai_server import OpenAICompatibleServer, completion, function_call
from tests.support.service import wait_for

pytestmark = pytest.mark.integration

LOOKUP = "mcp__orders__lookup_order"
PUBLISHER_KEY, CALLER_KEY = "sk-publisher-model", "sk-caller-model"
PUBLISHER_TOKEN, CALLER_TOKEN = "tok-publisher-mcp", "tok-caller-mcp"


@pytest.fixture(scope="module")
def publisher_model() -> Iterator[OpenAICompatibleServer]:
    with OpenAICompatibleServer() as server:
        yield server


@pytest.fixture(scope="module")
def caller_model() -> Iterator[OpenAICompatibleServer]:
    with OpenAICompatibleServer() as server:
        yield server


@pytest.fixture(scope="module")
def publisher_mcp() -> Iterator[McpTestServer]:
    with McpTestServer() as server:
        yield server


@pytest.fixture(scope="module")
def caller_mcp() -> Iterator[McpTestServer]:
    with McpTestServer() as server:
        yield server


@pytest.fixture
def publisher(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key()) as client:
        yield client


@pytest.fixture
def caller(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key()) as client:
        yield client


def connect(api: httpx.Client, base_url: str, api_key: str) -> None:
    body = {"provider": "openai", "base_url": base_url, "api_key": api_key, "default_model": "m"}
    response = api.put("/api/v1/integrations/models/brain", json=body)
    assert response.status_code == 200, response.text


def add_orders(api: httpx.Client, url: str, token: str) -> None:
    response = api.post("/api/v1/mcp-servers", json={"name": "orders", "url": url, "bearer_token": token})
    assert response.status_code == 201, response.text


def delegate(group_id: str) -> dict[str, Any]:
    entry = {"agent_group_id": group_id, "prompt": "find order A-100"}
    return {"tool_calls": [{"name": "delegate_tasks", "arguments": {"tasks": [entry]}}]}


def lead_of(api: httpx.Client, group_id: str) -> dict[str, Any]:
    return create_agent(
        api, scripted(delegate(group_id), {"answer": "child said: {{last_tool_result.children.0.output}}"})
    )


def publish(publisher: httpx.Client, model_url: str, mcp_url: str) -> dict[str, Any]:
    """Workspace A's public agent, on A's connection `brain` and A's MCP server `orders`."""
    connect(publisher, model_url, PUBLISHER_KEY)
    add_orders(publisher, mcp_url, PUBLISHER_TOKEN)
    config = {
        "model": {"connection": "brain"},
        "mcp_servers": [{"server": "orders", "require_approval": "none"}],
        "settings": {"max_retries": 0},
        "delegation_profile": {"description": "Looks up orders", "example_input": "an order id"},
    }
    agent = create_agent(publisher, config, name="Order Desk")
    patched = publisher.patch(f"/api/v1/agents/{agent['id']}", json={"is_public": True})
    assert patched.status_code == 200, patched.text
    return agent


def test_the_callers_child_uses_the_callers_connection_and_mcp_server_never_the_publishers(
    publisher: httpx.Client,
    caller: httpx.Client,
    publisher_model: OpenAICompatibleServer,
    caller_model: OpenAICompatibleServer,
    publisher_mcp: McpTestServer,
    caller_mcp: McpTestServer,
) -> None:
    publisher_model.reset()
    caller_model.reset()
    public = publish(publisher, publisher_model.base_url, publisher_mcp.url)
    connect(caller, caller_model.base_url, CALLER_KEY)
    add_orders(caller, caller_mcp.url, CALLER_TOKEN)
    caller_model.push(completion(tool_calls=[function_call("c1", LOOKUP, json.dumps({"order_id": "A-100"}))]))
    caller_model.push(completion("order A-100 found"))
    publisher_calls = len(publisher_mcp.call_authorizations())
    caller_calls = len(caller_mcp.call_authorizations())

    parent_id = start(caller, lead_of(caller, public["agent_group_id"])["id"])
    done = wait_status(caller, parent_id, timeout=120)
    assert done["status"] == "completed", done
    summary = caller.get(f"/api/v1/tasks/{parent_id}/summary").json()["summary"]
    assert summary == "child said: order A-100 found"

    # The model calls went to B's connection with B's key; A's endpoint heard nothing.
    assert len(caller_model.requests) == 2
    assert all(r.headers["authorization"] == f"Bearer {CALLER_KEY}" for r in caller_model.requests)
    assert publisher_model.requests == []
    # The MCP call went to B's server with B's token; A's server got no call.
    assert caller_mcp.call_authorizations()[caller_calls:] == [f"Bearer {CALLER_TOKEN}"]
    assert caller_mcp.tool_calls("lookup_order")[-1] == {"order_id": "A-100"}
    assert len(publisher_mcp.call_authorizations()) == publisher_calls


def test_a_run_missing_a_named_connection_and_server_is_400_naming_both_and_leaves_no_task(
    caller: httpx.Client,
) -> None:
    agent = create_agent(
        caller, {"model": {"connection": "brain"}, "mcp_servers": [{"server": "orders"}]}, name="Desk"
    )
    response = run(caller, agent["id"])
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    text = error if isinstance(error, str) else json.dumps(error)
    assert "model connection 'brain'" in text and "MCP server 'orders'" in text
    assert caller.get("/api/v1/tasks").json()["data"] == []


def test_delegating_to_a_public_agent_the_caller_cannot_equip_is_a_tool_error_naming_what_is_missing(
    publisher: httpx.Client,
    caller: httpx.Client,
    publisher_model: OpenAICompatibleServer,
    caller_model: OpenAICompatibleServer,
    publisher_mcp: McpTestServer,
) -> None:
    publisher_model.reset()
    caller_model.reset()
    public = publish(publisher, publisher_model.base_url, publisher_mcp.url)
    # The caller has a connection named `brain` but no MCP server `orders`.
    connect(caller, caller_model.base_url, CALLER_KEY)
    publisher_calls = len(publisher_mcp.call_authorizations())

    parent_id = start(caller, lead_of(caller, public["agent_group_id"])["id"])
    done = wait_status(caller, parent_id, timeout=90)
    (result,) = of_type(feed(caller, parent_id), "tool_result")
    assert result["tool_name"] == "delegate_tasks" and result["status"] == "error", result
    assert "MCP server 'orders'" in result["error"] and "Order Desk" in result["error"], result
    assert "model connection 'brain'" not in result["error"]
    assert "public agent" in result["error"]
    assert done["status"] == "completed", done
    assert caller.get(f"/api/v1/tasks/{parent_id}/children").json()["data"] == []
    assert publisher_model.requests == [] and caller_model.requests == []
    assert len(publisher_mcp.call_authorizations()) == publisher_calls


def test_a_public_agents_own_concurrency_limit_holds_for_the_callers_children(
    publisher: httpx.Client, caller: httpx.Client
) -> None:
    """The definition is the publisher's: its `max_concurrent_tasks` limits the caller's children
    (counted in the caller's workspace), not the service default."""
    slow = scripted(
        {"delay_seconds": 30, "answer": "slow"},
        settings={"max_concurrent_tasks": 1},
        delegation_profile={"description": "Takes its time", "example_input": "anything"},
    )
    public = create_agent(publisher, slow, name="Slow Desk")
    assert publisher.patch(f"/api/v1/agents/{public['id']}", json={"is_public": True}).status_code == 200
    entry = {"agent_group_id": public["agent_group_id"], "prompt": "{{item}}", "inputs": [1, 2]}
    lead = create_agent(
        caller,
        scripted(
            {"tool_calls": [{"name": "delegate_tasks", "arguments": {"tasks": [entry], "async": True}}]},
            {"answer": "started"},
        ),
    )
    parent_id = start(caller, lead["id"])
    try:
        assert wait_status(caller, parent_id, timeout=60)["status"] == "completed"

        def one_running_one_queued() -> list[str] | None:
            kids = caller.get(f"/api/v1/tasks/{parent_id}/children").json()["data"]
            statuses = sorted(k["status"] for k in kids)
            return statuses if statuses == ["queued", "running"] else None

        wait_for(one_running_one_queued, timeout=60, what="one child running and one queued")
    finally:
        caller.post(f"/api/v1/tasks/{parent_id}/cancel", params={"cascade": "true"})


def price_brain(api: httpx.Client, base_url: str, api_key: str, price: dict[str, float] | None) -> None:
    body: dict[str, Any] = {
        "provider": "openai",
        "base_url": base_url,
        "api_key": api_key,
        "default_model": "m",
    }
    if price is not None:
        body["price"] = price
    response = api.put("/api/v1/integrations/models/brain", json=body)
    assert response.status_code == 200, response.text


def publish_capped(publisher: httpx.Client, model_url: str) -> dict[str, Any]:
    """Workspace A's public agent on A's priced connection `brain`, held to a spend cap."""
    price_brain(publisher, model_url, PUBLISHER_KEY, {"input": 1.0, "output": 1.0})
    config = {
        "model": {"connection": "brain"},
        "settings": {"max_retries": 0, "spend_cap_usd": 5.0},
        "delegation_profile": {"description": "Answers questions", "example_input": "a question"},
    }
    agent = create_agent(publisher, config, name="Capped Desk")
    patched = publisher.patch(f"/api/v1/agents/{agent['id']}", json={"is_public": True})
    assert patched.status_code == 200, patched.text
    return agent


def test_a_capped_public_agent_is_priced_by_the_callers_connection_never_the_publishers(
    publisher: httpx.Client,
    caller: httpx.Client,
    publisher_model: OpenAICompatibleServer,
    caller_model: OpenAICompatibleServer,
) -> None:
    """Spend caps read the price where the call is billed: the caller's connection. The caller's
    `brain` without a price cannot keep the publisher's cap (a tool error, no child, no call); with
    its own price the child runs and costs what the caller's price says."""
    publisher_model.reset()
    caller_model.reset()
    public = publish_capped(publisher, publisher_model.base_url)

    price_brain(caller, caller_model.base_url, CALLER_KEY, None)
    parent_id = start(caller, lead_of(caller, public["agent_group_id"])["id"])
    assert wait_status(caller, parent_id, timeout=90)["status"] == "completed"
    (refused,) = of_type(feed(caller, parent_id), "tool_result")
    assert refused["status"] == "error" and "has no known price" in refused["error"], refused
    assert caller.get(f"/api/v1/tasks/{parent_id}/children").json()["data"] == []
    assert caller_model.requests == [] and publisher_model.requests == []

    price_brain(caller, caller_model.base_url, CALLER_KEY, {"input": 3.0, "output": 7.0})
    caller_model.push(completion("forty-two", prompt_tokens=1000, completion_tokens=100))
    parent_id = start(caller, lead_of(caller, public["agent_group_id"])["id"])
    assert wait_status(caller, parent_id, timeout=120)["status"] == "completed"
    (child,) = caller.get(f"/api/v1/tasks/{parent_id}/children").json()["data"]
    child_task = wait_status(caller, child["task_id"], timeout=60)
    assert child_task["status"] == "completed", child_task
    assert child_task["usage"]["cost_known"] is True
    assert child_task["usage"]["cost_usd"] == pytest.approx((1000 * 3.0 + 100 * 7.0) / 1e6)
    assert len(caller_model.requests) == 1 and publisher_model.requests == []
