"""Fixtures of the extraction API tests: a workspace key and an HTTP client for it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.integration.conftest import Service


@pytest.fixture(scope="module")
def key(service: Service) -> str:
    return service.key()


@pytest.fixture
def api(service: Service, key: str) -> Iterator[httpx.Client]:
    with service.client(key) as client:
        yield client


def upload(api: httpx.Client, data: bytes, filename: str = "doc.pdf") -> dict:
    reply = api.post("/api/v2/files", files={"file": (filename, data)})
    assert reply.status_code == 200, reply.text
    return reply.json()
