"""Requests too large to take are refused at the edge (HAProxy, before any replica) in the envelope
of the API they were for: 414 for the URL, 431 for the header fields (docs/contract.md section 0)."""

from __future__ import annotations

import json
import socket

import httpx
import pytest

from serve.edge_answers import (
    HEADERS_TOO_LARGE_MESSAGE,
    MAX_HEADER_FIELDS,
    MAX_QUERY_PARAMS,
    TOO_MANY_HEADERS_MESSAGE,
    TOO_MANY_PARAMS_MESSAGE,
    URL_TOO_LONG_MESSAGE,
)
from tests.integration.conftest import Service
from tests.support.header_fields import MANY_MEDIA_TYPES, MANY_VALUES, at_the_limit, send

pytestmark = pytest.mark.integration


def _refused(response: httpx.Response, status: int, key: str, message: str) -> None:
    assert response.status_code == status, response.text[:300]
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {key: message}


def test_a_60_kb_query_string_is_a_414_in_the_envelope(service: Service, api: httpx.Client) -> None:
    _refused(api.get("/api/v1/agents", params={"q": "a" * 60_000}), 414, "error", URL_TOO_LONG_MESSAGE)
    _refused(api.get("/api/v2/files", params={"q": "a" * 60_000}), 414, "detail", URL_TOO_LONG_MESSAGE)


def test_5000_query_parameters_are_a_414_in_the_envelope(api: httpx.Client) -> None:
    query = "&".join(["a"] * 5000)
    _refused(api.get(f"/api/v2/files?{query}"), 414, "detail", TOO_MANY_PARAMS_MESSAGE)
    _refused(api.get(f"/api/v1/agents?{query}"), 414, "error", TOO_MANY_PARAMS_MESSAGE)


def test_a_100_kb_header_is_a_431_in_the_envelope(api: httpx.Client) -> None:
    big = {"X-Big": "a" * 100_000}
    _refused(api.get("/api/v1/agents", headers=big), 431, "error", HEADERS_TOO_LARGE_MESSAGE)
    _refused(api.get("/api/v2/files", headers=big), 431, "detail", HEADERS_TOO_LARGE_MESSAGE)


def test_too_many_header_fields_are_a_431_in_the_envelope(api: httpx.Client) -> None:
    many = {f"X-H{i}": "1" for i in range(MAX_HEADER_FIELDS + 50)}
    _refused(api.get("/api/v2/files", headers=many), 431, "detail", TOO_MANY_HEADERS_MESSAGE)


def test_requests_within_the_limits_reach_the_app(api: httpx.Client) -> None:
    """A 12 KB query, the most parameters allowed and 90 extra header fields are answered by the app."""
    assert api.get("/api/v1/agents", params={"q": "a" * 12_000}).status_code == 200
    query = "&".join(["limit=5"] + ["x"] * (MAX_QUERY_PARAMS - 1))
    listed = api.get(f"/api/v1/agents?{query}")
    assert listed.status_code == 200 and len(listed.json()["data"]) <= 5
    extra = {f"X-H{i}": "1" for i in range(90)}
    assert api.get("/api/v2/configs", headers=extra).status_code == 200


def test_a_head_larger_than_the_edge_can_parse_is_its_400(service: Service) -> None:
    """Past HAProxy's request buffer no rule runs: its parser answers 400 and closes (the one
    refusal not in the envelope, docs/contract.md section 0)."""
    port = int(service.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        conn.sendall(b"GET /api/v1/agents HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n")
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:200]


@pytest.mark.parametrize("given", [MANY_VALUES, MANY_MEDIA_TYPES], ids=["150-values", "101-media-types"])
def test_the_header_limit_counts_fields_not_their_values(
    service: Service, api_key: str, given: list[tuple[str, str]]
) -> None:
    """Three fields (`Host`, the key, one listing 150 values) and an `Accept` of 101 media types are
    answered by the app; so is a request of exactly the limit's fields with such a field among them,
    and one field more is the 431."""
    key = [("Authorization", f"Bearer {api_key}")]
    status, body = send(service.url, "/api/v1/agents", [*key, *given])
    assert status == 200 and "data" in json.loads(body)
    assert send(service.url, "/api/v2/configs", at_the_limit([*key, *given]))[0] == 200
    status, body = send(service.url, "/api/v1/agents", at_the_limit([*key, *given], over=1))
    assert status == 431 and json.loads(body) == {"error": TOO_MANY_HEADERS_MESSAGE}
