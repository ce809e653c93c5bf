"""`serve.body_guard` in front of a small app: media types, limits and screens, before any route runs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from pydantic import BaseModel

from serve.body_guard import BodyGuard, media_type

LIMIT = 4096


class Body(BaseModel):
    name: str


def make_app() -> tuple[FastAPI, list[str]]:
    app = FastAPI()
    reached: list[str] = []

    @app.post("/api/v1/things")
    async def create(body: Body) -> dict[str, Any]:
        reached.append("create")
        return {"name": body.name}

    @app.post(
        "/api/v2/both",
        openapi_extra={"requestBody": {"content": {"application/json": {}, "multipart/form-data": {}}}},
    )
    async def both(request: Request) -> dict[str, Any]:
        reached.append("both")
        return {"bytes": len(await request.body())}

    @app.post("/api/v1/things/{thing_id}/cancel")
    async def cancel(thing_id: str) -> dict[str, Any]:
        reached.append("cancel")
        return {"id": thing_id}

    @app.get("/api/v1/things")
    async def listing(q: str = "") -> dict[str, Any]:
        reached.append("list")
        return {"q": q}

    app.add_middleware(BodyGuard, api=app, max_json_bytes=lambda: LIMIT)
    return app, reached


@pytest.fixture
def setup() -> tuple[httpx.AsyncClient, list[str]]:
    app, reached = make_app()
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t"), reached


async def test_valid_json_reaches_the_route(setup: tuple[httpx.AsyncClient, list[str]]) -> None:
    client, reached = setup
    response = await client.post("/api/v1/things", json={"name": "Ada"})
    assert response.status_code == 200 and response.json() == {"name": "Ada"}
    assert reached == ["create"]


@pytest.mark.parametrize(
    ("path", "content_type", "status"),
    [
        ("/api/v1/things", "text/plain", 415),
        ("/api/v1/things", "", 415),
        ("/api/v1/things", "multipart/form-data; boundary=x", 415),
        ("/api/v2/both", "application/x-www-form-urlencoded", 415),
        ("/api/v1/things", "application/json; charset=utf-8", 200),
        ("/api/v1/things", "application/merge-patch+json", 200),
    ],
)
async def test_media_types(
    setup: tuple[httpx.AsyncClient, list[str]], path: str, content_type: str, status: int
) -> None:
    client, _ = setup
    response = await client.post(path, content=b'{"name": "x"}', headers={"content-type": content_type})
    assert response.status_code == status, response.text
    if status == 415:
        key = "error" if path.startswith("/api/v1") else "detail"
        assert "takes application/json" in response.json()[key]


async def test_multipart_passes_to_the_route_that_takes_it(
    setup: tuple[httpx.AsyncClient, list[str]],
) -> None:
    client, reached = setup
    big = b"x" * (LIMIT * 4)
    response = await client.post("/api/v2/both", files={"file": ("a.txt", big, "text/plain")})
    assert response.status_code == 200 and response.json()["bytes"] > LIMIT
    assert reached == ["both"]


async def test_too_large_from_content_length(setup: tuple[httpx.AsyncClient, list[str]]) -> None:
    client, reached = setup
    response = await client.post("/api/v1/things", json={"name": "x" * LIMIT})
    assert response.status_code == 413
    assert "limit of 4096 bytes" in response.json()["error"]
    assert reached == []


async def test_too_large_while_streaming(setup: tuple[httpx.AsyncClient, list[str]]) -> None:
    client, reached = setup
    sent = 0

    async def chunks() -> AsyncIterator[bytes]:
        nonlocal sent
        yield b'{"name": "'
        for _ in range(1000):
            sent += 1
            yield b"x" * 1024
        yield b'"}'

    response = await client.post(
        "/api/v2/both", content=chunks(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 413 and "limit" in response.json()["detail"]
    assert reached == []
    # The guard stopped reading just past the limit (the transport may have pulled one chunk ahead).
    assert sent <= LIMIT // 1024 + 2


@pytest.mark.parametrize(
    "body",
    [
        b'{"name": "\\ud800x"}',
        b'{"name": "a\\u0000"}',
        b"[" * 2000 + b"]" * 2000,
        b'{"name": "\xed\xa0\x80"}',
    ],
)
async def test_unstorable_json_is_a_400(setup: tuple[httpx.AsyncClient, list[str]], body: bytes) -> None:
    client, reached = setup
    response = await client.post("/api/v1/things", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400 and "retry" not in response.text
    assert set(response.json()) == {"error"}
    assert reached == []


async def test_nul_in_the_url_is_a_400_on_every_route(setup: tuple[httpx.AsyncClient, list[str]]) -> None:
    client, reached = setup
    assert (await client.get("/api/v1/things", params={"q": "a\x00b"})).status_code == 400
    assert (await client.post("/api/v1/things/a%00b/cancel")).status_code == 400
    assert (await client.get("/api/v1/things", params={"q": "fine"})).status_code == 200
    assert reached == ["list"]


async def test_routes_without_a_body_ignore_one(setup: tuple[httpx.AsyncClient, list[str]]) -> None:
    client, reached = setup
    response = await client.post("/api/v1/things/1/cancel", content=b"x" * (LIMIT * 2))
    assert response.status_code == 200
    assert reached == ["cancel"]


def test_media_type() -> None:
    assert media_type(None) == ""
    assert media_type("Application/JSON; charset=utf-8") == "application/json"
    assert media_type("application/vnd.api+json") == "application/json"
    assert media_type("multipart/form-data; boundary=abc") == "multipart/form-data"
    assert media_type("text/plain") == "text/plain"
