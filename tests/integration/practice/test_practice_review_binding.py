"""Approval binds to what was shown: the previewed call, against the previewed connector, environment and URL."""

from __future__ import annotations

import httpx
import pytest

from tests.support.agents import create_agent, feed, of_type, start, task, wait_status
from tests.support.practice import PATIENT, call, connected, patient_agent, saves
from tools.practice import SAVE_PATIENT_PATH
from tools.practice.sandbox import RunningSandbox

pytestmark = pytest.mark.integration

SAVE = "practice_save_patient"


def paused_save(api: httpx.Client) -> tuple[str, dict]:
    agent = create_agent(api, patient_agent(call(SAVE, PATIENT), review_tools=[SAVE]))
    task_id = start(api, agent["id"])
    return task_id, wait_status(api, task_id, "awaiting_review")["pause"]["pending_tool_call"]


def test_the_approved_call_runs_against_the_previewed_target(
    ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox)
    before = len(saves(sandbox))
    task_id, pending = paused_save(ws_api)
    target = pending["binding"]["target"]
    assert target["environment"] == "staging" and target["url"] == f"{sandbox.url}{SAVE_PATIENT_PATH}"
    assert pending["preview"]["request"] == f"POST {target['url']}"
    assert ws_api.post(f"/api/v1/tasks/{task_id}/review", json={"decision": "approve"}).status_code == 200
    assert wait_status(ws_api, task_id)["status"] == "completed"
    (result,) = of_type(feed(ws_api, task_id), "tool_result")
    assert result["status"] == "ok" and len(saves(sandbox)) == before + 1


def test_a_connector_changed_since_the_preview_refuses_the_approval(
    ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox)
    before = len(saves(sandbox))
    task_id, pending = paused_save(ws_api)
    assert pending["preview"]["environment"] == "staging"
    # Reconnected to production after the reviewer saw a staging write.
    connected(ws_api, sandbox, environment="production")
    refused = ws_api.post(f"/api/v1/tasks/{task_id}/review", json={"decision": "approve"})
    assert refused.status_code == 409 and set(refused.json()) == {"error"}
    assert "changed since the preview" in refused.json()["error"]
    current = task(ws_api, task_id)
    assert current["status"] == "awaiting_review" and current["pause"]["pending_tool_call"] == pending
    assert len(saves(sandbox)) == before
    # The reviewer can still reject it; nothing is ever sent.
    assert ws_api.post(f"/api/v1/tasks/{task_id}/review", json={"decision": "reject"}).status_code == 200
    assert wait_status(ws_api, task_id)["status"] == "completed"
    assert len(saves(sandbox)) == before


def test_a_disconnected_integration_refuses_the_approval(
    ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox)
    task_id, _ = paused_save(ws_api)
    assert ws_api.delete("/api/v1/integrations/practice").json() == {"connected": False}
    assert ws_api.post(f"/api/v1/tasks/{task_id}/review", json={"decision": "approve"}).status_code == 409
    assert task(ws_api, task_id)["status"] == "awaiting_review"
