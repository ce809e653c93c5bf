"""The example MCP server (examples/mcp_server.py: the official SDK's FastMCP, Streamable HTTP) on a
free loopback port, for tests. It runs uvicorn in a background thread and records the JSON-RPC
methods it received (`tools/call` with the tool's name and the Authorization header it came with),
so a test can tell a call that never reached the server from one that did, and whose credentials
it carried; `stop` takes it down mid-test. `listing_bytes` adds tools
with long descriptions until its tools/list answer is about that large; `sse` answers in an event
stream instead of JSON.
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
        self._calls: list[tuple[str, dict[str, Any], str | None]] = []
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def tool_calls(self, name: str | None = None) -> list[dict[str, Any]]:
        """The arguments of every `tools/call` received (of tool `name` only, when given)."""
        with self._lock:
            return [args for tool, args, _ in self._calls if name is None or tool == name]

    def call_authorizations(self, name: str | None = None) -> list[str | None]:
        """The Authorization header of every `tools/call` received (of tool `name` only, when given)."""
        with self._lock:
            return [auth for tool, _, auth in self._calls if name is None or tool == name]

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
            headers = dict(scope.get("headers") or [])
            authorization = headers.get(b"authorization")
            self._note(body, authorization.decode("latin-1") if authorization is not None else None)
            sent = False

            async def replay() -> Message:
                nonlocal sent
                if sent:
                    return await receive()
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}

            await app(scope, replay, send)

        return wrapped

    def _note(self, body: bytes, authorization: str | None) -> None:
        try:
            message = json.loads(body)
        except ValueError:
            return
        if isinstance(message, dict) and message.get("method") == "tools/call":
            params = message.get("params") or {}
            with self._lock:
                self._calls.append(
                    (str(params.get("name")), dict(params.get("arguments") or {}), authorization)
                )

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
