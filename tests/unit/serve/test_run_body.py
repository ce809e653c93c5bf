"""Reading a run's body by hand: every malformed JSON body is a 400, never a crash; a form is a form."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.requests import Request

from core.infra.errors import BadRequest
from core.infra.settings import Settings
from serve.run_body import RunBody, read_run_body

pytestmark = pytest.mark.unit


def request(raw: bytes, content_type: str = "application/json") -> Request:
    messages = [{"type": "http.request", "body": raw, "more_body": False}]

    async def receive() -> dict:
        return messages.pop(0)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/v1/agents/x/run",
        "headers": [(b"content-type", content_type.encode())],
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


async def test_a_multipart_body_in_any_case_is_read_as_a_form(tmp_path: Path) -> None:
    raw = (
        b'--b0\r\nContent-Disposition: form-data; name="query"\r\n\r\nhi\r\n'
        b'--b0\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\nnote\r\n--b0--\r\n'
    )
    settings = Settings(AGENTRY_DATA_DIR=tmp_path)  # type: ignore[call-arg]
    async with read_run_body(request(raw, "Multipart/Form-Data; boundary=b0"), settings) as body:
        assert body.run.query == "hi" and [(f.filename, f.size) for f in body.uploads] == [("a.txt", 4)]
