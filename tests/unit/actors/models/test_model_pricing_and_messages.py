import json
from typing import Any

import pytest

from actors.models.anthropic import AnthropicProvider
from actors.models.base import ModelResponse, ToolCall, Usage
from actors.models.messages import assistant_message, system_message, tool_message, user_message
from actors.models.openai import OpenAIProvider
from actors.models.pricing import cost_usd, is_priced
from actors.models.targets import ModelTarget
from core.stores.model_connections import Price

pytestmark = pytest.mark.unit


def target(model: str, **kwargs: Any) -> ModelTarget:
    return ModelTarget(kwargs.pop("provider", "openai"), model, "https://x", None, False, **kwargs)


def price(model: str, input_tokens: int, output_tokens: int, **kwargs: Any) -> float | None:
    cache = {k: kwargs.pop(k) for k in ("cache_read_tokens", "cache_write_tokens") if k in kwargs}
    return cost_usd(target(model, **kwargs), input_tokens, output_tokens, **cache)


def test_listed_model_price_from_genai_prices() -> None:
    assert price("gpt-4o-mini", 1_000_000, 1_000_000) == pytest.approx(0.75)
    assert price("gpt-4o", 1000, 500) == pytest.approx((1000 * 2.5 + 500 * 10) / 1e6)
    assert price("claude-3-5-haiku-latest", 1_000_000, 0, provider="anthropic") == pytest.approx(0.8)


def test_dated_snapshot_is_priced_as_its_model() -> None:
    assert price("gpt-4o-mini-2024-07-18", 1_000_000, 0) == pytest.approx(0.15)


# Anthropic's published price sheet (anthropic.com/pricing, Claude Sonnet 4.5), USD per million
# tokens: prompts up to 200k tokens $3 input, $15 output, $0.30 cache hits, $3.75 cache writes;
# prompts over 200k tokens $6 input, $22.50 output, $0.60 cache hits, $7.50 cache writes.
def test_a_tiered_model_is_priced_at_the_tier_of_each_call() -> None:
    sonnet = {"provider": "anthropic"}
    assert price("claude-sonnet-4-5", 1000, 1000, **sonnet) == pytest.approx(0.018)
    assert price("claude-sonnet-4-5", 1_000_000, 0, **sonnet) == pytest.approx(6.0)
    assert price("claude-sonnet-4-5", 200_000, 0, **sonnet) == pytest.approx(0.6)
    assert price("claude-sonnet-4-5", 300_000, 1000, **sonnet) == pytest.approx(1.8 + 0.0225)


def test_cached_input_is_priced_at_the_cache_rates() -> None:
    # 10,000 input tokens: 1,000 uncached at $3, 8,000 cache hits at $0.30, 1,000 cache writes at $3.75.
    cached = price(
        "claude-sonnet-4-5",
        10_000,
        100,
        provider="anthropic",
        cache_read_tokens=8000,
        cache_write_tokens=1000,
    )
    assert cached == pytest.approx((1000 * 3 + 8000 * 0.30 + 1000 * 3.75 + 100 * 15) / 1e6)
    # OpenAI's price sheet (openai.com/api/pricing), gpt-4o: $2.50 input, $1.25 cached input, $10 output.
    assert price("gpt-4o", 1000, 100, cache_read_tokens=600) == pytest.approx(
        (400 * 2.5 + 600 * 1.25 + 100 * 10) / 1e6
    )


def test_each_provider_reads_its_cached_tokens_from_its_own_usage_shape() -> None:
    sonnet = AnthropicProvider(target("claude-sonnet-4-5", provider="anthropic"))
    # The Messages API's `input_tokens` leaves the cached tokens out.
    anthropic_usage = {
        "input_tokens": 1000,
        "cache_read_input_tokens": 8000,
        "cache_creation_input_tokens": 1000,
        "output_tokens": 100,
    }
    charged = sonnet._usage(anthropic_usage)
    assert (charged.input_tokens, charged.output_tokens, charged.cost_known) == (10_000, 100, True)
    assert charged.cost_usd == pytest.approx(0.01065)
    gpt = OpenAIProvider(target("gpt-4o-mini"))
    # Chat completions count the cached tokens inside `prompt_tokens` (gpt-4o-mini: $0.15 input,
    # $0.075 cached input, $0.60 output).
    openai_usage = {
        "prompt_tokens": 2000,
        "completion_tokens": 10,
        "prompt_tokens_details": {"cached_tokens": 1024},
    }
    expected = (976 * 0.15 + 1024 * 0.075 + 10 * 0.60) / 1e6
    charged = gpt._usage(openai_usage)
    assert (charged.input_tokens, charged.output_tokens, charged.cost_known) == (2000, 10, True)
    assert charged.cost_usd == pytest.approx(expected)


def test_an_unknown_model_has_no_price() -> None:
    assert price("llama3-local", 10_000, 10_000) is None
    assert not is_priced(target("llama3-local")) and is_priced(target("gpt-4o")) and is_priced(None)
    unpriced = OpenAIProvider(target("llama3-local"))._usage({"prompt_tokens": 5, "completion_tokens": 1})
    assert unpriced == Usage(5, 1, 0.0, cost_known=False)
    assert not (unpriced + Usage(1, 1, 0.5)).cost_known


def test_a_connection_price_wins() -> None:
    assert price("gpt-4o", 1_000_000, 2_000_000, price=Price(input=1, output=2)) == pytest.approx(5.0)
    assert price("llama3-local", 1_000_000, 0, price=Price(input=0.5, output=0)) == pytest.approx(0.5)
    assert is_priced(target("llama3-local", price=Price(input=0.5, output=0)))


def test_a_connection_price_may_set_cache_rates() -> None:
    own = Price(input=1, output=2, cache_read=0.1)
    # Cache writes have no rate of their own here: they cost the input rate.
    assert price(
        "llama3-local", 1_000_000, 0, price=own, cache_read_tokens=500_000, cache_write_tokens=100_000
    ) == pytest.approx(0.4 * 1 + 0.5 * 0.1 + 0.1 * 1)


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
