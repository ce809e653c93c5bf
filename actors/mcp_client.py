"""Talking to a workspace's remote MCP server with the official SDK's Streamable HTTP client.

Every request goes through `core.url_guard.GuardedTransport`: the server's host is resolved and
checked on each request (redirect hops included) and the connection goes to the checked address,
so a name that later resolves to a private address reaches nothing. No proxy from the environment
is used, for the same reason. Each operation opens its own session (initialize, then the request)
under one deadline: a server is never held open between a task's steps.

Failures are sorted for the runtime: `McpUnreachable` (connection refused, timeout, 5xx: worth
retrying), `McpRefused` (the URL guard refused the address: never retried) and `McpProtocolError`
(the server answered with a JSON-RPC error or something that is not MCP).

A call may carry an idempotency key (a reviewed call's: one per approval, `actors.review_binding`):
it goes out as the `Idempotency-Key` HTTP header on each request of the call's session and as
`_meta["io.agentry/idempotency-key"]` of the `tools/call` request, so a server that keeps keys can
drop a repeat.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError
from mcp.types import CallToolResult, Tool

from core.mcp_servers import URL_NAME, McpServer
from core.url_guard import BlockedURL, GuardedTransport

#: The HTTP header and the `tools/call` `_meta` entry an idempotency key travels in.
IDEMPOTENCY_HEADER = "Idempotency-Key"
IDEMPOTENCY_META = "io.agentry/idempotency-key"


class McpFailure(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class McpUnreachable(McpFailure):
    """The server could not be reached or did not answer in time; trying again may work."""


class McpRefused(McpFailure):
    """The URL guard refused the server's address."""


class McpProtocolError(McpFailure):
    """The server answered, but with an error or not as an MCP server would."""


def _leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups; anyio task groups wrap what they raise."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def classify(exc: BaseException, server: str) -> McpFailure:
    """The failure an exception out of the SDK's client stands for."""
    leaves = _leaves(exc)
    for leaf in leaves:
        if isinstance(leaf, McpFailure):
            return leaf
        if isinstance(leaf, BlockedURL):
            return McpRefused(f"the MCP server {server!r}'s address is not allowed: {leaf.message}")
        if isinstance(leaf, McpError):
            return McpProtocolError(f"the MCP server {server!r} answered with an error: {leaf.error.message}")
    for leaf in leaves:
        if isinstance(leaf, httpx.HTTPStatusError):
            status = leaf.response.status_code
            text = f"the MCP server {server!r} answered HTTP {status}"
            return McpUnreachable(text) if status >= 500 or status == 429 else McpProtocolError(text)
        if isinstance(leaf, httpx.TransportError | TimeoutError | anyio.ClosedResourceError | OSError):
            return McpUnreachable(f"the MCP server {server!r} is unreachable ({type(leaf).__name__})")
    name = type(leaves[0]).__name__ if leaves else type(exc).__name__
    return McpProtocolError(f"the MCP server {server!r} did not answer as an MCP server ({name})")


@asynccontextmanager
async def _session(
    server: McpServer,
    *,
    allow_private: bool,
    limit_seconds: float,
    extra_headers: dict[str, str] | None = None,
) -> AsyncIterator[ClientSession]:
    transport = GuardedTransport(allow_private=allow_private, what=URL_NAME)
    client = httpx.AsyncClient(
        transport=transport,
        headers={**server.headers, **(extra_headers or {})},
        timeout=httpx.Timeout(limit_seconds),
        trust_env=False,
    )
    async with (
        client,
        streamable_http_client(server.url, http_client=client) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def list_tools(server: McpServer, *, allow_private: bool, limit_seconds: float) -> list[Tool]:
    """Every tool the server offers (all pages); raises an `McpFailure`."""
    try:
        with anyio.fail_after(limit_seconds):
            async with _session(server, allow_private=allow_private, limit_seconds=limit_seconds) as session:
                tools: list[Tool] = []
                cursor: str | None = None
                while True:
                    page = await session.list_tools(cursor=cursor) if cursor else await session.list_tools()
                    tools += page.tools
                    cursor = page.nextCursor
                    if not cursor:
                        return tools
    except Exception as exc:
        raise classify(exc, server.name) from None


async def call_tool(
    server: McpServer,
    tool: str,
    arguments: dict[str, Any],
    *,
    allow_private: bool,
    limit_seconds: float,
    idempotency_key: str | None = None,
) -> CallToolResult:
    """Call `tool` once; raises an `McpFailure` (a tool's own error is `isError` in the result)."""
    headers = {IDEMPOTENCY_HEADER: idempotency_key} if idempotency_key else None
    meta = {IDEMPOTENCY_META: idempotency_key} if idempotency_key else None
    try:
        with anyio.fail_after(limit_seconds):
            async with _session(
                server, allow_private=allow_private, limit_seconds=limit_seconds, extra_headers=headers
            ) as session:
                return await session.call_tool(tool, arguments, meta=meta)
    except Exception as exc:
        raise classify(exc, server.name) from None
