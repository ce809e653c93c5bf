"""What both SDK clients are built with, and how they reach a workspace's host.

The key is always passed explicitly: without one the SDKs would read OPENAI_API_KEY or
ANTHROPIC_API_KEY from the environment and send the operator's key to whatever base URL the
provider was given. With no key, the SDK still insists on one, so a placeholder is passed and every
header that would carry it is omitted from the request.

A guarded target's base URL came from a workspace: its client connects only to an address
`core.url_guard` checked at connect time (`GuardedTransport`: resolve, check, connect to that IP
with the name's Host header and TLS SNI, so certificates still verify against the name). Checking
the name once when the model is resolved and letting the SDK resolve it again would leave a
DNS-rebinding window.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

import httpx

from actors.models.errors import sdk_error
from actors.models.targets import ModelTarget
from core.url_guard import GuardedTransport

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
        transport = GuardedTransport(allow_private=target.allow_private, what="model base URL")
        # No proxy from the environment: the connection must go to the checked address itself.
        options["http_client"] = httpx.AsyncClient(
            transport=transport, trust_env=False, timeout=timeout_seconds
        )
    return options


def key_headers(target: ModelTarget, names: Iterable[str], omit: Any) -> dict[str, Any]:
    """Extra headers that drop each of the key's headers `names` when `target` has no key."""
    return {} if target.api_key else {name: omit for name in names}


@asynccontextmanager
async def mapped_errors(error_type: type[Exception]) -> AsyncIterator[None]:
    """Raise an SDK's `error_type` as the runtime's `ModelError` (`actors.models.errors`)."""
    try:
        yield
    except error_type as exc:
        raise sdk_error(exc) from None
