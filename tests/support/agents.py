"""Building agents and driving tasks in integration tests."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.service import wait_for

TERMINAL = ("completed", "failed", "stopped")


def scripted(*turns: dict[str, Any], placement: str | None = None, **config: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": {"provider": "scripted", "turns": list(turns)}} | config
    if placement:
        body["settings"] = dict(body.get("settings") or {}) | {"placement": placement}
    return body


def create_agent(api: httpx.Client, config: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"config": config}
    if name:
        body["name"] = name
    response = api.post("/api/v1/agents", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


def run(api: httpx.Client, agent_id: str, query: str = "hello", **params: Any) -> httpx.Response:
    return api.post(f"/api/v1/agents/{agent_id}/run", params=params, json={"query": query})


def run_sync(api: httpx.Client, agent_id: str, query: str = "hello", **params: Any) -> httpx.Response:
    return run(api, agent_id, query, **({"async": "false"} | params))


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

    seen: list[dict[str, Any]] = []

    def check() -> dict[str, Any] | None:
        current = task(api, task_id)
        seen[:] = [current]
        return current if current["status"] in wanted else None

    try:
        return wait_for(check, timeout=timeout, interval=0.1, what=f"task {task_id} to reach {wanted}")
    except AssertionError as timed_out:
        # The task as last read (its status, error, pause), so a timeout says where the task stood.
        raise AssertionError(f"{timed_out}; the task last read: {seen[-1] if seen else None}") from None


def feed(api: httpx.Client, task_id: str) -> list[dict[str, Any]]:
    return list(api.get(f"/api/v1/tasks/{task_id}/result").json()["feed"])


def of_type(items: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [i for i in items if i["type"] == kind]


def ask(question: str = "What is your name?") -> dict[str, Any]:
    return {"tool_calls": [{"name": "ask_user", "arguments": {"question": question}}]}
