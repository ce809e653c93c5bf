"""Serve's HTTP middleware: a request left without a response becomes a 503 in the API's envelope,
and Serve's plain-text backpressure 429 gets the envelope too."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from serve.edge_answers import BACKPRESSURE_MESSAGE, INTERRUPTED_MESSAGE
from serve.proxy_middleware import InterruptedRequests, proxy_middlewares

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


@pytest.mark.parametrize(("path", "key"), [("/api/v1/tasks/t", "error"), ("/api/v2/files", "detail")])
def test_serves_backpressure_refusal_gets_the_envelope_and_keeps_retry_after(path: str, key: str) -> None:
    async def refuses(scope: Scope, receive: Receive, send: Send) -> None:
        # What Serve sends when `max_queued_requests` is exceeded (replica.py, router.py).
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"retry-after", b"5")]
        await send({"type": "http.response.start", "status": 429, "headers": headers})
        await send({"type": "http.response.body", "body": b"Request dropped due to backpressure"})

    start, body = _call(refuses, path)
    headers = dict(start["headers"])
    assert start["status"] == 429 and headers[b"retry-after"] == b"5"
    assert headers[b"content-type"] == b"application/json"
    assert int(headers[b"content-length"]) == len(body["body"])
    assert json.loads(body["body"]) == {key: BACKPRESSURE_MESSAGE}


def test_our_own_rate_limit_429_passes_untouched() -> None:
    async def limited(scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(b"content-type", b"application/json"), (b"retry-after", b"3")]
        await send({"type": "http.response.start", "status": 429, "headers": headers})
        await send({"type": "http.response.body", "body": b'{"error": "rate limit"}'})

    sent = _call(limited, "/api/v1/agents")
    assert sent[1]["body"] == b'{"error": "rate limit"}'


def test_serve_loads_it_from_the_callback() -> None:
    (middleware,) = proxy_middlewares()
    assert middleware.cls is InterruptedRequests
