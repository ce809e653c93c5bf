"""Approval binds to what was shown: the previewed call, against the previewed connector, environment and URL."""

from __future__ import annotations

import httpx
import pytest

from tests.support.agents import create_agent, feed, of_type, start, task, wait_status
from tests.support.practice import PATIENT, call, connected, patient_agent, saves
from tests.support.service import wait_for
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


def preview(pending: dict) -> dict:
    """What a review names to say which pending call it answers, as the task shows it."""
    return {"call_id": pending["call_id"], "arguments_sha256": pending["arguments_sha256"]}


def test_an_approval_of_a_stale_preview_does_not_approve_the_next_call(
    ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox)
    before = len(saves(sandbox))
    second_patient = PATIENT | {"first_name": "Charles", "last_name": "Babbage"}
    agent = create_agent(
        ws_api, patient_agent(call(SAVE, PATIENT), call(SAVE, second_patient), review_tools=[SAVE])
    )
    task_id = start(ws_api, agent["id"])
    first = wait_status(ws_api, task_id, "awaiting_review")["pause"]["pending_tool_call"]
    (requested,) = [i for i in feed(ws_api, task_id) if i.get("kind") == "review_requested"]
    assert preview(requested["pending_tool_call"]) == preview(first)
    assert first["arguments_sha256"] == first["binding"]["arguments_sha256"]
    approved = ws_api.post(f"/api/v1/tasks/{task_id}/review", json={"decision": "approve", **preview(first)})
    assert approved.status_code == 200, approved.text

    def second_pending() -> dict | None:
        current = task(ws_api, task_id)
        pending = (current.get("pause") or {}).get("pending_tool_call") or {}
        waiting = current["status"] == "awaiting_review" and pending.get("call_id") != first["call_id"]
        return pending if waiting else None

    second = wait_for(second_pending, timeout=60, what="the second call to be pending review")
    assert second["arguments_sha256"] != first["arguments_sha256"]
    assert len(saves(sandbox)) == before + 1
    # The first preview, approved again (a retried or stale request) while the second call is pending.
    stale = ws_api.post(f"/api/v1/tasks/{task_id}/review", json={"decision": "approve", **preview(first)})
    assert stale.status_code == 409 and set(stale.json()) == {"error"}
    assert "stays in awaiting_review" in stale.json()["error"]
    current = task(ws_api, task_id)
    assert current["status"] == "awaiting_review" and current["pause"]["pending_tool_call"] == second
    assert len(saves(sandbox)) == before + 1
    # A preview with the right call id but other arguments is refused too.
    wrong_digest = preview(second) | {"arguments_sha256": first["arguments_sha256"]}
    answer = ws_api.post(f"/api/v1/tasks/{task_id}/review", json={"decision": "approve", **wrong_digest})
    assert answer.status_code == 409
    # The second call's own preview runs it.
    ok = ws_api.post(f"/api/v1/tasks/{task_id}/review", json={"decision": "approve", **preview(second)})
    assert ok.status_code == 200, ok.text
    assert wait_status(ws_api, task_id)["status"] == "completed"
    assert [r["status"] for r in of_type(feed(ws_api, task_id), "tool_result")] == ["ok", "ok"]
    decisions = [i for i in feed(ws_api, task_id) if i.get("kind") == "review_decision"]
    assert [preview(d) for d in decisions] == [preview(first), preview(second)]
    assert len(saves(sandbox)) == before + 2


def test_half_a_preview_is_a_bad_request(ws_api: httpx.Client, sandbox: RunningSandbox) -> None:
    connected(ws_api, sandbox)
    task_id, pending = paused_save(ws_api)
    for half in ({"call_id": pending["call_id"]}, {"arguments_sha256": pending["arguments_sha256"]}):
        answer = ws_api.post(f"/api/v1/tasks/{task_id}/review", json={"decision": "approve", **half})
        assert answer.status_code == 400 and "give both or neither" in answer.json()["error"]
    assert task(ws_api, task_id)["status"] == "awaiting_review"
