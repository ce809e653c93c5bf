"""What a model call costs: a connection's own `price` first, else the `genai-prices` data.

`genai-prices` ships maintained per-provider price data inside the package (nothing is downloaded
at run time). Each call is priced with its own token counts, so a model whose rate depends on the
prompt's size (claude-sonnet-4-5 costs more per token past 200k input tokens) is charged the rate of
that call, and cached input is charged at its cache-read and cache-write rates.

A model neither knows has no price: its calls cost `None` (unknown), its tokens are still counted,
`settings.max_tokens_per_task` stops a runaway task whatever its price, and a spend cap cannot be
kept on it (docs/contract.md section 2, "Spend caps").
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from actors.models.targets import ModelTarget

_MILLION = 1_000_000


def cost_usd(
    target: ModelTarget,
    input_tokens: int,
    output_tokens: int,
    *,
    cache_read_tokens: int = 0,
    cache_write_tokens: int = 0,
) -> float | None:
    """The price of one call to `target`, or None when nobody prices the model.

    `input_tokens` counts every input token of the call, the cached ones included; of them,
    `cache_read_tokens` were read from the provider's prompt cache and `cache_write_tokens` written
    to it.
    """
    cache_read_tokens = min(cache_read_tokens, input_tokens)
    cache_write_tokens = min(cache_write_tokens, input_tokens - cache_read_tokens)
    if target.price is not None:
        own = target.price
        uncached = input_tokens - cache_read_tokens - cache_write_tokens
        read_rate = own.input if own.cache_read is None else own.cache_read
        write_rate = own.input if own.cache_write is None else own.cache_write
        return (
            uncached * own.input
            + cache_read_tokens * read_rate
            + cache_write_tokens * write_rate
            + output_tokens * own.output
        ) / _MILLION
    if not is_listed(target.provider, target.model):
        return None
    return _listed_cost(
        target.provider, target.model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens
    )


def is_priced(target: ModelTarget | None) -> bool:
    """Whether calls to `target` have a known price; None (the scripted model, whose turns state
    their own cost) always has."""
    return target is None or target.price is not None or is_listed(target.provider, target.model)


@lru_cache(maxsize=256)
def is_listed(provider: str, model: str) -> bool:
    """Whether `genai-prices` has a price for `model` at `provider`."""
    from genai_prices import Usage, calc_price

    try:
        calc_price(Usage(input_tokens=0, output_tokens=0), model, provider_id=provider)
    except LookupError:
        return False
    return True


def _listed_cost(
    provider: str, model: str, input_tokens: int, output_tokens: int, cache_read: int, cache_write: int
) -> float:
    from genai_prices import Usage, calc_price

    usage = Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
    )
    return float(calc_price(usage, model, provider_id=provider).total_price)
