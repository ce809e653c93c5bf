"""Helpers of the practice integration tests: connecting a workspace, reading the sandbox, patient agents."""

from __future__ import annotations

import datetime as dt
from typing import Any

import httpx

from core.infra import keys
from core.infra.ids import iso
from core.stores import apikeys
from tests.support.agents import create_agent, feed, of_type, scripted, start, wait_status
from tests.support.service import run_async
from tools.practice.client import SAVE_PATIENT_PATH, TOKEN_PATH
from tools.practice.sandbox import RunningSandbox

CLIENT_ID = "agentry-test-client"
CLIENT_SECRET = "sandbox-secret-7f3a9c1e"
ACCOUNTS = ("acct-1", "acct-2")
CONNECTOR_PATH = "/api/v1/integrations/practice"

PATIENT: dict[str, Any] = {
    "account_id": "acct-1",
    "first_name": "Ada",
    "last_name": "Lovelace",
    "dob": "12/10/1815",
    "city": "London",
    "ins_name": "Babbage Mutual",
    "policy_number": "P-1",
}


def connect(api: httpx.Client, sandbox: RunningSandbox, **overrides: Any) -> httpx.Response:
    body: dict[str, Any] = {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "base_url": sandbox.url}
    return api.put(CONNECTOR_PATH, json=body | overrides)


def connected(api: httpx.Client, sandbox: RunningSandbox, **overrides: Any) -> dict[str, Any]:
    response = connect(api, sandbox, **overrides)
    assert response.status_code == 200, response.text
    return dict(response.json())


def requests_to(sandbox: RunningSandbox, path: str) -> list[dict[str, Any]]:
    return list(httpx.get(f"{sandbox.url}/v2/sandbox/requests", params={"path": path}).json()["requests"])


def saves(sandbox: RunningSandbox) -> list[dict[str, Any]]:
    return requests_to(sandbox, SAVE_PATIENT_PATH)


def mints(sandbox: RunningSandbox) -> list[dict[str, Any]]:
    return requests_to(sandbox, TOKEN_PATH)


def patients(sandbox: RunningSandbox, account_id: str) -> dict[str, Any]:
    return dict(httpx.get(f"{sandbox.url}/v2/sandbox/patients", params={"account_id": account_id}).json())


def add_fault(sandbox: RunningSandbox, **fault: Any) -> None:
    httpx.post(f"{sandbox.url}/v2/sandbox/faults", json=fault).raise_for_status()


def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def patient_agent(*calls: dict[str, Any], **config: Any) -> dict[str, Any]:
    """A scripted agent that makes each call in its own step, then answers."""
    tools = config.pop("tools", ["practice_save_patient", "practice_get_patient"])
    turns = [{"tool_calls": [c]} for c in calls]
    return scripted(*turns, {"answer": "done"}, tools=tools, **config)


def run_to_end(
    api: httpx.Client, config: dict[str, Any], query: str = "save the patient"
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Create an agent with `config`, run it to a terminal state; the task and its tool results."""
    agent = create_agent(api, config)
    task_id = start(api, agent["id"], query)
    done = wait_status(api, task_id)
    return done, of_type(feed(api, task_id), "tool_result")


def workspace_of(redis_url: str, api: httpx.Client) -> str:
    """The workspace id behind an API client's key."""

    async def work(redis: Any) -> str:
        return (await apikeys.authenticate(redis, api.headers["Authorization"])).workspace_id

    return str(run_async(redis_url, work))


def age_token(redis_url: str, workspace_id: str, seconds_left: float) -> None:
    """Make the stored token of an hour's lifetime look `seconds_left` from expiry, as if time had passed."""
    now = dt.datetime.now(dt.UTC)
    expires = now + dt.timedelta(seconds=seconds_left)

    async def work(redis: Any) -> None:
        await redis.hset(
            keys.practice_connection(workspace_id),
            mapping={
                "token_expires_at": iso(expires),
                "token_minted_at": iso(expires - dt.timedelta(hours=1)),
            },
        )

    run_async(redis_url, work)
