"""`GET /api/v1/tasks/{task_id}`, the route clients poll, dispatched without FastAPI's router.

Clients poll it every second or two while their task runs (docs/spec.md), so it is most of what an
edge replica serves. Through FastAPI a poll walked the included routers twice (once to match, once
to handle), solved five dependencies and passed three more middleware layers: about half of the
Python calls of a poll (bench/edge_cpu.py). This pure ASGI layer matches the one path itself and
calls the route's own endpoint (`serve.routers.tasks.get_task`) with the principal and the store
FastAPI would have handed it; the route stays declared there, so /openapi.json is unchanged. Any
other request (HEAD included, which FastAPI answers 405) goes on to FastAPI.

It sits inside `EdgeMiddleware` and `BodyGuard`, so the URL checks, the /api/v1 headers and the
500 of a crash are theirs as for any route; an expected failure (401, 403, 404, 400, 429, the 503 of
an unreachable store) is answered as `serve.errors` answers it.
"""

from __future__ import annotations

import re

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from serve.body_guard import route_path
from serve.deps import principal_of
from serve.errors import expected_failure
from serve.routers.tasks import get_task
from serve.state import edge_state

#: The route's path as FastAPI matches it: a `{task_id}` parameter is one non-empty segment.
POLL_PATH = re.compile(r"^/api/v1/tasks/([^/]+)$")


class TaskPoll:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        match = None
        if scope["type"] == "http" and scope["method"] == "GET":
            match = POLL_PATH.match(route_path(scope))
        if match is None:
            await self.app(scope, receive, send)
            return
        edge = edge_state()
        try:
            principal = await principal_of(edge, _authorization(scope))
            response = await get_task(match[1], principal, edge.redis)
        except Exception as exc:
            answer = expected_failure(exc)
            if answer is None:
                raise
            status, message, headers = answer
            response = JSONResponse({"error": message}, status_code=status, headers=headers)
        await response(scope, receive, send)


def _authorization(scope: Scope) -> str | None:
    """The first `Authorization` header, as Starlette's `request.headers` reads it."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            return bytes(value).decode("latin-1")
    return None
