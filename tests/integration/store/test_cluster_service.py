"""The whole service on a Redis Cluster: `agentry up` with `REDIS_URL` naming the local three-node
cluster (started by tests/integration/store/conftest.py) creates an agent and runs tasks to the end.

The store tests prove each store call on the cluster; this proves the processes that make their own
clients (edge replicas, task actors, the scheduler, the webhook dispatcher) all reach it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.agentry_process import START_TIMEOUT_SECONDS, AgentryProcess
from tests.support.agents import create_agent, feed, of_type, scripted, start, wait_status
from tests.support.redis_cluster import LocalCluster

# The first test also waits for `agentry up` (a private Ray) to start.
pytestmark = [pytest.mark.integration, pytest.mark.timeout(START_TIMEOUT_SECONDS + 300)]


@pytest.fixture(scope="module")
def agentry(
    tmp_path_factory: pytest.TempPathFactory, redis_cluster: LocalCluster
) -> Iterator[AgentryProcess]:
    process = AgentryProcess(
        Path(tmp_path_factory.mktemp("on-cluster")),
        REDIS_URL=redis_cluster.url,
        AGENTRY_RATE_LIMIT="100000/minute",
        AGENTRY_LOG_LEVEL="WARNING",
    )
    try:
        yield process.start()
    finally:
        process.close()


@pytest.mark.parametrize("placement", ["pooled", "dedicated"])
def test_a_scripted_task_completes_on_the_cluster(agentry: AgentryProcess, placement: str) -> None:
    with agentry.client() as api:
        agent = create_agent(api, scripted({"answer": "done {{query}}"}, placement=placement))
        task_id = start(api, agent["id"], "on a cluster")
        done = wait_status(api, task_id, timeout=180)
        assert done["status"] == "completed", done
        statuses = [item["to"] for item in feed(api, task_id) if item["type"] == "status_changed"]
        assert statuses[-1] == "completed"
        assert "running" in statuses


def test_a_parent_waits_for_its_child_on_the_cluster(agentry: AgentryProcess) -> None:
    """The child's end reaches its waiting parent: the child_task signal and the await, each in its
    own slot on a cluster (core.tasks.cluster, core.tasks.delegation)."""
    with agentry.client() as api:
        worker = create_agent(api, scripted({"answer": "checked {{query}}"}))
        call = {"agent_group_id": worker["agent_group_id"], "prompt": "Ada"}
        lead = create_agent(
            api,
            scripted(
                {"tool_calls": [{"name": "delegate_tasks", "arguments": {"tasks": [call]}}]},
                {"answer": "lead saw: {{last_tool_result.children.0.output}}"},
            ),
        )
        task_id = start(api, lead["id"])
        done = wait_status(api, task_id, timeout=240)
        assert done["status"] == "completed", done
        results = [
            r for r in of_type(feed(api, task_id), "tool_result") if r["tool_name"] == "delegate_tasks"
        ]
        assert [c["output"] for c in results[0]["output"]["children"]] == ["checked Ada"]
