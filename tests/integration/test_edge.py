"""Authentication, error envelopes, headers and rate limits at the HTTP edge."""

from __future__ import annotations

import asyncio
import time
import uuid

import httpx
import pytest

from core import tasks
from core.infra.ids import new_id
from core.stores import apikeys
from tests.integration.conftest import Service
from tests.support.service import run_async

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    "header",
    [None, "Bearer", "Token abc", "Bearer agk_short", "Bearer agk_0123456789abcdef_" + "A" * 43],
)
def test_missing_malformed_or_unknown_key_is_401(service: Service, header: str | None) -> None:
    headers = {"Authorization": header} if header else {}
    # The polled task route is dispatched apart from FastAPI's router (serve/task_poll.py).
    for path in ("/api/v1/agents", "/api/v1/audit", f"/api/v1/tasks/{uuid.uuid4()}"):
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
        for path in ("/api/v1/agents", f"/api/v1/tasks/{uuid.uuid4()}"):
            response = api.get(path)
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
        for path in ("/api/v1/audit", f"/api/v1/tasks/{uuid.uuid4()}"):
            refused = api.get(path)
            assert refused.status_code == 429 and set(refused.json()) == {"error"}
            assert int(refused.headers["Retry-After"]) >= 1
    with service.client(service.key()) as other:
        assert other.get("/api/v1/agents").status_code == 200


def test_the_polled_task_route_answers_like_the_rest_of_the_api(service: Service) -> None:
    """`GET /api/v1/tasks/{id}` skips FastAPI's router (serve/task_poll.py); its answers do not change."""
    owner, stranger = service.key(), service.key()
    task_id = new_id()
    spec = {
        "task_id": task_id,
        "workspace_id": _workspace_of(service, owner),
        "agent_id": new_id(),
        "agent_group_id": new_id(),
        "version_number": 1,
        "agent_name": "polled",
        "query": "caf\u00e9",
    }
    run_async(service.redis_url, lambda redis: tasks.create_task(redis, spec))
    with service.client(owner) as api:
        for path in (f"/api/v1/tasks/{task_id}", f"/api/v1/tasks/{task_id.upper()}?unused=1"):
            found = api.get(path)
            assert found.status_code == 200 and found.headers["content-type"] == "application/json"
            assert found.json()["task_id"] == task_id and found.json()["query"] == "caf\u00e9"
            assert found.headers["X-Sync-Budget-Seconds"] == "45"
        answers = {
            "/api/v1/tasks/not-a-uuid": 400,
            f"/api/v1/tasks/{uuid.uuid4()}": 404,
        }
        for path, status in answers.items():
            response = api.get(path)
            assert response.status_code == status and set(response.json()) == {"error"}, path
            assert response.headers["X-Sync-Budget-Seconds"] == "45"
        assert api.get(f"/api/v1/tasks/{task_id}?x=%00").status_code == 400
        assert api.head(f"/api/v1/tasks/{task_id}").status_code == 405
    with service.client(stranger) as other:
        refused = other.get(f"/api/v1/tasks/{task_id}")
        assert refused.status_code == 403 and set(refused.json()) == {"error"}


def _workspace_of(service: Service, key: str) -> str:
    record = run_async(service.redis_url, lambda redis: apikeys.load_key(redis, key.split("_")[1]))
    return str(record.workspace_id)


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
