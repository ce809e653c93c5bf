"""What a model call costs, from a small table of list prices.

Prices are OpenAI's published list prices in USD per million tokens (input, output) when this table
was written; update them here when they change. A model the table does not know costs 0.0, so an
unknown or self-hosted model never trips a spend cap by accident.
"""

from __future__ import annotations

from collections.abc import Mapping

#: USD per million tokens, (input, output), keyed by model name. A dated snapshot name such as
#: `gpt-4o-mini-2024-07-18` is priced as its longest listed prefix (`gpt-4o-mini`).
PRICES_PER_MILLION_TOKENS: Mapping[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "gpt-3.5-turbo": (0.50, 1.50),
}


def cost_usd(model: str, input_tokens: int, output_tokens: int) -> float:
    """The list price of a call to `model` with these token counts; 0.0 for an unknown model."""
    listed = [name for name in PRICES_PER_MILLION_TOKENS if model == name or model.startswith(name + "-")]
    if not listed:
        return 0.0
    input_price, output_price = PRICES_PER_MILLION_TOKENS[max(listed, key=len)]
    return (input_tokens * input_price + output_tokens * output_price) / 1_000_000
