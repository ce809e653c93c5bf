"""Every request body is bounded and screened before a route reads it (pure ASGI).

- A body whose media type the route does not take is a 415; which types a route takes is what the
  OpenAPI document declares for its `requestBody` (the document's path templates are matched, so
  this needs nothing of the router's internals), so the document and the edge cannot disagree.
  A body without a `Content-Type` is a 415 too (FastAPI would not parse it as JSON either).
- A JSON body longer than `AGENTRY_MAX_JSON_BODY_BYTES` is a 413: at once from `Content-Length`,
  else as soon as the streamed bytes pass the limit; nothing is parsed.
- A JSON body that is not UTF-8, holds a NUL or a lone surrogate, or nests too deeply is a 400
  (`serve.input_checks`); so is a NUL in the path or the query string, on every route.

Multipart bodies pass untouched: the routes that take them stream them against their own caps
(`serve.uploads`, `serve.multipart_form`). Requests without a body cost a method check and two `in` tests.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from serve.errors import AGENTS_PREFIX
from serve.input_checks import json_problem

JSON = "application/json"
MULTIPART = "multipart/form-data"
_NO_BODY_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


@dataclass(frozen=True)
class BodyRoute:
    pattern: re.Pattern[str]
    #: Media types of the operation's `requestBody`; empty when it reads no body.
    media_types: frozenset[str]


_PARAM = re.compile(r"\\{[^/]+?\\}")


def body_routes(document: dict[str, Any]) -> dict[str, list[BodyRoute]]:
    """Per method, every operation of the OpenAPI document with the media types its body may have.

    Paths with fewer parameters come first, so a literal path wins over a template it also matches.
    """
    found: dict[str, list[BodyRoute]] = {}
    paths = document.get("paths", {})
    for template in sorted(paths, key=lambda path: path.count("{")):
        pattern = re.compile("^" + _PARAM.sub("[^/]+", re.escape(template)) + "$")
        for method, operation in paths[template].items():
            if not isinstance(operation, dict):
                continue
            content = (operation.get("requestBody") or {}).get("content", {})
            found.setdefault(method.upper(), []).append(BodyRoute(pattern, frozenset(content)))
    return found


def media_type(content_type: str | None) -> str:
    """`type/subtype` in lower case (empty when absent); a `+json` type counts as JSON."""
    if not content_type:
        return ""
    main = content_type.split(";", 1)[0].strip().lower()
    return JSON if main.startswith("application/") and main.endswith("+json") else main


class BodyGuard:
    """Sits inside `EdgeMiddleware` (so its refusals carry the /api/v1 headers) and before routing."""

    def __init__(self, app: ASGIApp, *, api: FastAPI, max_json_bytes: Callable[[], int]) -> None:
        self.app = app
        self.api = api
        self.max_json_bytes = max_json_bytes
        self._routes: dict[str, list[BodyRoute]] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if "\x00" in scope["path"] or b"%00" in scope["query_string"]:
            await _refuse(scope, send, 400, "the URL holds a NUL character (%00)")
            return
        if scope["method"] in _NO_BODY_METHODS:
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        length = headers.get(b"content-length")
        if length in (None, b"0") and b"transfer-encoding" not in headers:
            await self.app(scope, receive, send)
            return
        takes = self._media_types(scope)
        if not takes:
            # The route reads no body (or there is no such route): nothing to bound.
            await self.app(scope, receive, send)
            return
        content_type = headers.get(b"content-type", b"").decode("latin-1")
        kind = media_type(content_type)
        if kind not in takes:
            accepted = " or ".join(sorted(takes))
            sent = repr(content_type) if content_type else "a body without Content-Type"
            await _refuse(scope, send, 415, f"this route takes {accepted} bodies, not {sent}")
            return
        if kind != JSON:
            await self.app(scope, receive, send)
            return
        limit = self.max_json_bytes()
        if length is not None and length.isdigit() and int(length) > limit:
            await _refuse(scope, send, 413, _too_large(limit))
            return
        try:
            body = await _read(receive, limit)
        except _ClientGone:
            return
        if body is None:
            await _refuse(scope, send, 413, _too_large(limit))
            return
        problem = json_problem(body)
        if problem is not None:
            await _refuse(scope, send, 400, problem)
            return
        await self.app(scope, _replay(body, receive), send)

    def _media_types(self, scope: Scope) -> frozenset[str]:
        if self._routes is None:
            self._routes = body_routes(self.api.openapi())
        path = route_path(scope)
        for entry in self._routes.get(str(scope["method"]), ()):
            if entry.pattern.match(path):
                return entry.media_types
        return frozenset()


def route_path(scope: Scope) -> str:
    """The path the app's routes are matched against: without the `root_path` it is mounted at."""
    path = str(scope["path"])
    root = str(scope.get("root_path", ""))
    if root and path.startswith(root):
        return path[len(root) :]
    return path


class _ClientGone(Exception):
    """The client disconnected before its body arrived: there is no one to answer."""


def _headers(scope: Scope) -> dict[bytes, bytes]:
    return {name.lower(): value for name, value in scope["headers"]}


def _too_large(limit: int) -> str:
    return f"the JSON body is larger than the limit of {limit} bytes"


async def _read(receive: Receive, limit: int) -> bytes | None:
    """The whole body, or None as soon as it passes `limit` (the rest is never read)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise _ClientGone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the read body over once, then listens to the client again."""
    pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return replay


async def _refuse(scope: Scope, send: Send, status: int, message: str) -> None:
    key = "error" if str(scope["path"]).startswith(AGENTS_PREFIX) else "detail"
    body = json.dumps({key: message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
