"""Reading a run's JSON body by hand: every malformed body is a 400, never a crash."""

from __future__ import annotations

import pytest
from starlette.requests import Request

from core.errors import BadRequest
from core.settings import Settings
from serve.run_body import RunBody, read_run_body

pytestmark = pytest.mark.unit


def request(raw: bytes) -> Request:
    messages = [{"type": "http.request", "body": raw, "more_body": False}]

    async def receive() -> dict:
        return messages.pop(0)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/v1/agents/x/run",
        "headers": [(b"content-type", b"application/json")],
        "query_string": b"",
    }
    return Request(scope, receive)


async def read(raw: bytes) -> RunBody:
    async with read_run_body(request(raw), Settings()) as body:
        return body


@pytest.mark.parametrize("raw", [b"\xb2\x0c=", b"\xff\xfe\x00", b"{", b"[1]", b'"text"'])
async def test_malformed_json_is_a_bad_request(raw: bytes) -> None:
    with pytest.raises(BadRequest):
        await read(raw)


async def test_json_body_is_read() -> None:
    body = await read(b'{"query": "hi", "file_ids": ["file://x"], "version": 2}')
    assert (body.run.query, body.run.version, body.file_ids) == ("hi", 2, ["file://x"])
