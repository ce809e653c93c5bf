"""The `openai` provider through the official SDK against a loopback Chat Completions server."""

import json
import socket
import time
from typing import Any

import pytest

from actors.models.base import ModelError, ModelRequest, ToolCall, Usage
from actors.models.openai import OpenAIProvider
from actors.models.targets import ModelTarget
from actors.models.templates import TemplateContext
from core.stores.model_connections import Price
from tests.support.openai_server import OpenAICompatibleServer, completion, function_call

pytestmark = pytest.mark.integration

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
ASK_USER_SCHEMA = {
    "name": "ask_user",
    "description": "Ask the user.",
    "parameters": {
        "type": "object",
        "properties": {"question": {"type": "string"}},
        "required": ["question"],
    },
}


def provider(
    server: OpenAICompatibleServer | str,
    model: str = "gpt-4o-mini",
    *,
    api_key: str | None = "sk-test",
    temperature: float | None = None,
    price: Price | None = None,
    **kwargs: Any,
) -> OpenAIProvider:
    base_url = server if isinstance(server, str) else server.base_url
    target = ModelTarget("openai", model, base_url, api_key, True, temperature, price, allow_private=True)
    return OpenAIProvider(target, **kwargs)


def request(
    tools: list[dict[str, Any]] | None = None, output_schema: dict[str, Any] | None = None
) -> ModelRequest:
    return ModelRequest(
        messages=MESSAGES,
        tools=tools or [],
        call_index=3,
        context=TemplateContext(query="hi"),
        output_schema=output_schema,
    )


async def test_plain_answer_and_what_was_sent(openai_server: OpenAICompatibleServer) -> None:
    openai_server.push(completion("Hello there", prompt_tokens=1000, completion_tokens=200))
    response = await provider(openai_server, temperature=0.2).complete(request())
    assert response.text == "Hello there"
    assert response.final is True
    assert response.tool_calls == []
    assert response.structured is None
    assert (response.usage.input_tokens, response.usage.output_tokens) == (1000, 200)
    # genai-prices' list price of gpt-4o-mini: $0.15 / $0.60 per million tokens.
    assert response.usage.cost_usd == pytest.approx((1000 * 0.15 + 200 * 0.60) / 1e6)
    (sent,) = openai_server.requests
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.body == {"model": "gpt-4o-mini", "messages": MESSAGES, "temperature": 0.2}


async def test_a_connection_price_overrides_the_list_price(openai_server: OpenAICompatibleServer) -> None:
    openai_server.push(completion("ok", prompt_tokens=2_000_000, completion_tokens=1_000_000))
    response = await provider(openai_server, price=Price(input=1.0, output=3.0)).complete(request())
    assert response.usage.cost_usd == pytest.approx(5.0)


async def test_an_unknown_models_cost_is_unknown_and_no_key_sends_no_authorization(
    openai_server: OpenAICompatibleServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The SDK would fall back to this environment key; the provider must not let it.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator-secret")
    openai_server.push(completion("ok", prompt_tokens=50, completion_tokens=5))
    response = await provider(openai_server, model="local-llama", api_key=None).complete(request())
    assert response.usage == Usage(50, 5, 0.0, cost_known=False)
    headers = openai_server.requests[0].headers
    assert "authorization" not in headers
    assert "sk-operator-secret" not in json.dumps(headers)


async def test_parallel_tool_calls_are_parsed_and_tools_sent_as_functions(
    openai_server: OpenAICompatibleServer,
) -> None:
    openai_server.push(
        completion(
            "Let me ask.",
            tool_calls=[
                function_call("call_abc", "ask_user", '{"question": "Which year?"}'),
                function_call("call_def", "list_files", ""),
            ],
        )
    )
    response = await provider(openai_server).complete(request(tools=[ASK_USER_SCHEMA]))
    assert response.final is False
    assert response.text == "Let me ask."
    assert response.tool_calls == [
        ToolCall("call_abc", "ask_user", {"question": "Which year?"}),
        ToolCall("call_def", "list_files", {}),
    ]
    sent = openai_server.requests[0].body
    assert sent["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "ask_user",
                "description": "Ask the user.",
                "parameters": ASK_USER_SCHEMA["parameters"],
            },
        }
    ]
    assert "temperature" not in sent and "response_format" not in sent


async def test_429_waits_for_retry_after_then_succeeds(openai_server: OpenAICompatibleServer) -> None:
    openai_server.fail_next(429, retry_after="1")
    openai_server.push(completion("after the wait"))
    response = await provider(openai_server).complete(request())
    assert response.text == "after the wait"
    first, second = openai_server.requests
    assert second.at - first.at >= 0.95


async def test_429_after_the_sdk_retries_is_retryable_with_the_wait(
    openai_server: OpenAICompatibleServer,
) -> None:
    openai_server.fail_next(429, times=2, retry_after="0")
    with pytest.raises(ModelError) as info:
        await provider(openai_server, max_retries=1).complete(request())
    assert info.value.retryable is True
    assert info.value.retry_after_seconds == 0
    assert "HTTP 429" in info.value.message
    assert len(openai_server.requests) == 2


async def test_500_then_success(openai_server: OpenAICompatibleServer) -> None:
    openai_server.fail_next(500)
    openai_server.push(completion("second time"))
    response = await provider(openai_server).complete(request())
    assert response.text == "second time"
    assert len(openai_server.requests) == 2


async def test_5xx_beyond_the_retries_is_a_retryable_error(openai_server: OpenAICompatibleServer) -> None:
    openai_server.fail_next(503, times=2, retry_after="0")
    with pytest.raises(ModelError) as info:
        await provider(openai_server, max_retries=1).complete(request())
    assert info.value.retryable is True
    assert "HTTP 503 (server_error)" in info.value.message and "canned failure" not in info.value.message


async def test_400_is_not_retried(openai_server: OpenAICompatibleServer) -> None:
    openai_server.fail_next(400)
    openai_server.push(completion("not reached"))
    with pytest.raises(ModelError) as info:
        await provider(openai_server).complete(request())
    assert info.value.retryable is False
    assert "HTTP 400 (server_error)" in info.value.message and "canned failure" not in info.value.message
    assert len(openai_server.requests) == 1


async def test_invalid_tool_call_json_is_a_model_error(openai_server: OpenAICompatibleServer) -> None:
    openai_server.push(completion(None, tool_calls=[function_call("c1", "ask_user", '{"question": ')]))
    with pytest.raises(ModelError) as info:
        await provider(openai_server).complete(request(tools=[ASK_USER_SCHEMA]))
    assert "ask_user" in info.value.message and "not valid JSON" in info.value.message


async def test_output_schema_sends_response_format_and_parses_structured(
    openai_server: OpenAICompatibleServer,
) -> None:
    schema = {"type": "object", "properties": {"total": {"type": "number"}}, "required": ["total"]}
    openai_server.push(completion('{"total": 42.5}'))
    response = await provider(openai_server).complete(request(output_schema=schema))
    assert response.structured == {"total": 42.5}
    assert openai_server.requests[0].body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "output", "schema": schema, "strict": False},
    }


async def test_output_schema_with_non_json_answer_leaves_structured_empty(
    openai_server: OpenAICompatibleServer,
) -> None:
    openai_server.push(completion("forty-two"))
    response = await provider(openai_server).complete(request(output_schema={"type": "object"}))
    assert response.final is True and response.structured is None


async def test_with_tools_the_schema_is_a_final_answer_tool_not_a_response_format(
    openai_server: OpenAICompatibleServer,
) -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    openai_server.push(
        completion(None, tool_calls=[function_call("c9", "final_answer", '{"value": ["a", "b"]}')])
    )
    response = await provider(openai_server).complete(request(tools=[ASK_USER_SCHEMA], output_schema=schema))
    assert response.final is True and response.tool_calls == [] and response.structured == ["a", "b"]
    sent = openai_server.requests[0].body
    assert "response_format" not in sent
    tools = {tool["function"]["name"]: tool["function"] for tool in sent["tools"]}
    assert tools["final_answer"]["parameters"] == {
        "type": "object",
        "properties": {"value": schema},
        "required": ["value"],
    }


async def test_timeout_is_reported_retryable(openai_server: OpenAICompatibleServer) -> None:
    openai_server.push(completion("too late"), delay_seconds=3)
    started = time.monotonic()
    with pytest.raises(ModelError) as info:
        await provider(openai_server, timeout_seconds=0.3, max_retries=0).complete(request())
    assert time.monotonic() - started < 2.5
    assert info.value.retryable is True
    assert "did not answer in time" in info.value.message


async def test_connection_refused_is_reported_retryable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed_port = sock.getsockname()[1]
    with pytest.raises(ModelError) as info:
        await provider(f"http://127.0.0.1:{closed_port}/v1", max_retries=0).complete(request())
    assert info.value.retryable is True
    assert "could not reach the model server" in info.value.message


async def test_messages_are_sent_unchanged(openai_server: OpenAICompatibleServer) -> None:
    transcript: list[dict[str, Any]] = [
        *MESSAGES,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [function_call("c1", "ask_user", json.dumps({"question": "q?"}))],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "an answer"},
    ]
    openai_server.push(completion("done"))
    await provider(openai_server).complete(
        ModelRequest(messages=transcript, tools=[], call_index=0, context=TemplateContext())
    )
    assert openai_server.requests[0].body["messages"] == transcript


async def test_a_guarded_base_url_whose_name_resolves_to_loopback_is_refused_at_connect(
    openai_server: OpenAICompatibleServer,
) -> None:
    # Resolving the model checked nothing here: the SDK's own connection refuses the address.
    url = f"http://localhost:{openai_server.port}/v1"
    target = ModelTarget("openai", "m", url, "sk-test", True, allow_private=False)
    openai_server.push(completion("not reached"))
    with pytest.raises(ModelError) as info:
        await OpenAIProvider(target, max_retries=0).complete(request())
    assert info.value.retryable is False
    assert "not allowed" in info.value.message and "loopback" in info.value.message
    assert openai_server.requests == []


async def test_a_guarded_base_url_is_connected_by_its_checked_address_with_the_name_as_host(
    openai_server: OpenAICompatibleServer,
) -> None:
    url = f"http://localhost:{openai_server.port}/v1"
    openai_server.push(completion("pinned"))
    target = ModelTarget("openai", "m", url, "sk-test", True, allow_private=True)
    response = await OpenAIProvider(target, max_retries=0).complete(request())
    assert response.text == "pinned"
    assert openai_server.requests[0].headers["host"] == f"localhost:{openai_server.port}"
