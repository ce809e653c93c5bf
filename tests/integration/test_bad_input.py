"""Hostile input over HTTP (issue 19): every bad body, string, media type and cursor is a clear 4xx.

Each refusal comes in its API's envelope (`{error}` on /api/v1, `{detail}` on /api/v2), never says
"retry" (a retry cannot succeed), and leaves the service answering the next request.
"""

from __future__ import annotations

import base64
import json
import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from serve.middleware import SYNC_BUDGET_HEADER
from tests.integration.conftest import Service

pytestmark = pytest.mark.integration

MIB = 1024 * 1024


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def refused(response: httpx.Response, status: int, *, v1: bool = True) -> str:
    """The refusal's message, after checking its status and envelope."""
    assert response.status_code == status, (response.status_code, response.text[:300])
    body = response.json()
    key = "error" if v1 else "detail"
    assert set(body) == {key} and isinstance(body[key], str), body
    assert "retry" not in body[key].lower(), body
    if v1:
        assert SYNC_BUDGET_HEADER in response.headers
    return str(body[key])


@pytest.fixture(scope="module")
def agent_id(service: Service) -> Iterator[str]:
    with service.client(service.key("bad-input")) as api:
        created = api.post("/api/v1/agents", json={"name": "bad input"})
        assert created.status_code == 201, created.text
        yield created.json()["id"]


@pytest.fixture
def api(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key("bad-input")) as client:
        yield client


def post_json(api: httpx.Client, path: str, text: str, **kwargs: object) -> httpx.Response:
    return api.post(path, content=text.encode(), headers={"content-type": "application/json"}, **kwargs)  # type: ignore[arg-type]


# 1. Nesting


def test_deeply_nested_bodies_are_a_400_everywhere(api: httpx.Client, agent_id: str) -> None:
    body = '{"query": "hi", "output_config": ' + deep(10_000) + "}"
    assert "deeper than" in refused(post_json(api, f"/api/v1/agents/{agent_id}/run", body), 400)
    assert "deeper than" in refused(post_json(api, "/api/v1/agents", '{"config": ' + deep(10_000) + "}"), 400)
    v2 = post_json(api, "/api/v2/extract/sync", '{"input": ' + deep(10_000) + "}")
    assert "deeper than" in refused(v2, 400, v1=False)
    # The same nesting inside a multipart field (read by hand, not screened by the body guard).
    form = api.post(
        f"/api/v1/agents/{agent_id}/run",
        data={"query": "hi", "output_config": '{"a": ' + deep(10_000) + "}"},
        files={"files": ("a.txt", b"hello", "text/plain")},
    )
    assert "output_config" in refused(form, 400)
    # Nesting within the bound still works.
    ok = api.post("/api/v1/agents", json={"config": {"metadata": json.loads(deep(40))}})
    assert ok.status_code == 201, ok.text


# 2. Strings that cannot be stored or shown


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/api/v1/agents", '{"name": "\\ud800x"}'),
        ("POST", "/api/v1/agents", '{"name": "a\\u0000b"}'),
        ("POST", "/api/v1/webhooks", '{"url": "http://127.0.0.1:9/x", "events": ["\\udfff"]}'),
        ("PATCH", "/api/v1/agents/{agent_id}", '{"name": "\\ud800"}'),
        ("POST", "/api/v1/agents/{agent_id}/run", '{"query": "hi\\u0000"}'),
        ("POST", "/api/v2/configs", '{"name": "\\ud800", "type": "extract", "params": {}}'),
        # Python's parser takes these; a reply holding them could not be written as JSON.
        ("POST", "/api/v1/agents", '{"config": {"temperature": NaN}}'),
        ("POST", "/api/v1/agents", '{"config": {"temperature": 1e999}}'),
    ],
)
def test_unstorable_strings_in_bodies_are_a_400(
    api: httpx.Client, agent_id: str, method: str, path: str, body: str
) -> None:
    path = path.format(agent_id=agent_id)
    response = api.request(method, path, content=body.encode(), headers={"content-type": "application/json"})
    message = refused(response, 400, v1=path.startswith("/api/v1"))
    assert "NUL" in message or "surrogate" in message or "NaN" in message
    # A surrogate sent as raw UTF-8 bytes rather than an escape is not UTF-8 at all.
    raw = api.post(
        "/api/v1/agents", content=b'{"name": "\xed\xa0\x80"}', headers={"content-type": "application/json"}
    )
    assert "UTF-8" in refused(raw, 400)


def test_a_surrogate_pair_is_text_and_is_stored(api: httpx.Client) -> None:
    created = post_json(api, "/api/v1/agents", '{"name": "smile \\ud83d\\ude00"}')
    assert created.status_code == 201, created.text
    assert created.json()["name"] == "smile \U0001f600"


def test_nul_in_the_url_or_a_form_field_is_a_400(api: httpx.Client, agent_id: str) -> None:
    refused(api.get("/api/v1/tasks", params={"title": "a\x00b"}), 400)
    refused(api.get("/api/v1/agents/a%00b"), 400)
    refused(api.get("/api/v2/configs/config%3A%2F%2Fx%00"), 400, v1=False)
    form = api.post(
        f"/api/v1/agents/{agent_id}/run", data={"query": "a\x00b"}, files={"files": ("a.txt", b"hi")}
    )
    assert "NUL" in refused(form, 400)


# 3. Size


def test_a_json_body_over_the_limit_is_a_413_from_its_length(api: httpx.Client, service: Service) -> None:
    assert service.settings.max_json_body_bytes == MIB
    body = json.dumps({"name": "x" * (2 * MIB)})
    response = post_json(api, "/api/v1/agents", body)
    assert f"{MIB} bytes" in refused(response, 413)
    refused(post_json(api, "/api/v2/parse/sync", json.dumps({"input": "y" * (2 * MIB)})), 413, v1=False)


def test_a_streamed_json_body_is_answered_at_the_limit(service: Service) -> None:
    """A chunked body (no Content-Length) gets its 413 while the client is still sending: the
    request below never ends its body, so only a service that stops at the limit can answer."""
    host, port = urlsplit(service.url).hostname, urlsplit(service.url).port
    head = (
        f"POST /api/v1/agents HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Authorization: Bearer {service.key('bad-input')}\r\n"
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    ).encode()
    chunk = b"x" * (64 * 1024)
    with socket.create_connection((host, port), timeout=60) as sock:
        sock.sendall(head + b"b\r\n" + b'{"name": "x' + b"\r\n")
        for _ in range(MIB // len(chunk) + 2):
            sock.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer:
            received = sock.recv(65536)
            assert received, f"connection closed without an answer: {answer!r}"
            answer += received
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]


def test_a_body_under_the_limit_is_read(api: httpx.Client) -> None:
    response = api.post("/api/v1/agents", json={"config": {"system_prompt": "n" * (MIB // 2)}})
    assert response.status_code == 201, response.text[:300]


# 4. Media types


def test_a_body_of_a_type_the_route_does_not_take_is_a_415(api: httpx.Client, agent_id: str) -> None:
    body = json.dumps({"query": "hi"}).encode()
    for content_type in ("text/plain", "application/x-www-form-urlencoded"):
        response = api.post(
            f"/api/v1/agents/{agent_id}/run", content=body, headers={"content-type": content_type}
        )
        assert "multipart/form-data" in refused(response, 415)
    refused(api.post("/api/v1/agents", content=body, headers={"content-type": "text/plain"}), 415)
    v2 = api.post("/api/v2/parse/async", content=body, headers={"content-type": "text/plain"})
    refused(v2, 415, v1=False)
    upload = api.post("/api/v2/files", content=body, headers={"content-type": "application/json"})
    assert "multipart/form-data" in refused(upload, 415, v1=False)
    # The same body as JSON is taken.
    assert api.post(f"/api/v1/agents/{agent_id}/run", json={"query": "hi"}).status_code == 201


# 5. Cursors


def test_cursors_are_tamper_evident(api: httpx.Client) -> None:
    for i in range(3):
        assert api.post("/api/v1/agents", json={"name": f"paged {i}"}).status_code == 201
    first = api.get("/api/v1/agents", params={"limit": 1}).json()
    cursor = first["next_cursor"]
    assert first["has_more"] and cursor
    second = api.get("/api/v1/agents", params={"limit": 1, "cursor": cursor})
    assert second.status_code == 200 and second.json()["data"][0]["id"] != first["data"][0]["id"]
    position, tag = cursor.rsplit(".", 1)
    forged = [
        base64.urlsafe_b64encode(b'{"a":1}').decode(),
        position,
        f"{position[:-2]}AA.{tag}",
        f"{position}.{'A' * len(tag)}",
    ]
    for bad in forged:
        assert "previous page" in refused(api.get("/api/v1/agents", params={"cursor": bad}), 400)
    # A cursor of one list does not page another.
    refused(api.get("/api/v1/audit", params={"cursor": cursor}), 400)
    refused(api.get("/api/v2/configs", params={"cursor": cursor}), 400, v1=False)
