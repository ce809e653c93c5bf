"""`/mcp`: Agentry as an MCP server (Streamable HTTP), on the same app, keys and limits as /api/v1.

Each request is authenticated and charged to its key's rate limit exactly as an /api/v1 request is
(`serve.deps.principal_of`), then handed to the official SDK's `StreamableHTTPSessionManager` in
stateless JSON mode: no MCP session lives in a replica, so any replica answers any request and a
replica restart loses nothing. What the tools do is `serve.mcp_catalog`, always inside the key's
workspace. The manager needs a task group running for as long as the replica serves; it is started
in the replica's event loop on the first request, so the app's lifespan stays as it was.
"""

from __future__ import annotations

import asyncio
from typing import Any

from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.types import CallToolResult, Tool
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from core.stores.apikeys import Principal
from serve import mcp_catalog
from serve.deps import principal_of
from serve.errors import expected_failure
from serve.state import edge_state

PATH = "/mcp"
_PRINCIPAL = "agentry_principal"


def _principal(server: Server[Any, Any]) -> Principal:
    request = server.request_context.request
    principal: Principal = request.scope["state"][_PRINCIPAL]  # type: ignore[union-attr]
    return principal


def build_server() -> Server[Any, Any]:
    server: Server[Any, Any] = Server("agentry")

    @server.list_tools()  # type: ignore[no-untyped-call]
    async def list_tools() -> list[Tool]:
        return await mcp_catalog.list_tools(edge_state(), _principal(server).workspace_id)

    # Arguments are checked by each tool's own model: the SDK's check would use a tool list cached
    # across workspaces.
    @server.call_tool(validate_input=False)
    async def call_tool(name: str, arguments: dict[str, Any]) -> CallToolResult:
        return await mcp_catalog.call_tool(edge_state(), _principal(server).workspace_id, name, arguments)

    return server


class McpEndpoint:
    """The ASGI app of `/mcp`."""

    def __init__(self) -> None:
        self._manager = StreamableHTTPSessionManager(app=build_server(), json_response=True, stateless=True)
        self._ready: asyncio.Event | None = None
        self._holder: asyncio.Task[None] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            principal = await principal_of(edge_state(), Headers(scope=scope).get("authorization"))
        except Exception as exc:
            answer = expected_failure(exc)
            if answer is None:
                raise
            status, message, headers = answer
            await JSONResponse({"error": message}, status_code=status, headers=headers)(scope, receive, send)
            return
        scope.setdefault("state", {})[_PRINCIPAL] = principal
        await self._running()
        await self._manager.handle_request(scope, receive, send)

    async def _running(self) -> None:
        if self._ready is None:
            self._ready = asyncio.Event()
            self._holder = asyncio.create_task(self._hold(self._ready))
        await self._ready.wait()

    async def _hold(self, ready: asyncio.Event) -> None:
        async with self._manager.run():
            ready.set()
            # Until the replica's loop ends: the manager's task group runs every request's server.
            await asyncio.Event().wait()
