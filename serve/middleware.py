"""ASGI middleware of the edge (pure ASGI, so held and streamed responses are not buffered)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from serve.errors import AGENTS_PREFIX

log = logging.getLogger(__name__)

SYNC_BUDGET_HEADER = "X-Sync-Budget-Seconds"


class EdgeMiddleware:
    """Puts `X-Sync-Budget-Seconds` on every /api/v1 response and turns a crash into a clean 500.

    It sits inside Starlette's outermost error middleware so that a 500 still carries the header
    and the envelope of its API. A route that answers through the sync fallback sets the header
    itself (to 0); that value is kept.
    """

    def __init__(self, app: ASGIApp, budget_seconds: Callable[[], int]) -> None:
        self.app = app
        self.budget_seconds = budget_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        agents_api = scope["path"].startswith(AGENTS_PREFIX)
        started = False

        async def send_wrapped(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if agents_api:
                    headers = MutableHeaders(scope=message)
                    if SYNC_BUDGET_HEADER.lower() not in headers:
                        headers.append(SYNC_BUDGET_HEADER, str(self.budget_seconds()))
            await send(message)

        try:
            await self.app(scope, receive, send_wrapped)
        except Exception:
            log.exception("unhandled error on %s %s", scope.get("method"), scope["path"])
            if started:
                raise
            key = "error" if agents_api else "detail"
            body = json.dumps({key: "internal server error; safe to retry with backoff"}).encode()
            await send_wrapped(
                {
                    "type": "http.response.start",
                    "status": 500,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send_wrapped({"type": "http.response.body", "body": body})
