"""The Serve replicas killed while they hold `async=false` runs: every held client gets an answer
it can act on (202 `draining`, or a retryable 503 in the envelope, or a dropped connection) instead
of hanging, the tasks go on to completion, and Serve's new replicas answer."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
import pytest
import ray

from tests.reliability.conftest import scaled
from tests.support.agents import TERMINAL, create_agent, scripted
from tests.support.service import wait_for
from tests.support.session_service import Service

pytestmark = pytest.mark.reliability

SERVE_NAMESPACE = "serve"
REPLICA_PREFIX = "SERVE_REPLICA::agentry#ingress"
#: Longer than the delay the tasks sleep: a held client must be answered well before it.
CLIENT_TIMEOUT_SECONDS = 60.0


def _replicas() -> list[str]:
    named = ray.util.list_named_actors(all_namespaces=True)
    return [
        a["name"] for a in named if a["namespace"] == SERVE_NAMESPACE and a["name"].startswith(REPLICA_PREFIX)
    ]


def _listed(api: httpx.Client, agent_id: str) -> list[dict[str, Any]]:
    reply = api.get("/api/v1/tasks", params={"agent_id": agent_id, "limit": 100})
    return list(reply.json()["data"]) if reply.status_code == 200 else []


def test_killing_the_replica_answers_held_runs_and_the_tasks_go_on(service: Service) -> None:
    held = scaled(4, 20)
    key = service.key()
    with service.client(key) as api:
        agent = create_agent(
            api,
            scripted(
                {"delay_seconds": 12, "answer": "held {{query}}"}, settings={"max_concurrent_tasks": held}
            ),
        )
        answers: list[tuple[str, Any, float]] = []
        lock = threading.Lock()

        def hold(index: int) -> None:
            with service.client(key, timeout=CLIENT_TIMEOUT_SECONDS) as client:
                try:
                    reply = client.post(
                        f"/api/v1/agents/{agent['id']}/run",
                        params={"async": "false", "result": "summary"},
                        json={"query": f"h{index}"},
                    )
                    try:
                        body: Any = reply.json()
                    except ValueError:
                        body = reply.text
                    outcome: tuple[str, Any] = (str(reply.status_code), body)
                except httpx.TransportError as exc:
                    outcome = ("connection", type(exc).__name__)
                with lock:
                    answers.append((*outcome, time.monotonic()))

        clients = [threading.Thread(target=hold, args=(i,), daemon=True) for i in range(held)]
        for thread in clients:
            thread.start()
        wait_for(
            lambda: len([t for t in _listed(api, agent["id"]) if t["status"] == "running"]) == held,
            timeout=120,
            interval=0.5,
            what=f"{held} held runs to be running",
        )
        # Every replica (one per core by default): which one holds which run is the ingress's choice.
        victims = _replicas()
        for victim in victims:
            ray.kill(ray.get_actor(victim, namespace=SERVE_NAMESPACE), no_restart=False)
        killed_at = time.monotonic()
        for thread in clients:
            thread.join(timeout=CLIENT_TIMEOUT_SECONDS + 10)
        assert len(answers) == held
        # The tasks sleep 12 s: the kill reached the held requests, not their ends.
        assert any(status != "200" for status, _, _ in answers), answers
        for status, body, at in answers:
            assert at - killed_at < 30, f"a held client waited {at - killed_at:.0f} s after the kill"
            if status == "202":
                assert body["outcome"] == "draining", body
            elif status == "200":
                # Answered before the kill reached it: the task had ended.
                assert body["status"] == "completed", body
            elif status == "503":
                # Answered for the dead replica by the ingress (HAProxy or Serve's proxy), in our envelope.
                assert set(body) == {"error"} and "retry" in body["error"], body
            else:
                assert status == "connection", (status, body)

        # Serve replaces the replica, which answers as before.
        wait_for(lambda: _answers(api), timeout=120, interval=1.0, what="the API")
        assert _replicas() and not set(victims) & set(_replicas())

        def ended() -> list[dict[str, Any]] | None:
            listed = _listed(api, agent["id"])
            return listed if len(listed) == held and all(t["status"] in TERMINAL for t in listed) else None

        for task in wait_for(ended, timeout=120, interval=1.0, what="the tasks to end"):
            assert task["status"] == "completed", task


def _answers(api: httpx.Client) -> bool:
    """Whether the API answers a list; a kept-alive connection that the kill cut (the server closes
    it without a response) is no answer yet, and the next poll opens a new one."""
    try:
        return api.get("/api/v1/agents").status_code == 200
    except httpx.TransportError:
        return False
