"""Authentication, error envelopes, headers and rate limits at the HTTP edge."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from core import apikeys
from tests.integration.conftest import Service
from tests.support.service import run_async

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    "header",
    [None, "Bearer", "Token abc", "Bearer agk_short", "Bearer agk_0123456789abcdef_" + "A" * 43],
)
def test_missing_malformed_or_unknown_key_is_401(service: Service, header: str | None) -> None:
    headers = {"Authorization": header} if header else {}
    for path in ("/api/v1/agents", "/api/v1/audit"):
        response = httpx.get(service.url + path, headers=headers)
        assert response.status_code == 401
        assert set(response.json()) == {"error"}
        assert response.headers["X-Sync-Budget-Seconds"] == "45"


def test_a_revoked_key_fails_within_a_second(service: Service) -> None:
    """The replica caches verified keys; the revocation is pushed to it (serve/key_cache.py)."""
    issued_key = service.key()
    with service.client(issued_key) as api:
        # Enough requests that the replica has the key cached, whichever way they were routed.
        for _ in range(5):
            assert api.get("/api/v1/agents").status_code == 200
        key_id = issued_key.split("_")[1]
        run_async(service.redis_url, lambda redis: apikeys.revoke_key(redis, key_id))
        # The promise is one second; a request sent after it must be refused (not a wait for luck).
        time.sleep(1.0)
        for _ in range(3):
            response = api.get("/api/v1/agents")
            assert response.status_code == 401 and "revoked" in response.json()["error"]


def test_sync_budget_header_on_every_v1_response(api: httpx.Client) -> None:
    for response in (api.get("/api/v1/agents"), api.get("/api/v1/agents/nope"), api.get("/api/v1/nothing")):
        assert response.headers["X-Sync-Budget-Seconds"] == "45"
    assert "X-Sync-Budget-Seconds" not in api.get("/healthz").headers


def test_unknown_v1_route_uses_the_error_envelope(api: httpx.Client) -> None:
    response = api.get("/api/v1/nothing-here")
    assert response.status_code == 404 and set(response.json()) == {"error"}


def test_v2_keeps_detail_envelope(api: httpx.Client) -> None:
    response = api.get("/api/v2/nothing-here")
    assert response.status_code == 404 and set(response.json()) == {"detail"}


def test_rate_limit_per_key_with_retry_after(service: Service) -> None:
    limited = service.key(rate_limit="3/minute")
    with service.client(limited) as api:
        statuses = [api.get("/api/v1/agents").status_code for _ in range(3)]
        assert statuses == [200, 200, 200]
        refused = api.get("/api/v1/audit")
        assert refused.status_code == 429 and set(refused.json()) == {"error"}
        assert int(refused.headers["Retry-After"]) >= 1
    with service.client(service.key()) as other:
        assert other.get("/api/v1/agents").status_code == 200


def test_openapi_and_docs(service: Service) -> None:
    spec = httpx.get(service.url + "/openapi.json").json()
    assert spec["info"]["title"] == "Agentry"
    assert "/api/v1/agents" in spec["paths"] and "/api/v1/agents/{agent_id}/versions" in spec["paths"]
    assert httpx.get(service.url + "/docs").status_code == 200


def test_health_and_readiness(service: Service) -> None:
    assert httpx.get(service.url + "/healthz").json() == {"status": "ok"}
    ready = httpx.get(service.url + "/readyz")
    assert ready.status_code == 200 and ready.json()["checks"] == {"redis": True, "ray": True}


async def test_concurrent_requests_share_one_budget(service: Service) -> None:
    key = service.key(rate_limit="10/minute")
    async with httpx.AsyncClient(base_url=service.url, headers={"Authorization": f"Bearer {key}"}) as api:
        responses = await asyncio.gather(*(api.get("/api/v1/agents") for _ in range(15)))
    codes = sorted(r.status_code for r in responses)
    assert codes.count(200) == 10 and codes.count(429) == 5
