"""/api/v2 under the key's rate limit (docs/contract.md section 7): 429 with Retry-After, `{detail}` body."""

from __future__ import annotations

import pytest

from tests.integration.conftest import Service

pytestmark = pytest.mark.integration


def test_v2_answers_429_with_retry_after_in_its_envelope(service: Service) -> None:
    limited = service.key(rate_limit="3/minute")
    with service.client(limited) as api:
        assert [api.get("/api/v2/configs").status_code for _ in range(3)] == [200, 200, 200]
        for refused in (
            api.get("/api/v2/configs"),
            api.post("/api/v2/parse/sync", json={"input": "file://00000000-0000-4000-8000-000000000000"}),
            api.get("/api/v2/files/00000000-0000-4000-8000-000000000000/content"),
        ):
            assert refused.status_code == 429, refused.text
            assert set(refused.json()) == {"detail"} and "rate limit" in refused.json()["detail"]
            assert int(refused.headers["Retry-After"]) >= 1
    with service.client(service.key()) as other:
        assert other.get("/api/v2/configs").status_code == 200


def test_both_apis_draw_on_one_budget_per_key(service: Service) -> None:
    limited = service.key(rate_limit="4/minute")
    with service.client(limited) as api:
        assert api.get("/api/v1/agents").status_code == 200
        assert api.get("/api/v2/configs").status_code == 200
        assert api.get("/api/v1/agents").status_code == 200
        assert api.get("/api/v2/configs").status_code == 200
        assert api.get("/api/v2/configs").status_code == 429
        v1 = api.get("/api/v1/agents")
        assert v1.status_code == 429 and set(v1.json()) == {"error"}
