"""Talking to a workspace's remote MCP server with the official SDK's Streamable HTTP client.

Every request goes through `core.infra.url_guard.GuardedTransport`: the server's host is resolved and
checked on each request (redirect hops included) and the connection goes to the checked address,
so a name that later resolves to a private address reaches nothing. No proxy from the environment
is used, for the same reason. Each operation opens its own session (initialize, then the request)
under one deadline: a server is never held open between a task's steps.

Each answer of the server (initialize, every tools/list page, a call's answer) is bounded by
`max_bytes` while it is read (`actors.mcp_read_budget`): an answer past it stops the operation and
is dropped, never held whole. A listing's pages together are held to the same bound.

Failures are sorted for the runtime: `McpUnreachable` (connection refused, timeout, 5xx: worth
retrying), `McpRefused` (the URL guard refused the address: never retried), `McpTooLarge` (the
server answered more than the bound: never retried) and `McpProtocolError` (the server answered
with a JSON-RPC error or something that is not MCP).

A call may carry an idempotency key (a reviewed call's: one per approval, `actors.review_binding`):
it goes out as the `Idempotency-Key` HTTP header on each request of the call's session and as
`_meta["io.agentry/idempotency-key"]` of the `tools/call` request, so a server that keeps keys can
drop a repeat.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio
import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError
from mcp.types import CallToolResult, Tool

from actors.mcp_read_budget import IDENTITY, BoundedTransport, CompressedAnswer, ReadBudget
from core.infra.url_guard import BlockedURL, GuardedTransport
from core.stores.mcp_servers import URL_NAME, McpServer

T = TypeVar("T")
#: The setting that bounds what one operation reads, named in the error a reader sees.
MAX_BYTES_SETTING = "AGENTRY_MCP_MAX_RESULT_BYTES"
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


class McpTooLarge(McpFailure):
    """The server answered more bytes than one operation may read."""


def too_large(server: str, max_bytes: int) -> McpTooLarge:
    return McpTooLarge(
        f"the MCP server {server!r} answered more than {max_bytes} bytes, the bound "
        f"{MAX_BYTES_SETTING} sets on what one MCP request reads; the answer was dropped"
    )


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
        if isinstance(leaf, CompressedAnswer):
            return McpProtocolError(
                f"the MCP server {server!r} answered with Content-Encoding {leaf.encoding!r} "
                "though it was asked not to compress"
            )
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
    budget: ReadBudget,
    *,
    allow_private: bool,
    limit_seconds: float,
    extra_headers: dict[str, str] | None = None,
) -> AsyncIterator[ClientSession]:
    transport = BoundedTransport(GuardedTransport(allow_private=allow_private, what=URL_NAME), budget)
    client = httpx.AsyncClient(
        transport=transport,
        headers=server.headers | (extra_headers or {}) | IDENTITY,
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


async def _run(
    server: McpServer,
    operation: Callable[[ClientSession], Awaitable[T]],
    *,
    allow_private: bool,
    limit_seconds: float,
    max_bytes: int,
    extra_headers: dict[str, str] | None = None,
) -> T:
    """`operation` on a fresh session under one deadline and one read budget; raises an `McpFailure`."""
    budget = ReadBudget(max_bytes)
    try:
        with anyio.fail_after(limit_seconds), budget.scope:
            async with _session(
                server,
                budget,
                allow_private=allow_private,
                limit_seconds=limit_seconds,
                extra_headers=extra_headers,
            ) as s:
                return await operation(s)
    except Exception as exc:
        if budget.exceeded:
            raise too_large(server.name, max_bytes) from None
        raise classify(exc, server.name) from None
    # Only the budget cancels its scope, and the scope then ends the session without an answer.
    raise too_large(server.name, max_bytes)


async def list_tools(
    server: McpServer, *, allow_private: bool, limit_seconds: float, max_bytes: int
) -> list[Tool]:
    """Every tool the server offers: all pages, each read within `max_bytes` and their tools
    together no larger (as JSON); raises an `McpFailure`."""

    async def all_pages(session: ClientSession) -> list[Tool]:
        tools: list[Tool] = []
        size = 0
        cursor: str | None = None
        while True:
            page = await session.list_tools(cursor=cursor) if cursor else await session.list_tools()
            tools += page.tools
            size += sum(len(tool.model_dump_json()) for tool in page.tools)
            if size > max_bytes:
                raise too_large(server.name, max_bytes)
            cursor = page.nextCursor
            if not cursor:
                return tools

    return await _run(
        server, all_pages, allow_private=allow_private, limit_seconds=limit_seconds, max_bytes=max_bytes
    )


async def call_tool(
    server: McpServer,
    tool: str,
    arguments: dict[str, Any],
    *,
    allow_private: bool,
    limit_seconds: float,
    max_bytes: int,
    idempotency_key: str | None = None,
) -> CallToolResult:
    """Call `tool` once, its answer read within `max_bytes`; raises an `McpFailure` (a tool's own
    error is `isError` in the result)."""
    headers = {IDEMPOTENCY_HEADER: idempotency_key} if idempotency_key else None
    meta = {IDEMPOTENCY_META: idempotency_key} if idempotency_key else None

    async def call(session: ClientSession) -> CallToolResult:
        return await session.call_tool(tool, arguments, meta=meta)

    return await _run(
        server,
        call,
        allow_private=allow_private,
        limit_seconds=limit_seconds,
        max_bytes=max_bytes,
        extra_headers=headers,
    )
