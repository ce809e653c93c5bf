"""A small OpenAI-compatible chat-completions server for tests, on a free loopback port.

Tests queue the replies it gives, in order (`push`, `fail_next`), and read the requests it received
(`requests`). It runs uvicorn in a background thread, so synchronous and asynchronous tests can use
it alike. With nothing queued it answers 400, which the provider does not retry, so a test that
forgot a reply fails at once with a clear message.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Self

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

#: Longest wait for the server thread to start listening or to stop.
STARTUP_DEADLINE_SECONDS = 10.0


@dataclass(frozen=True)
class CannedReply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_seconds: float = 0.0


@dataclass(frozen=True)
class RecordedRequest:
    body: Any
    headers: dict[str, str]
    at: float  # time.monotonic() when the request arrived


def completion(
    content: str | None = None,
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
    model: str = "test-model",
) -> dict[str, Any]:
    """A chat-completions response body with one choice."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def function_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    """A tool call as a chat-completions message carries it; `arguments` is JSON text."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


class OpenAICompatibleServer:
    """Serves `POST /v1/chat/completions` from a queue of canned replies; `base_url` ends in /v1.

    Subclasses serve another provider's wire format by changing `ROUTE`, `BASE_PATH` and
    `error_body` (tests.support.anthropic_server).
    """

    ROUTE = "/v1/chat/completions"
    BASE_PATH = "/v1"
    NAME = "openai"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._replies: deque[CannedReply] = deque()
        self._requests: list[RecordedRequest] = []
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.BASE_PATH}"

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def push(
        self,
        body: Any,
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
        delay_seconds: float = 0.0,
    ) -> None:
        with self._lock:
            self._replies.append(CannedReply(status, body, dict(headers or {}), delay_seconds))

    def fail_next(self, status: int, *, times: int = 1, retry_after: str | None = None) -> None:
        """Queue `times` error replies with `status`, each with `Retry-After` when given."""
        headers = {"Retry-After": retry_after} if retry_after is not None else {}
        for _ in range(times):
            self.push(self.error_body(status, f"canned failure {status}"), status=status, headers=headers)

    def error_body(self, status: int, message: str) -> Any:
        """The provider's error body for `status`."""
        kind = {429: "rate_limit_exceeded", 401: "invalid_api_key"}.get(status, "server_error")
        return {"error": {"message": message, "type": kind, "param": None, "code": kind}}

    def reset(self) -> None:
        with self._lock:
            self._replies.clear()
            self._requests.clear()

    def start(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self._app(), log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name=f"{self.NAME}-test-server", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + STARTUP_DEADLINE_SECONDS
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError(f"the {self.NAME} test server did not start")
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

    def _app(self) -> FastAPI:
        app = FastAPI()

        @app.post(self.ROUTE)
        async def chat_completions(request: Request) -> JSONResponse:
            body = await request.json()
            with self._lock:
                self._requests.append(RecordedRequest(body, dict(request.headers), time.monotonic()))
                reply = self._replies.popleft() if self._replies else None
            if reply is None:
                return JSONResponse(
                    self.error_body(400, f"{self.NAME} test server: no reply queued"), status_code=400
                )
            if reply.delay_seconds:
                await asyncio.sleep(reply.delay_seconds)
            return JSONResponse(reply.body, status_code=reply.status, headers=reply.headers)

        return app
