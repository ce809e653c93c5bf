"""The example MCP server (examples/mcp_server.py: the official SDK's FastMCP, Streamable HTTP) on a
free loopback port, for tests. It runs uvicorn in a background thread and records the JSON-RPC
methods it received (`tools/call` with the tool's name, arguments, `_meta` and HTTP headers), so a
test can tell a call that never reached the server from one that did, count the sends and see whose
credentials each carried; `stop`
takes it down mid-test, and `fail` makes one tool's calls answer an HTTP error (a 503) until `heal`.
`listing_bytes` adds tools with long descriptions until its tools/list answer is about that large;
`sse` answers in an event stream instead of JSON.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any, Self

import uvicorn
from starlette.types import Message, Receive, Scope, Send

from examples.mcp_server import build_server

#: Longest wait for the server thread to start listening or to stop.
STARTUP_DEADLINE_SECONDS = 10.0
#: Description length of each tool `listing_bytes` adds.
BULK_DESCRIPTION_CHARS = 10_000


def bulk_tool(n: int) -> str:
    """Echo `n`: one of the tools that make a listing long."""
    return str(n)


class McpTestServer:
    def __init__(self, *, listing_bytes: int = 0, sse: bool = False) -> None:
        self._listing_bytes = listing_bytes
        self._sse = sse
        self._lock = threading.Lock()
        self._calls: list[dict[str, Any]] = []
        self._failing: dict[str, int] = {}
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def tool_calls(self, name: str | None = None) -> list[dict[str, Any]]:
        """The arguments of every `tools/call` received (of tool `name` only, when given)."""
        return [request["arguments"] for request in self.tool_requests(name)]

    def tool_requests(self, name: str | None = None) -> list[dict[str, Any]]:
        """Every `tools/call` received (of tool `name` only): `{tool, arguments, meta, headers, at}`,
        headers with lower-case names, `at` the monotonic time it arrived; failed ones included."""
        with self._lock:
            return [dict(c) for c in self._calls if name is None or c["tool"] == name]

    def call_authorizations(self, name: str | None = None) -> list[str | None]:
        """The Authorization header of every `tools/call` received (of tool `name` only): whose
        credentials each call carried."""
        return [request["headers"].get("authorization") for request in self.tool_requests(name)]

    def fail(self, tool: str, status: int = 503) -> None:
        """Answer every `tools/call` of `tool` with HTTP `status` (after recording it) until `heal`."""
        with self._lock:
            self._failing[tool] = status

    def heal(self, tool: str) -> None:
        with self._lock:
            self._failing.pop(tool, None)

    def _recording(self, app: Any) -> Any:
        async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http" or scope["method"] != "POST":
                await app(scope, receive, send)
                return
            chunks: list[bytes] = []
            more = True
            while more:
                message = await receive()
                chunks.append(message.get("body", b""))
                more = message.get("more_body", False)
            body = b"".join(chunks)
            status = self._note(body, scope)
            if status is not None:
                await send(
                    {
                        "type": "http.response.start",
                        "status": status,
                        "headers": [(b"content-type", b"text/plain")],
                    }
                )
                await send({"type": "http.response.body", "body": b"unavailable"})
                return
            sent = False

            async def replay() -> Message:
                nonlocal sent
                if sent:
                    return await receive()
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}

            await app(scope, replay, send)

        return wrapped

    def _note(self, body: bytes, scope: Scope) -> int | None:
        """Record a `tools/call`; the HTTP status to answer it with when its tool is made to fail."""
        try:
            message = json.loads(body)
        except ValueError:
            return None
        if not isinstance(message, dict) or message.get("method") != "tools/call":
            return None
        params = message.get("params") or {}
        tool = str(params.get("name"))
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        with self._lock:
            self._calls.append(
                {
                    "tool": tool,
                    "arguments": dict(params.get("arguments") or {}),
                    "meta": dict(params.get("_meta") or {}),
                    "headers": headers,
                    "at": time.monotonic(),
                }
            )
            return self._failing.get(tool)

    def start(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        server = build_server(port=self.port, json_response=not self._sse)
        for index in range(-(-self._listing_bytes // BULK_DESCRIPTION_CHARS)):
            server.add_tool(
                bulk_tool, name=f"bulk_{index}", description=f"{index} " + "x" * BULK_DESCRIPTION_CHARS
            )
        app = server.streamable_http_app()
        config = uvicorn.Config(
            self._recording(app), log_level="warning", lifespan="on", timeout_graceful_shutdown=1
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="mcp-test-server", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + STARTUP_DEADLINE_SECONDS
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the MCP test server did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(STARTUP_DEADLINE_SECONDS)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
