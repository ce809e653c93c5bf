"""What the sync and async clients share about httpx: settings, the request a `Call` becomes, and
how an answer or a connection error is handed back to a flow."""

from __future__ import annotations

import os
from typing import Any

import httpx

from .errors import AgentryClientError
from .protocol import Call, Reply, TransportFailure

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
API_KEY_ENV = "AGENTRY_API_KEY"
#: docs/spec.md, Limits: use a client timeout of at least 10 minutes for long-running agents (a run with
#: `async=false` is held for up to `X-Sync-Budget-Seconds`, 300 by default).
DEFAULT_TIMEOUT = httpx.Timeout(600.0, connect=10.0)
#: A live event stream sends `: ping` comments; a read that waits longer than this for anything
#: counts as a dropped connection and the stream reconnects.
EVENTS_READ_TIMEOUT = 60.0

#: Errors that prove the request never left: no connection was made, or none was free in the pool.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


def resolve_api_key(api_key: str | None) -> str:
    key = api_key or os.environ.get(API_KEY_ENV)
    if not key:
        raise AgentryClientError(f"no API key: pass api_key= or set {API_KEY_ENV}")
    return key


def client_options(base_url: str, api_key: str | None, timeout: float | httpx.Timeout) -> dict[str, Any]:
    """Keyword arguments of `httpx.Client` and `httpx.AsyncClient`."""
    return {
        "base_url": base_url,
        "headers": {"Authorization": f"Bearer {resolve_api_key(api_key)}", "User-Agent": "agentry-client"},
        "timeout": timeout,
    }


def request_options(call: Call) -> dict[str, Any]:
    """Keyword arguments of `httpx.Client.request` for a `Call`."""
    options: dict[str, Any] = {"params": dict(call.params), "headers": dict(call.headers)}
    if call.files is not None:
        options["files"] = list(call.files)
        options["data"] = dict(call.data or {})
    elif call.json is not None:
        options["json"] = call.json
    return options


def to_reply(response: httpx.Response) -> Reply:
    return Reply(
        status=response.status_code,
        headers={k.lower(): v for k, v in response.headers.items()},
        content=response.content,
    )


def to_failure(exc: httpx.TransportError) -> TransportFailure:
    return TransportFailure(f"{type(exc).__name__}: {exc}", sent=not isinstance(exc, _NOT_SENT))
