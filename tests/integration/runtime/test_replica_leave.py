"""A single replica leaving during `serve deploy` answers its held sync runs `draining`, as a full stop does.

The test redeploys the session service's application with one changed environment variable: Serve then
rolls it, starting a new replica and stopping the old one while it holds a run. The service goes on
with the new replica, as after any `serve deploy`.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

import httpx
import pytest
from ray import serve

from serve.deployment import APP_NAME, Ingress, ingress_options
from tests.integration.conftest import Service
from tests.support.agents import create_agent, scripted
from tests.support.service import wait_for

pytestmark = pytest.mark.integration


def redeploy(service: Service) -> None:
    env = service.settings.worker_env(redis_url=service.redis_url) | {
        "AGENTRY_DEPLOY_REVISION": uuid.uuid4().hex
    }
    serve.run(
        Ingress.options(**ingress_options(service.settings, env)).bind(),  # type: ignore[attr-defined]
        name=APP_NAME,
        route_prefix="/",
        blocking=False,
    )


def test_a_rolled_replica_answers_its_held_run_draining(service: Service) -> None:
    key = service.key()
    with service.client(key) as api:
        # Runs nearly the whole sync budget (45 s in tests): only a drain answers it before its end.
        agent = create_agent(api, scripted({"delay_seconds": 43, "answer": "late"}))
        answers: list[httpx.Response] = []

        def hold() -> None:
            with service.client(key, timeout=120) as client:
                answers.append(
                    client.post(
                        f"/api/v1/agents/{agent['id']}/run",
                        params={"async": "false", "result": "summary"},
                        json={"query": "q"},
                    )
                )

        held = threading.Thread(target=hold, daemon=True)
        held.start()

        def running() -> list[dict[str, Any]] | None:
            listed = api.get("/api/v1/tasks", params={"agent_id": agent["id"]}).json()["data"]
            return listed if listed and listed[0]["status"] == "running" else None

        (task,) = wait_for(running, timeout=60, interval=0.5, what="the held run to start")
        redeploy(service)
        held.join(timeout=120)
    assert answers, "the held request was never answered"
    reply = answers[0]
    assert reply.status_code == 202, reply.text
    body = reply.json()
    assert body["outcome"] == "draining" and body["task_id"] == task["task_id"]
    assert body["status"] == "running"
    # The new replica answers, and the task goes on to its end.
    with service.client(key) as api:
        done = wait_for(
            lambda: (t := api.get(f"/api/v1/tasks/{task['task_id']}").json())["status"] == "completed" and t,
            timeout=120,
            interval=1.0,
            what="the task to end",
        )
    assert done["status"] == "completed"
