"""Building agents and driving tasks in integration tests."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.service import wait_for

TERMINAL = ("completed", "failed", "stopped")


def scripted(*turns: dict[str, Any], **config: Any) -> dict[str, Any]:
    return {"model": {"provider": "scripted", "turns": list(turns)}} | config


def create_agent(api: httpx.Client, config: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"config": config}
    if name:
        body["name"] = name
    response = api.post("/api/v1/agents", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


def run(api: httpx.Client, agent_id: str, query: str = "hello", **params: Any) -> httpx.Response:
    return api.post(f"/api/v1/agents/{agent_id}/run", params=params, json={"query": query})


def start(api: httpx.Client, agent_id: str, query: str = "hello") -> str:
    response = run(api, agent_id, query)
    assert response.status_code == 201, response.text
    return str(response.json()["task_id"])


def task(api: httpx.Client, task_id: str) -> dict[str, Any]:
    response = api.get(f"/api/v1/tasks/{task_id}")
    assert response.status_code == 200, response.text
    return dict(response.json())


def wait_status(api: httpx.Client, task_id: str, *statuses: str, timeout: float = 60.0) -> dict[str, Any]:
    wanted = statuses or TERMINAL
    return wait_for(
        lambda: (t := task(api, task_id)) and (t if t["status"] in wanted else None),
        timeout=timeout,
        interval=0.1,
        what=f"task {task_id} to reach {wanted}",
    )


def feed(api: httpx.Client, task_id: str) -> list[dict[str, Any]]:
    return list(api.get(f"/api/v1/tasks/{task_id}/result").json()["feed"])
