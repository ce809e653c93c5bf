"""Middleware of Serve's HTTP server (not of our app): Serve's own answers in our envelope.

It runs in Serve's Python proxy, and with HAProxy ingress in each replica's own HTTP server, around
our app. Two answers come from Serve rather than our app:

- Backpressure: a request beyond `max_queued_requests` is refused by Serve with a plain-text 429
  (its `backpressure_config`, `Retry-After` included); it gets our envelope, headers kept.
- A cut-off request: when a replica dies in the middle of a request (killed, its node lost), the proxy gets no response
for it and its web server falls back to a bare `500 Internal Server Error`. Our application always
answers itself (its crashes become enveloped 500s in `serve.middleware`), so a request that leaves
the proxy with no response at all was cut off on its way: it becomes a 503 in the API's envelope
with `Retry-After`, which clients treat as retryable. Work the request had started goes on (a run's
task is in Redis and has its own runner).

  With HAProxy ingress the replica is gone with its middleware; `serve.haproxy_launch` gives
  HAProxy the same answer.

Serve loads it from `RAY_SERVE_HTTP_PROXY_CALLBACK_IMPORT_PATH` (`PROXY_ENV`), in every proxy and,
with direct ingress, in every ingress replica.
"""

from __future__ import annotations

import contextlib
import json
import logging

from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from serve.edge_answers import BACKPRESSURE_MESSAGE, INTERRUPTED_MESSAGE, RETRY_AFTER_SECONDS
from serve.errors import AGENTS_PREFIX

log = logging.getLogger(__name__)

#: The environment of the Serve controller (and so of the proxies it starts).
PROXY_ENV = {"RAY_SERVE_HTTP_PROXY_CALLBACK_IMPORT_PATH": "serve.proxy_middleware:proxy_middlewares"}
#: Serve answers backpressure with this status (serve.deployment.BACKPRESSURE) in plain text; our
#: app's own 429s (rate limits) are JSON and pass untouched.
BACKPRESSURE_STATUS = 429


class InterruptedRequests:
    """Pure ASGI, so streamed and held responses pass through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False
        refusal: Message | None = None

        async def watch(message: Message) -> None:
            nonlocal started, refusal
            if message["type"] == "http.response.start":
                started = True
                if _is_serve_refusal(message):
                    refusal = message
                    return
            if refusal is not None:
                # Serve's plain-text body is dropped; ours goes out when it ends.
                if not message.get("more_body", False):
                    await _enveloped(scope, send, refusal, BACKPRESSURE_MESSAGE)
                return
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


def _is_serve_refusal(start: Message) -> bool:
    if start["status"] != BACKPRESSURE_STATUS:
        return False
    content_type = dict(start.get("headers", [])).get(b"content-type", b"")
    return bytes(content_type).startswith(b"text/plain")


async def _enveloped(scope: Scope, send: Send, start: Message, message: str) -> None:
    """`start`'s status and headers (Retry-After among them) with `message` in the API's envelope."""
    key = "error" if str(scope["path"]).startswith(AGENTS_PREFIX) else "detail"
    body = json.dumps({key: message}).encode()
    kept = [
        (k, v) for k, v in start.get("headers", []) if k.lower() not in (b"content-type", b"content-length")
    ]
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *kept]
    await send({"type": "http.response.start", "status": start["status"], "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _unavailable(scope: Scope, send: Send) -> None:
    start = {"status": 503, "headers": [(b"retry-after", str(RETRY_AFTER_SECONDS).encode())]}
    await _enveloped(scope, send, start, INTERRUPTED_MESSAGE)


def proxy_middlewares() -> list[Middleware]:
    return [Middleware(InterruptedRequests)]
