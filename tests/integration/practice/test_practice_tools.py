"""practice_save_patient and practice_get_patient run by agents, through HTTP, against the sandbox."""

from __future__ import annotations

import datetime as dt
import hashlib

import httpx
import pytest

from core.stores import audit
from tests.integration.conftest import Service
from tests.support.agents import create_agent, feed, of_type, run_sync, start, task, wait_status
from tests.support.practice import (
    CONNECTOR_PATH,
    PATIENT,
    add_fault,
    age_token,
    call,
    connected,
    mints,
    patient_agent,
    patients,
    run_to_end,
    saves,
    workspace_of,
)
from tools.practice import SAVE_PATIENT_PATH, build_save_envelope, derive_pcref, parse_save_input
from tools.practice.sandbox import RunningSandbox

pytestmark = pytest.mark.integration

SAVE = "practice_save_patient"
GET = "practice_get_patient"
ENVELOPE = build_save_envelope(parse_save_input(PATIENT))
PCREF = derive_pcref(PATIENT["first_name"], PATIENT["last_name"], "12101815")


def test_without_a_connector_the_tools_answer_not_connected(ws_api: httpx.Client) -> None:
    done, results = run_to_end(
        ws_api, patient_agent(call(SAVE, PATIENT), call(GET, {"account_id": "a", "patient_id": "p"}))
    )
    assert done["status"] == "completed"
    assert [r["status"] for r in results] == ["ok", "ok"]
    for result in results:
        assert result["output"]["status"] == "practice_not_connected" and result["output"]["message"]


def test_tools_are_offered_only_when_listed(ws_api: httpx.Client, sandbox: RunningSandbox) -> None:
    connected(ws_api, sandbox)
    before = len(saves(sandbox))
    done, results = run_to_end(ws_api, patient_agent(call(SAVE, PATIENT), tools=["ask_user"]))
    assert done["status"] == "completed"
    assert results[0]["status"] == "error" and "not available" in results[0]["error"]
    assert len(saves(sandbox)) == before


def test_save_upserts_the_complete_envelope_and_get_reads_it_back(
    ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox)
    before = len(saves(sandbox))
    done, results = run_to_end(
        ws_api,
        patient_agent(
            call(SAVE, PATIENT),
            call(SAVE, PATIENT | {"city": "Marylebone"}),
            call(GET, {"account_id": "acct-1", "patient_id": "{{last_tool_result.patient_id}}"}),
        ),
    )
    assert done["status"] == "completed", done
    first, second, read = (r["output"] for r in results)
    assert first == {
        "status": "saved",
        "patient_pcref": PCREF,
        "patient_id": first["patient_id"],
        "mrn": first["mrn"],
        "account_id": "acct-1",
    }
    assert first["patient_id"] and first["mrn"]
    assert second == first
    assert read["status"] == "found"
    assert read["patient"]["patient_id"] == first["patient_id"] and read["patient"]["city"] == "Marylebone"
    sent = [r["body"] for r in saves(sandbox)[before:]]
    assert sent == [ENVELOPE, ENVELOPE | {"city": "Marylebone"}]
    stored = [p for p in patients(sandbox, "acct-1")["patients"] if p["patient_pcref"] == PCREF]
    assert len(stored) == 1 and stored[0]["patient_id"] == first["patient_id"]


def test_get_of_an_unknown_patient_is_a_tool_error_with_1020(
    ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox)
    _, (result,) = run_to_end(
        ws_api, patient_agent(call(GET, {"account_id": "acct-1", "patient_id": "no-such-id"}))
    )
    assert result["status"] == "error"
    assert result["details"]["response_code"] == 1020 and result["details"]["response_msg"]


def test_account_outside_the_allowed_list_is_refused_before_any_request(
    ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox, allowed_account_ids=" ACCT-2 ")
    before_saves, before_mints = len(saves(sandbox)), len(mints(sandbox))
    done, (refused, allowed) = run_to_end(
        ws_api, patient_agent(call(SAVE, PATIENT), call(SAVE, PATIENT | {"account_id": "acct-2"}))
    )
    assert done["status"] == "completed"
    assert refused["status"] == "error" and "not allowed" in refused["error"]
    assert allowed["status"] == "ok" and allowed["output"]["account_id"] == "acct-2"
    assert [r["body"]["account_id"] for r in saves(sandbox)[before_saves:]] == ["acct-2"]
    assert len(mints(sandbox)) == before_mints


def test_failure_in_the_body_is_a_tool_error_with_code_and_message(
    ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox)
    body = '{"success": "False", "response_code": 1099, "response_msg": "Chart is locked"}'
    add_fault(sandbox, status=200, body=body, path=SAVE_PATIENT_PATH)
    done, (result,) = run_to_end(ws_api, patient_agent(call(SAVE, PATIENT)))
    assert done["status"] == "completed"
    assert result["status"] == "error" and "1099" in result["error"]
    assert result["details"] == {"response_code": 1099, "response_msg": "Chart is locked"}


def test_account_the_credential_cannot_reach_is_a_tool_error(
    ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox)
    _, (result,) = run_to_end(ws_api, patient_agent(call(SAVE, PATIENT | {"account_id": "acct-9"})))
    assert result["status"] == "error" and "not authorized" in result["details"]["response_msg"]
    assert result["details"]["response_code"] is None


def test_server_errors_are_retried_with_the_same_envelope(
    ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox)
    before = len(saves(sandbox))
    add_fault(sandbox, status=503, body="busy", content_type="text/plain", count=2, path=SAVE_PATIENT_PATH)
    done, (result,) = run_to_end(ws_api, patient_agent(call(SAVE, PATIENT)))
    assert done["status"] == "completed" and result["output"]["status"] == "saved"
    assert [r["body"] for r in saves(sandbox)[before:]] == [ENVELOPE] * 3


def test_invalid_token_gets_one_reactive_remint(ws_api: httpx.Client, sandbox: RunningSandbox) -> None:
    connected(ws_api, sandbox)
    httpx.post(f"{sandbox.url}/v2/sandbox/tokens/expire").raise_for_status()
    before_saves, before_mints = len(saves(sandbox)), len(mints(sandbox))
    _, (result,) = run_to_end(ws_api, patient_agent(call(SAVE, PATIENT)))
    assert result["output"]["status"] == "saved"
    assert len(saves(sandbox)) == before_saves + 2 and len(mints(sandbox)) == before_mints + 1


def test_token_about_to_expire_is_refreshed_before_the_call(
    service: Service, ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox)
    age_token(service.redis_url, workspace_of(service.redis_url, ws_api), seconds_left=30)
    aged = ws_api.get(CONNECTOR_PATH).json()["token_expires_at"]
    before_saves, before_mints = len(saves(sandbox)), len(mints(sandbox))
    _, results = run_to_end(ws_api, patient_agent(call(SAVE, PATIENT), call(SAVE, PATIENT)))
    assert [r["output"]["status"] for r in results] == ["saved", "saved"]
    # The first call minted before it saved, so no call was refused; the second used the new token.
    assert len(mints(sandbox)) == before_mints + 1 and len(saves(sandbox)) == before_saves + 2
    renewed = dt.datetime.fromisoformat(ws_api.get(CONNECTOR_PATH).json()["token_expires_at"])
    assert renewed - dt.datetime.fromisoformat(aged) > dt.timedelta(minutes=50)


def test_review_pauses_each_write_with_the_exact_envelope(
    ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox)
    before = len(saves(sandbox))
    agent = create_agent(ws_api, patient_agent(call(SAVE, PATIENT), review_tools=[SAVE]))
    task_id = start(ws_api, agent["id"])
    paused = wait_status(ws_api, task_id, "awaiting_review")
    pending = paused["pause"]["pending_tool_call"]
    assert pending["tool_name"] == SAVE and pending["arguments"] == PATIENT
    assert pending["preview"] == {
        "environment": "staging",
        "request": f"POST {sandbox.url}{SAVE_PATIENT_PATH}",
        "account_allowed": True,
        "envelope": ENVELOPE,
    }
    requested = [i for i in of_type(feed(ws_api, task_id), "message_sent") if i["kind"] == "review_requested"]
    assert requested[0]["pending_tool_call"]["preview"]["envelope"] == ENVELOPE
    assert len(saves(sandbox)) == before
    assert ws_api.post(f"/api/v1/tasks/{task_id}/review", json={"decision": "approve"}).status_code == 200
    assert wait_status(ws_api, task_id)["status"] == "completed"
    (result,) = of_type(feed(ws_api, task_id), "tool_result")
    assert result["output"]["status"] == "saved" and len(saves(sandbox)) == before + 1
    assert task(ws_api, task_id)["pause"] is None


def test_review_preview_of_invalid_arguments_says_why(ws_api: httpx.Client, sandbox: RunningSandbox) -> None:
    connected(ws_api, sandbox)
    agent = create_agent(
        ws_api, patient_agent(call(SAVE, PATIENT | {"dob": "12-10-1815"}), review_tools=[SAVE])
    )
    task_id = start(ws_api, agent["id"])
    preview = wait_status(ws_api, task_id, "awaiting_review")["pause"]["pending_tool_call"]["preview"]
    assert set(preview) == {"error"} and "dob" in preview["error"]


def test_writes_reads_and_refusals_are_audited_without_patient_data(
    ws_api: httpx.Client, sandbox: RunningSandbox, service: Service
) -> None:
    connected(ws_api, sandbox, allowed_account_ids="acct-1")
    done, results = run_to_end(
        ws_api,
        patient_agent(
            call(SAVE, PATIENT),
            call(GET, {"account_id": "acct-1", "patient_id": "{{last_tool_result.patient_id}}"}),
            call(SAVE, PATIENT | {"account_id": "acct-2"}),
        ),
    )
    patient_id = results[0]["output"]["patient_id"]
    entries = {e["action"]: e for e in ws_api.get("/api/v1/audit").json()["data"]}
    assert set(entries) == {
        "practice.connected",
        "practice.patient_saved",
        "practice.patient_read",
        "practice.patient_save_refused",
    }
    # Keyed with the deployment's secret: not the bare SHA-256 anyone can compute from a guessed pcref.
    digest = audit.identifier_digest(service.settings.resolved_secret(), PCREF)
    assert digest != hashlib.sha256(PCREF.encode()).hexdigest()
    assert entries["practice.patient_saved"]["task_ids"] == [done["task_id"]]
    assert entries["practice.patient_saved"]["key_id"] is None
    assert entries["practice.patient_saved"]["details"] == {
        "account_id": "acct-1",
        "environment": "staging",
        "pcref_hmac": digest,
        "response_code": 1000,
        "patient_id": patient_id,
    }
    assert entries["practice.patient_read"]["details"] == {
        "account_id": "acct-1",
        "environment": "staging",
        "patient_id": patient_id,
    }
    assert entries["practice.patient_save_refused"]["details"]["account_id"] == "acct-2"
    created = dt.datetime.fromisoformat(entries["practice.patient_saved"]["created_at"])
    assert created <= dt.datetime.now(dt.UTC)


def test_unreachable_system_fails_the_step_and_the_runtime_retries_the_call(
    ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox)
    before = len(saves(sandbox))
    # One more 5xx than the client's own attempts: the call fails retryably once, then the step reruns it.
    add_fault(sandbox, status=502, body="", content_type="text/plain", count=3, path=SAVE_PATIENT_PATH)
    done, results = run_to_end(ws_api, patient_agent(call(SAVE, PATIENT)))
    assert done["status"] == "completed", done
    assert [(r["call_id"], r["status"]) for r in results] == [(results[0]["call_id"], "ok")]
    assert results[0]["output"]["status"] == "saved"
    assert [r["body"] for r in saves(sandbox)[before:]] == [ENVELOPE] * 4


def test_unreachable_system_past_the_retries_fails_the_task(
    ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox)
    add_fault(sandbox, status=503, body="", content_type="text/plain", count=3, path=SAVE_PATIENT_PATH)
    done, results = run_to_end(ws_api, patient_agent(call(SAVE, PATIENT), settings={"max_retries": 0}))
    assert done["status"] == "failed" and results == []
    assert "practice_save_patient" in done["error"] and "503" in done["error"]


def test_sync_run_answers_with_the_save_output(ws_api: httpx.Client, sandbox: RunningSandbox) -> None:
    connected(ws_api, sandbox)
    agent = create_agent(ws_api, patient_agent(call(SAVE, PATIENT)))
    response = run_sync(ws_api, agent["id"], result=f"tool:{SAVE}")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "completed" and body["result_status"] == "completed"
    assert body["result"]["status"] == "saved" and body["result"]["patient_pcref"] == PCREF
