"""The proxy's middleware: a request left without a response becomes a 503 in the API's envelope."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from serve.proxy_middleware import INTERRUPTED_MESSAGE, InterruptedRequests, proxy_middlewares

pytestmark = pytest.mark.unit


def _call(app: Any, path: str) -> list[Message]:
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    async def send(message: Message) -> None:
        sent.append(message)

    scope: Scope = {"type": "http", "method": "POST", "path": path, "headers": []}
    asyncio.run(InterruptedRequests(app)(scope, receive, send))
    return sent


async def _silent(scope: Scope, receive: Receive, send: Send) -> None:
    """What the proxy does when its replica died mid-request: it answers nothing."""


@pytest.mark.parametrize(
    ("path", "key"), [("/api/v1/agents/a/run", "error"), ("/api/v2/parse/sync", "detail")]
)
def test_no_response_becomes_a_503_in_the_envelope_of_the_api(path: str, key: str) -> None:
    start, body = _call(_silent, path)
    assert start["status"] == 503
    headers = dict(start["headers"])
    assert headers[b"retry-after"] == b"2" and headers[b"content-type"] == b"application/json"
    assert json.loads(body["body"]) == {key: INTERRUPTED_MESSAGE}


def test_an_answer_passes_through_untouched() -> None:
    async def answers(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 500, "headers": []})
        await send({"type": "http.response.body", "body": b'{"error": "x"}'})

    sent = _call(answers, "/api/v1/agents")
    assert [m.get("status") for m in sent] == [500, None] and sent[1]["body"] == b'{"error": "x"}'


def test_serve_loads_it_from_the_callback() -> None:
    (middleware,) = proxy_middlewares()
    assert middleware.cls is InterruptedRequests
