"""Tool step failures: retried by policy, then a failure pause naming the tools that failed together."""

from __future__ import annotations

import httpx
import pytest

from tests.support.agents import create_agent, feed, of_type, scripted, start, wait_status
from tests.support.practice import PATIENT, add_fault, call, connected
from tools.practice.client import GET_PATIENT_PATH, SAVE_PATIENT_PATH
from tools.practice.sandbox import RunningSandbox

pytestmark = pytest.mark.integration


def test_parallel_tool_failures_pause_with_tool_names(ws_api: httpx.Client, sandbox: RunningSandbox) -> None:
    connected(ws_api, sandbox)
    # This module's own sandbox: its API calls keep failing with 503.
    for path in (SAVE_PATIENT_PATH, GET_PATIENT_PATH):
        add_fault(sandbox, status=503, body='{"error": "down"}', count=1000, path=path)
    agent = create_agent(
        ws_api,
        scripted(
            {
                "tool_calls": [
                    call("practice_save_patient", PATIENT),
                    call("practice_get_patient", {"account_id": "acct-1", "patient_id": "p-1"}),
                ]
            },
            {"answer": "never"},
            tools=["practice_save_patient", "practice_get_patient"],
            on_failure="ask_user",
            settings={"max_retries": 1},
        ),
    )
    task_id = start(ws_api, agent["id"])
    paused = wait_status(ws_api, task_id, "waiting_for_input", "failed", timeout=120)
    assert paused["status"] == "waiting_for_input", paused
    pause = paused["pause"]
    assert pause["kind"] == "failure_pause"
    assert pause["tool_name"] == "practice_save_patient"
    assert pause["tool_names"] == ["practice_save_patient", "practice_get_patient"]
    item = [i for i in of_type(feed(ws_api, task_id), "message_sent") if i["kind"] == "failure_pause"][-1]
    assert item["tool_names"] == pause["tool_names"] and "practice_save_patient" in item["text"]
    # Nothing was recorded for the failed calls: the model never saw a result for them.
    assert of_type(feed(ws_api, task_id), "tool_result") == []
