"""Our custom metrics reach the node's Prometheus endpoint with sensible values.

Ray flushes metrics from each process every few seconds, so every check polls with a deadline.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import ray

from tests.integration.conftest import Service
from tests.integration.extraction.conftest import settle, upload
from tests.support import documents
from tests.support.agents import ask, create_agent, scripted, start, task, wait_status
from tests.support.metrics import scrape, total
from tests.support.service import wait_for

pytestmark = pytest.mark.integration

#: Metrics reach the endpoint within a report interval or two (about 10 s each by default).
FLUSH_TIMEOUT = 60


@pytest.fixture(scope="module")
def metrics_port(service: Service) -> int:
    port = ray._private.worker._global_node.metrics_export_port
    assert port, "the session's Ray exports no metrics"
    return int(port)


def _when(port: int, check: Any, what: str) -> Any:
    return wait_for(lambda: check(scrape(port)), timeout=FLUSH_TIMEOUT, interval=1.0, what=what)


def test_a_task_records_transitions_and_call_latencies(api: httpx.Client, metrics_port: int) -> None:
    agent = create_agent(api, scripted(ask(), {"answer": "done"}))
    task_id = start(api, agent["id"])
    wait_status(api, task_id, "waiting_for_input")
    api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "Ada"})
    assert wait_status(api, task_id)["status"] == "completed"

    def recorded(samples: list[Any]) -> bool:
        transitions = {
            status: total(samples, "agentry_task_transitions_total", status=status) or 0
            for status in ("pending", "running", "waiting_for_input", "completed")
        }
        model_calls = total(samples, "agentry_model_call_seconds_count", model="scripted", outcome="ok") or 0
        asked = total(samples, "agentry_tool_call_seconds_count", tool="ask_user", outcome="PauseForInput")
        return min(transitions.values()) >= 1 and model_calls >= 2 and (asked or 0) >= 1

    samples = _when(metrics_port, lambda s: s if recorded(s) else None, "task metrics")
    latency = total(samples, "agentry_model_call_seconds_sum", model="scripted", outcome="ok")
    count = total(samples, "agentry_model_call_seconds_count", model="scripted", outcome="ok")
    assert latency is not None and count is not None and 0 <= latency / count < 5
    # Every observation falls in some bucket: the +Inf bucket holds the count.
    assert (
        total(samples, "agentry_model_call_seconds_bucket", model="scripted", outcome="ok", le="+Inf")
        == count
    )


def test_the_scheduler_reports_queue_depth_and_live_tasks(api: httpx.Client, metrics_port: int) -> None:
    # The first task holds the agent's only slot longer than a metrics flush or two takes.
    config = scripted({"delay_seconds": 40, "answer": "slow"}, settings={"max_concurrent_tasks": 1})
    agent = create_agent(api, config)
    first, second = start(api, agent["id"]), start(api, agent["id"])
    assert task(api, second)["status"] == "queued"
    group = agent["agent_group_id"]

    def queued(samples: list[Any]) -> list[Any] | None:
        depth = total(samples, "agentry_agent_queue_depth", agent_id=group)
        return samples if depth == 1 else None

    samples = _when(metrics_port, queued, "the agent's queue depth of 1")
    assert (total(samples, "agentry_tasks_live", status="running") or 0) >= 1
    assert (total(samples, "agentry_tasks_live", status="queued") or 0) >= 1
    assert (total(samples, "agentry_task_actors") or 0) >= 1
    for task_id in (second, first):
        assert api.post(f"/api/v1/tasks/{task_id}/cancel").status_code == 200
    _when(
        metrics_port,
        lambda s: s if total(s, "agentry_agent_queue_depth", agent_id=group) == 0 else None,
        "the queue depth back to 0",
    )


def test_an_extraction_job_records_pages_and_its_latency(service: Service, metrics_port: int) -> None:
    with service.client(service.key()) as api:
        pages = [["Invoice Number: A-1", "Total: 10.00"], ["Notes: none"], ["Signed: yes"]]
        file = upload(api, documents.pdf_text(pages), "three-pages.pdf")
        before = total(scrape(metrics_port), "agentry_extraction_pages_total", format="pdf") or 0
        reply = api.post(
            "/api/v2/extract/sync",
            json={
                "input": file["file_id"],
                "extraction_config": {"json_options": ["invoice_number"], "prompt_mode": "rules"},
            },
        )
        assert settle(api, reply)["status"] == "completed"

    def recorded(samples: list[Any]) -> list[Any] | None:
        parsed = total(samples, "agentry_extraction_pages_total", format="pdf") or 0
        jobs = total(samples, "agentry_extraction_job_seconds_count", kind="extract", outcome="completed")
        return samples if parsed >= before + len(pages) and (jobs or 0) >= 1 else None

    samples = _when(metrics_port, recorded, "extraction metrics")
    rate_count = total(samples, "agentry_extraction_pages_per_second_count", format="pdf") or 0
    rate_sum = total(samples, "agentry_extraction_pages_per_second_sum", format="pdf") or 0
    assert rate_count >= 1 and rate_sum / rate_count > 0
    job_seconds = total(samples, "agentry_extraction_job_seconds_sum", kind="extract", outcome="completed")
    assert job_seconds is not None and job_seconds > 0
