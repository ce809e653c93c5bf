"""Model connections over HTTP, and agents running on them through the real runtime: real Redis,
Ray and Serve, the official SDKs, loopback servers speaking each provider's wire format."""

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from core.infra import keys
from tests.integration.conftest import TEST_ENV, Service
from tests.support.agents import create_agent, feed, of_type, start, wait_status
from tests.support.anthropic_server import AnthropicServer, message, text_block
from tests.support.openai_server import OpenAICompatibleServer, completion
from tests.support.service import run_async

pytestmark = pytest.mark.integration

OPERATOR_KEY = TEST_ENV["ANTHROPIC_API_KEY"]


@pytest.fixture
def api(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key()) as client:
        yield client


def connect(api: httpx.Client, name: str, **body: Any) -> httpx.Response:
    return api.put(f"/api/v1/integrations/models/{name}", json=body)


def test_a_connection_is_stored_sealed_shown_without_its_key_and_deleted(
    api: httpx.Client, service: Service, openai_server: OpenAICompatibleServer
) -> None:
    secret = "sk-conn-very-secret-1234"
    body = {
        "provider": "openai",
        "base_url": openai_server.base_url,
        "api_key": secret,
        "default_model": "llama-3.1-8b",
        "price": {"input": 1.0, "output": 2.0},
        "context_window": 8192,
    }
    saved = connect(api, "local-vllm", **body)
    assert saved.status_code == 200, saved.text
    shown = api.get("/api/v1/integrations/models/local-vllm")
    assert shown.status_code == 200
    view = shown.json()
    assert view == saved.json()
    assert view["has_api_key"] is True and secret not in json.dumps(view)
    assert (view["provider"], view["default_model"], view["context_window"]) == (
        "openai",
        "llama-3.1-8b",
        8192,
    )

    async def stored(redis: Any) -> list[str]:
        found = [k async for k in redis.scan_iter(match=keys.model_connection("*", "local-vllm"))]
        return [json.dumps(await redis.hgetall(k), default=str) for k in found]

    records = run_async(service.redis_url, stored)
    assert records and all(secret not in record for record in records)
    # Another workspace does not see it.
    with service.client(service.key()) as other:
        assert other.get("/api/v1/integrations/models/local-vllm").status_code == 404
    deleted = api.delete("/api/v1/integrations/models/local-vllm")
    assert deleted.status_code == 200 and deleted.json() == {"name": "local-vllm", "deleted": True}
    missing = api.get("/api/v1/integrations/models/local-vllm")
    assert missing.status_code == 404 and "error" in missing.json()
    assert api.delete("/api/v1/integrations/models/local-vllm").status_code == 404


@pytest.mark.parametrize(
    ("name", "body", "fragment"),
    [
        ("bad name!", {"provider": "openai", "default_model": "m"}, "name"),
        ("x", {"provider": "mistral", "default_model": "m"}, "provider"),
        ("x", {"provider": "openai", "default_model": " "}, "default_model"),
        (
            "x",
            {"provider": "openai", "default_model": "m", "base_url": "http://169.254.169.254/v1"},
            "metadata",
        ),
        ("x", {"provider": "openai", "default_model": "m", "base_url": "file:///etc/passwd"}, "http"),
        ("x", {"provider": "openai", "default_model": "m", "price": {"input": -1, "output": 0}}, "price"),
        ("x", {"provider": "openai", "default_model": "m", "surprise": 1}, "surprise"),
    ],
)
def test_bad_connections_are_400(api: httpx.Client, name: str, body: dict[str, Any], fragment: str) -> None:
    response = connect(api, name, **body)
    assert response.status_code == 400, response.text
    assert fragment in json.dumps(response.json()["error"])


def test_an_agent_runs_on_an_openai_connection_with_the_connections_key_and_price(
    api: httpx.Client, openai_server: OpenAICompatibleServer
) -> None:
    connect(
        api,
        "lan",
        provider="openai",
        base_url=openai_server.base_url,
        api_key="sk-conn-lan",
        default_model="llama-3.1-8b",
        price={"input": 10.0, "output": 20.0},
    )
    openai_server.push(completion("Hello from the LAN", prompt_tokens=1000, completion_tokens=500))
    agent = create_agent(api, {"model": {"connection": "lan"}})
    task_id = start(api, agent["id"])
    done = wait_status(api, task_id, timeout=90)
    assert done["status"] == "completed", done
    (sent,) = openai_server.requests
    assert sent.headers["authorization"] == "Bearer sk-conn-lan"
    assert sent.body["model"] == "llama-3.1-8b"
    assert done["usage"]["cost_usd"] == pytest.approx((1000 * 10 + 500 * 20) / 1e6)
    assert of_type(feed(api, task_id), "assistant_message")[-1]["text"] == "Hello from the LAN"


def test_an_agent_runs_on_an_anthropic_connection(
    api: httpx.Client, anthropic_server: AnthropicServer
) -> None:
    connect(
        api,
        "claude",
        provider="anthropic",
        base_url=anthropic_server.base_url,
        api_key="sk-ant-conn",
        default_model="claude-3-5-haiku-latest",
    )
    anthropic_server.push(message(text_block("Hello from Claude"), input_tokens=10, output_tokens=5))
    agent = create_agent(
        api, {"model": {"connection": "claude", "name": "claude-sonnet-4-5"}, "system_prompt": "be kind"}
    )
    done = wait_status(api, start(api, agent["id"]), timeout=90)
    assert done["status"] == "completed", done
    (sent,) = anthropic_server.requests
    assert "sk-ant-conn" in (sent.headers.get("x-api-key", "") + sent.headers.get("authorization", ""))
    assert sent.body["model"] == "claude-sonnet-4-5" and sent.body["system"] == "be kind"


def test_a_base_url_named_by_an_agent_never_receives_the_operators_key(
    api: httpx.Client, anthropic_server: AnthropicServer, openai_server: OpenAICompatibleServer
) -> None:
    anthropic_server.push(message(text_block("collected?")))
    openai_server.push(completion("collected?"))
    for model in (
        {"provider": "anthropic", "name": "claude-3-5-haiku-latest", "base_url": anthropic_server.base_url},
        {"provider": "openai", "name": "gpt-4o-mini", "base_url": openai_server.base_url},
    ):
        agent = create_agent(api, {"model": model})
        assert wait_status(api, start(api, agent["id"]), timeout=90)["status"] == "completed"
    # A keyless connection to a foreign host does not borrow the operator's key either.
    connect(api, "borrow", provider="anthropic", base_url=anthropic_server.base_url, default_model="c")
    anthropic_server.push(message(text_block("collected?")))
    agent = create_agent(api, {"model": {"connection": "borrow"}})
    assert wait_status(api, start(api, agent["id"]), timeout=90)["status"] == "completed"
    received = [*anthropic_server.requests, *openai_server.requests]
    assert len(received) == 3
    for request in received:
        assert OPERATOR_KEY not in json.dumps(request.headers)
        assert "authorization" not in request.headers and "x-api-key" not in request.headers


def test_an_unknown_connection_refuses_the_run_naming_it(api: httpx.Client) -> None:
    agent = create_agent(api, {"model": {"connection": "nope"}, "settings": {"max_retries": 0}})
    response = api.post(f"/api/v1/agents/{agent['id']}/run", json={"query": "hello"})
    assert response.status_code == 400, response.text
    assert "model connection 'nope'" in response.json()["error"]
    assert api.get("/api/v1/tasks").json()["data"] == []
