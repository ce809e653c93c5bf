from __future__ import annotations

import httpx
import pytest

from tests.support.agents import create_agent, feed, run, scripted, start, wait_status

pytestmark = pytest.mark.integration


def test_async_run_completes_with_summary(api: httpx.Client) -> None:
    agent = create_agent(api, scripted({"answer": "Hi {{query}}", "usage": {"input_tokens": 5, "output_tokens": 2, "cost_usd": 0.01}}))
    task_id = start(api, agent["id"], "Ada")
    done = wait_status(api, task_id)
    assert done["status"] == "completed", done
    assert done["usage"]["input_tokens"] == 5 and done["usage"]["cost_usd"] == 0.01
    summary = api.get(f"/api/v1/tasks/{task_id}/summary").json()
    assert summary["summary"] == "Hi Ada"
    types = [i["type"] for i in feed(api, task_id)]
    assert types[0] == "user_message" and "assistant_message" in types


def test_sync_run_summary(api: httpx.Client) -> None:
    agent = create_agent(api, scripted({"answer": "sync {{query}}"}))
    response = run(api, agent["id"], "x", **{"async": "false", "result": "summary"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["outcome"] == "terminal" and body["result"] == "sync x" and body["result_status"] == "completed"
