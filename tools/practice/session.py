"""Token use around one practice call (docs/spec.md "Practice-management connector" rule 2)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from tools.practice.errors import InvalidToken

T = TypeVar("T")


async def call_with_token(
    get_token: Callable[[], Awaitable[str]],
    remint: Callable[[], Awaitable[str]],
    fn: Callable[[str], Awaitable[T]],
) -> T:
    """Run `fn` with the current access token; on `invalid_token` mint once and retry once.

    The platform refreshes tokens ahead of expiry; a tool mints only as this single reactive retry,
    so a second `invalid_token` propagates instead of looping.
    """
    token = await get_token()
    try:
        return await fn(token)
    except InvalidToken:
        fresh = await remint()
    return await fn(fresh)
