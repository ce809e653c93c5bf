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


def test_operators_gauges_come_from_the_store(service: Service, api: httpx.Client) -> None:
    from core.infra.gauges import CONTENT_TYPE
    from tests.support.agents import create_agent, scripted, start, wait_status
    from tests.support.service import wait_for

    agent = create_agent(
        api, scripted({"delay_seconds": 30, "answer": "late"}, settings={"max_concurrent_tasks": 1})
    )
    running, queued = start(api, agent["id"]), start(api, agent["id"])
    try:
        wait_status(api, running, "running")

        def scraped() -> str | None:
            reply = httpx.get(service.url + "/metrics")
            assert reply.status_code == 200 and reply.headers["content-type"] == CONTENT_TYPE
            text = reply.text
            wanted = f'agentry_agent_queue_depth{{agent_id="{agent["agent_group_id"]}"}} 1'
            return text if wanted in text else None

        text = wait_for(scraped, timeout=60, interval=0.5, what="the queued task in the gauges")
        samples = dict(line.rsplit(" ", 1) for line in text.splitlines() if not line.startswith("#"))
        assert int(samples['agentry_tasks_live{status="running"}']) >= 1
        assert int(samples['agentry_tasks_live{status="queued"}']) >= 1
        assert int(samples["agentry_task_actors"]) >= 1
        assert float(samples["agentry_gauges_age_seconds"]) < 60
    finally:
        for task_id in (queued, running):
            api.post(f"/api/v1/tasks/{task_id}/cancel")
