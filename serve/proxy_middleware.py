"""Middleware of Serve's HTTP proxy (not of our app): a request whose replica died answers 503.

When a replica dies in the middle of a request (killed, its node lost), the proxy gets no response
for it and its web server falls back to a bare `500 Internal Server Error`. Our application always
answers itself (its crashes become enveloped 500s in `serve.middleware`), so a request that leaves
the proxy with no response at all was cut off on its way: it becomes a 503 in the API's envelope
with `Retry-After`, which clients treat as retryable. Work the request had started goes on (a run's
task is in Redis and has its own runner).

Serve loads it in every proxy from `RAY_SERVE_HTTP_PROXY_CALLBACK_IMPORT_PATH` (`PROXY_ENV`).
"""

from __future__ import annotations

import contextlib
import json
import logging

from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from serve.errors import AGENTS_PREFIX

log = logging.getLogger(__name__)

#: The environment of the Serve controller (and so of the proxies it starts).
PROXY_ENV = {"RAY_SERVE_HTTP_PROXY_CALLBACK_IMPORT_PATH": "serve.proxy_middleware:proxy_middlewares"}
INTERRUPTED_MESSAGE = (
    "the server handling this request stopped before it answered; retry shortly "
    "(a run it started goes on: find it with GET /api/v1/tasks)"
)
RETRY_AFTER_SECONDS = 2


class InterruptedRequests:
    """Pure ASGI, so streamed and held responses pass through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            if not started:
                log.warning(
                    "request %s %s got no response from its replica", scope.get("method"), scope["path"]
                )
                # The client may be gone too (it is what cancelled the request): nothing to tell then.
                with contextlib.suppress(Exception):
                    await _unavailable(scope, send)


async def _unavailable(scope: Scope, send: Send) -> None:
    key = "error" if str(scope["path"]).startswith(AGENTS_PREFIX) else "detail"
    body = json.dumps({key: INTERRUPTED_MESSAGE}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 503,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(RETRY_AFTER_SECONDS).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def proxy_middlewares() -> list[Middleware]:
    return [Middleware(InterruptedRequests)]
