"""What both SDK clients are built with, and how they reach a workspace's host.

The key is always passed explicitly: without one the SDKs would read OPENAI_API_KEY or
ANTHROPIC_API_KEY from the environment and send the operator's key to whatever base URL the
provider was given. With no key, the SDK still insists on one, so a placeholder is passed and every
header that would carry it is omitted from the request.

A guarded target's base URL came from a workspace: its client connects only to an address
`core.infra.url_guard` checked at connect time (`GuardedTransport`: resolve, check, connect to that IP
with the name's Host header and TLS SNI, so certificates still verify against the name). Checking
the name once when the model is resolved and letting the SDK resolve it again would leave a
DNS-rebinding window.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

import httpx2

from actors.models.base import ModelError
from actors.models.errors import sdk_error
from actors.models.targets import ModelTarget
from core.infra.url_guard import BlockedURL, GuardedTransport

#: Longest wait for one HTTP exchange with the model server.
DEFAULT_TIMEOUT_SECONDS = 120.0
#: Retries the SDK makes on its own (429, 5xx, timeouts) before the runtime's failure policy sees it.
DEFAULT_SDK_RETRIES = 3
#: Sent as the key when there is none: the SDKs insist on one, and its headers are then omitted.
_NO_KEY = "no-key"


def client_options(target: ModelTarget, *, timeout_seconds: float, max_retries: int) -> dict[str, Any]:
    """Keyword arguments for either SDK's async client calling `target`."""
    options: dict[str, Any] = {
        "api_key": target.api_key or _NO_KEY,
        "base_url": target.base_url,
        "timeout": timeout_seconds,
        "max_retries": max_retries,
    }
    if target.guarded:
        # Built over httpx2, whose transport base class it duck-types.
        transport: Any = GuardedTransport(
            allow_private=target.allow_private, what="model base URL", http=httpx2
        )
        # No proxy from the environment: the connection must go to the checked address itself.
        options["http_client"] = httpx2.AsyncClient(
            transport=transport, trust_env=False, timeout=timeout_seconds
        )
    return options


def key_headers(target: ModelTarget, names: Iterable[str], omit: Any) -> dict[str, Any]:
    """Extra headers that drop each of the key's headers `names` when `target` has no key."""
    return {} if target.api_key else {name: omit for name in names}


@asynccontextmanager
async def mapped_errors(error_type: type[Exception]) -> AsyncIterator[None]:
    """Raise an SDK's `error_type` as the runtime's `ModelError` (`actors.models.errors`), and a
    base URL whose name now resolves to a refused address as a ModelError that is not retried."""
    try:
        yield
    except (BlockedURL, error_type) as exc:
        # One SDK lets the transport's refusal through, the other wraps it as a connection error.
        blocked = exc if isinstance(exc, BlockedURL) else exc.__cause__
        if isinstance(blocked, BlockedURL):
            raise ModelError(f"the model server's address is not allowed: {blocked.message}", False) from None
        raise sdk_error(exc) from None
