import json
from typing import Any

import pytest

from actors.models.base import ModelResponse, ToolCall, Usage
from actors.models.messages import assistant_message, system_message, tool_message, user_message
from actors.models.pricing import cost_usd
from actors.models.targets import ModelTarget
from core.model_connections import Price

pytestmark = pytest.mark.unit


def price(model: str, input_tokens: int, output_tokens: int, **kwargs: Any) -> float:
    target = ModelTarget(kwargs.pop("provider", "openai"), model, "https://x", None, False, **kwargs)
    return cost_usd(target, input_tokens, output_tokens)


def test_listed_model_price_from_genai_prices() -> None:
    assert price("gpt-4o-mini", 1_000_000, 1_000_000) == pytest.approx(0.75)
    assert price("gpt-4o", 1000, 500) == pytest.approx((1000 * 2.5 + 500 * 10) / 1e6)
    assert price("claude-3-5-haiku-latest", 1_000_000, 0, provider="anthropic") == pytest.approx(0.8)


def test_dated_snapshot_is_priced_as_its_model() -> None:
    assert price("gpt-4o-mini-2024-07-18", 1_000_000, 0) == pytest.approx(0.15)


def test_unknown_model_costs_nothing() -> None:
    assert price("llama3-local", 10_000, 10_000) == 0.0


def test_a_connection_price_wins() -> None:
    assert price("gpt-4o", 1_000_000, 2_000_000, price=Price(input=1, output=2)) == pytest.approx(5.0)
    assert price("llama3-local", 1_000_000, 0, price=Price(input=0.5, output=0)) == pytest.approx(0.5)


def test_usage_adds_up() -> None:
    total = Usage(1, 2, 0.5) + Usage(10, 20, 0.25)
    assert total == Usage(11, 22, 0.75)


def test_message_builders_use_the_openai_wire_form() -> None:
    assert system_message("s") == {"role": "system", "content": "s"}
    assert user_message("u") == {"role": "user", "content": "u"}
    response = ModelResponse(
        text=None, tool_calls=[ToolCall("call_0_0", "ask_user", {"question": "é?"})], final=False
    )
    message = assistant_message(response)
    assert message["role"] == "assistant" and message["content"] is None
    (call,) = message["tool_calls"]
    assert call["id"] == "call_0_0" and call["type"] == "function"
    assert call["function"]["name"] == "ask_user"
    assert json.loads(call["function"]["arguments"]) == {"question": "é?"}
    assert "tool_calls" not in assistant_message(ModelResponse(text="bye"))
    assert tool_message("c1", {"a": 1}) == {"role": "tool", "tool_call_id": "c1", "content": '{"a": 1}'}
    assert tool_message("c1", "raw")["content"] == "raw"
