"""One door, one set of checks (docs/contract.md section 4, "Run checks"): a run started through
`POST /api/v1/agents/{id}/run`, an agent tool of `/mcp` or `delegate_tasks` is refused alike, with the
same words, and starts no task; agent settings are typed and a wrong type is 400 naming the field.
Real Redis, Ray and Serve; a loopback server speaks the OpenAI wire format, the official MCP SDK's
client calls `/mcp`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from core.infra import keys
from core.infra.models import Agent
from core.stores import agents
from tests.integration.conftest import Service
from tests.integration.mcp.test_mcp_endpoint import call, tool_names
from tests.support.agents import create_agent, feed, of_type, run, scripted, start, wait_status
from tests.support.openai_server import OpenAICompatibleServer
from tests.support.service import run_async

pytestmark = pytest.mark.integration

UNPRICED = "my-local-llama"
PROFILE = {"description": "Works", "example_input": "x"}


@pytest.fixture
def key(service: Service) -> str:
    return service.key()


@pytest.fixture
def api(service: Service, key: str) -> Iterator[httpx.Client]:
    with service.client(key) as client:
        yield client


def error_of(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    return str(response.json()["error"])


def agent_tool(service: Service, key: str, agent: dict[str, Any]) -> str:
    suffix = agent["agent_group_id"].replace("-", "")[:8]
    (name,) = [n for n in tool_names(service, key) if n.startswith("agent_") and n.endswith(suffix)]
    return name


def refused_through_mcp(service: Service, key: str, agent: dict[str, Any]) -> str:
    result = call(service, key, agent_tool(service, key, agent), {"query": "hello"})
    assert result.isError, result
    (content,) = result.content
    return str(getattr(content, "text", ""))


def delegation_error(api: httpx.Client, worker: dict[str, Any]) -> str:
    """What `delegate_tasks` answers a lead that delegates to `worker`: the tool's error text, after
    which the lead completes and no child was started."""
    entry = {"agent_group_id": worker["agent_group_id"], "prompt": "go"}
    lead = create_agent(
        api,
        scripted(
            {"tool_calls": [{"name": "delegate_tasks", "arguments": {"tasks": [entry]}}]},
            {"answer": "no child"},
        ),
    )
    lead_id = start(api, lead["id"])
    done = wait_status(api, lead_id, timeout=90)
    assert done["status"] == "completed", done
    (result,) = [r for r in of_type(feed(api, lead_id), "tool_result") if r["tool_name"] == "delegate_tasks"]
    assert result["status"] == "error", result
    assert api.get(f"/api/v1/tasks/{lead_id}/children").json()["data"] == []
    return str(result["error"])


def test_an_unpriced_model_under_a_cap_is_refused_alike_by_rest_mcp_and_delegation(
    service: Service, key: str, api: httpx.Client, openai_server: OpenAICompatibleServer
) -> None:
    connection = {"provider": "openai", "base_url": openai_server.base_url, "default_model": UNPRICED}
    url = "/api/v1/integrations/models/lan"
    assert api.put(url, json=connection | {"price": {"input": 1.0, "output": 2.0}}).status_code == 200
    worker = create_agent(
        api,
        {"model": {"connection": "lan"}, "settings": {"spend_cap_usd": 1.0}, "delegation_profile": PROFILE},
        name="Capped Worker",
    )
    # The connection is saved again without its price: no door may start the capped agent now.
    assert api.put(url, json=connection).status_code == 200

    rest = error_of(run(api, worker["id"]))
    assert f"openai:{UNPRICED} has no known price, so settings.spend_cap_usd" in rest
    assert refused_through_mcp(service, key, worker) == rest
    # Neither door wrote a task (before, /mcp started one that paused at once).
    assert api.get("/api/v1/tasks").json()["data"] == []
    assert delegation_error(api, worker) == rest
    assert openai_server.requests == []


def test_a_cap_given_as_a_string_is_400_naming_the_field_on_create_update_and_run(
    service: Service, key: str, api: httpx.Client
) -> None:
    field = "config.settings.spend_cap_usd"
    as_text = {"model": "scripted", "settings": {"spend_cap_usd": "0.5"}}
    assert field in error_of(api.post("/api/v1/agents", json={"config": as_text}))
    agent = create_agent(api, {"model": "scripted", "delegation_profile": PROFILE})
    assert field in error_of(api.patch(f"/api/v1/agents/{agent['id']}", json={"config": as_text}))
    assert api.get(f"/api/v1/agents/{agent['id']}/versions").json()["data"][0]["version_number"] == 1

    # An agent saved before settings were typed: every door refuses to run it, naming the field.
    async def store_as_before(redis: Any) -> Agent:
        workspace = await redis.get(keys.owner(agent["id"]))
        return await agents.update_agent(
            redis, workspace, agent["id"], config=as_text | {"delegation_profile": PROFILE}
        )

    stored = run_async(service.redis_url, store_as_before)
    rest = error_of(run(api, stored.id))
    assert rest.startswith(field), rest
    assert refused_through_mcp(service, key, agent) == rest
    assert api.get("/api/v1/tasks").json()["data"] == []
    assert delegation_error(api, agent) == rest


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("max_retries", "2"),
        ("max_retries", -1),
        ("max_concurrent_tasks", "3"),
        ("max_concurrent_tasks", 0),
        ("max_tokens_per_task", 1.5),
        ("tree_spend_cap_usd", "1"),
        ("spend_cap_usd", True),
        ("placement", "anywhere"),
        ("disable_ask_user", "false"),
        ("delegate_source_mode", "true"),
        ("sync_result", "everything"),
    ],
)
def test_every_named_setting_is_typed(api: httpx.Client, setting: str, value: Any) -> None:
    error = error_of(api.post("/api/v1/agents", json={"config": {"settings": {setting: value}}}))
    assert error.startswith(f"config.settings.{setting} must be "), error
    assert api.get("/api/v1/agents").json()["data"] == []


def test_settings_that_are_not_an_object_and_run_parameters_of_the_wrong_type_are_400(
    service: Service, key: str, api: httpx.Client
) -> None:
    assert error_of(api.post("/api/v1/agents", json={"config": {"settings": "fast"}})) == (
        "config.settings must be an object"
    )
    agent = create_agent(api, {"model": "scripted", "settings": {"spend_cap_usd": 0.5, "max_retries": 1}})
    url = f"/api/v1/agents/{agent['id']}/run"
    assert error_of(api.post(url, json={"query": "hi", "version": "1"})) == "version must be an integer"
    bad_instructions = {"query": "hi", "output_config": {"instructions": 5}}
    assert error_of(api.post(url, json=bad_instructions)) == "output_config.instructions must be a string"
    waited = call(service, key, agent_tool(service, key, agent), {"query": "hi", "wait_seconds": "5"})
    assert waited.isError and "wait_seconds" in str(getattr(waited.content[0], "text", ""))
    assert api.get("/api/v1/tasks").json()["data"] == []
