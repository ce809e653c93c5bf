"""The `anthropic` provider through the official SDK against a loopback Messages API server."""

import json
from typing import Any

import pytest

from actors.models.anthropic import FINAL_ANSWER_TOOL, AnthropicProvider
from actors.models.base import ModelError, ModelRequest, ToolCall
from actors.models.targets import ModelTarget
from actors.models.templates import TemplateContext
from tests.support.anthropic_server import AnthropicServer, message, text_block, tool_use
from tests.support.openai_server import function_call

pytestmark = pytest.mark.integration

TOOL = {
    "name": "ask_user",
    "description": "Ask the user.",
    "parameters": {"type": "object", "properties": {"question": {"type": "string"}}},
}


def provider(
    server: AnthropicServer, *, api_key: str | None = "sk-ant-test", **kwargs: Any
) -> AnthropicProvider:
    target = ModelTarget(
        "anthropic", "claude-3-5-haiku-latest", server.base_url, api_key, True, allow_private=True
    )
    return AnthropicProvider(target, **kwargs)


def request(messages: list[dict[str, Any]] | None = None, **kwargs: Any) -> ModelRequest:
    return ModelRequest(
        messages=messages or [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}],
        tools=kwargs.pop("tools", []),
        call_index=2,
        context=TemplateContext(query="hi"),
        **kwargs,
    )


async def test_transcript_tools_and_parallel_tool_calls(anthropic_server: AnthropicServer) -> None:
    anthropic_server.push(
        message(
            text_block("Checking."),
            tool_use("toolu_1", "ask_user", {"question": "Which year?"}),
            tool_use("toolu_2", "ask_user", {"question": "Which month?"}),
            input_tokens=1000,
            output_tokens=100,
        )
    )
    transcript = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [function_call("c1", "ask_user", '{"question": "q?"}')],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "an answer"},
    ]
    response = await provider(anthropic_server).complete(request(transcript, tools=[TOOL]))
    assert response.final is False and response.text == "Checking."
    assert response.tool_calls == [
        ToolCall("toolu_1", "ask_user", {"question": "Which year?"}),
        ToolCall("toolu_2", "ask_user", {"question": "Which month?"}),
    ]
    # genai-prices' list price of claude-3-5-haiku: $0.80 / $4 per million tokens.
    assert response.usage.cost_usd == pytest.approx((1000 * 0.8 + 100 * 4) / 1e6)
    (sent,) = anthropic_server.requests
    assert (
        sent.headers["authorization"] == "Bearer sk-ant-test"
        or sent.headers.get("x-api-key") == "sk-ant-test"
    )
    assert sent.body["system"] == "be brief"
    assert sent.body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "c1", "name": "ask_user", "input": {"question": "q?"}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "an answer"}]},
    ]
    assert sent.body["tools"] == [
        {"name": "ask_user", "description": "Ask the user.", "input_schema": TOOL["parameters"]}
    ]


async def test_structured_answer_through_the_final_answer_tool(anthropic_server: AnthropicServer) -> None:
    schema = {"type": "object", "properties": {"total": {"type": "number"}}, "required": ["total"]}
    anthropic_server.push(message(tool_use("toolu_9", FINAL_ANSWER_TOOL, {"total": 42.5})))
    response = await provider(anthropic_server).complete(request(tools=[TOOL], output_schema=schema))
    assert response.final is True and response.tool_calls == []
    assert response.structured == {"total": 42.5}
    tools = {tool["name"]: tool for tool in anthropic_server.requests[0].body["tools"]}
    assert tools[FINAL_ANSWER_TOOL]["input_schema"] == schema and "ask_user" in tools


async def test_no_key_sends_no_credentials_even_with_the_operator_key_in_the_environment(
    anthropic_server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-operator-secret")
    anthropic_server.push(message(text_block("ok")))
    await provider(anthropic_server, api_key=None).complete(request())
    headers = anthropic_server.requests[0].headers
    assert "authorization" not in headers and "x-api-key" not in headers
    assert "sk-ant-operator-secret" not in json.dumps(headers)


async def test_overloaded_is_retried_then_retryable(anthropic_server: AnthropicServer) -> None:
    anthropic_server.fail_next(529, times=2, retry_after="0")
    with pytest.raises(ModelError) as info:
        await provider(anthropic_server, max_retries=1).complete(request())
    assert info.value.retryable is True and "HTTP 529" in info.value.message
    assert len(anthropic_server.requests) == 2


async def test_429_waits_for_retry_after(anthropic_server: AnthropicServer) -> None:
    anthropic_server.fail_next(429, retry_after="1")
    anthropic_server.push(message(text_block("after the wait")))
    response = await provider(anthropic_server).complete(request())
    assert response.text == "after the wait"
    first, second = anthropic_server.requests
    assert second.at - first.at >= 0.95


async def test_400_is_not_retried(anthropic_server: AnthropicServer) -> None:
    anthropic_server.fail_next(400)
    with pytest.raises(ModelError) as info:
        await provider(anthropic_server).complete(request())
    # The status and the provider's error type, never the provider's text (it may echo the prompt).
    assert info.value.retryable is False and "HTTP 400 (invalid_request_error)" in info.value.message
    assert "canned failure" not in info.value.message
    assert len(anthropic_server.requests) == 1


async def test_a_guarded_base_url_whose_name_resolves_to_loopback_is_refused_at_connect(
    anthropic_server: AnthropicServer,
) -> None:
    url = f"http://localhost:{anthropic_server.port}"
    target = ModelTarget(
        "anthropic", "claude-3-5-haiku-latest", url, "sk-ant-test", True, allow_private=False
    )
    anthropic_server.push(message(text_block("not reached")))
    with pytest.raises(ModelError) as info:
        await AnthropicProvider(target, max_retries=0).complete(request())
    assert info.value.retryable is False and "loopback" in info.value.message
    assert anthropic_server.requests == []
