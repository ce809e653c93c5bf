"""`/readyz` reports the store's persistence beside its checks (the session's embedded Redis: AOF on)."""

from __future__ import annotations

import httpx
import pytest

from tests.integration.conftest import Service

pytestmark = pytest.mark.integration


def test_readiness_reports_the_stores_persistence(service: Service) -> None:
    ready = httpx.get(service.url + "/readyz")
    assert ready.status_code == 200, ready.text
    body = ready.json()
    assert body["ready"] is True and body["checks"] == {"redis": True, "ray": True}
    assert body["store"] == {"aof": True, "rdb": False, "appendfsync": "always", "durable": True}
