"""What a model call costs: a connection's own `price` first, else the `genai-prices` data.

`genai-prices` ships maintained per-provider price data inside the package (nothing is downloaded
at run time). A model neither knows costs 0.0: its tokens are still counted, and
`settings.max_tokens_per_task` stops a runaway task whatever its price.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from actors.models.targets import ModelTarget


def cost_usd(target: ModelTarget, input_tokens: int, output_tokens: int) -> float:
    """The price of one call to `target` with these token counts."""
    if target.price is not None:
        return (input_tokens * target.price.input + output_tokens * target.price.output) / 1_000_000
    per_million = listed_price(target.provider, target.model)
    if per_million is None:
        return 0.0
    return (input_tokens * per_million[0] + output_tokens * per_million[1]) / 1_000_000


@lru_cache(maxsize=256)
def listed_price(provider: str, model: str) -> tuple[float, float] | None:
    """USD per million (input, output) tokens of `model` at `provider`, or None when not listed."""
    from genai_prices import Usage, calc_price

    million = 1_000_000
    try:
        inputs = calc_price(Usage(input_tokens=million, output_tokens=0), model, provider_id=provider)
        outputs = calc_price(Usage(input_tokens=0, output_tokens=million), model, provider_id=provider)
    except LookupError:
        return None
    return float(inputs.total_price), float(outputs.total_price)
