"""`async=false` on an agent that delegates: the request is held while the children run (docs/contract.md section 4)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support.agents import create_agent, feed, of_type, run_sync, scripted

pytestmark = pytest.mark.integration


@pytest.fixture
def api(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key(), timeout=120) as client:
        yield client


def delegate(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": [{"name": "delegate_tasks", "arguments": {"tasks": list(entries)}}]}


def test_a_delegation_pause_is_held_until_the_parent_ends(api: httpx.Client) -> None:
    worker = create_agent(api, scripted({"delay_seconds": 2, "answer": "checked {{query}}"}))
    lead = create_agent(
        api,
        scripted(
            delegate({"agent_group_id": worker["agent_group_id"], "prompt": "Ada"}),
            {"answer": "lead saw: {{last_tool_result.children.0.output}}"},
        ),
    )
    reply = run_sync(api, lead["id"], result="summary")
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["outcome"] == "terminal" and body["status"] == "completed"
    assert body["result"] == "lead saw: checked Ada"
    # The parent did pause for its child on the way: the hold went through it.
    changes = [(c["from"], c["to"]) for c in of_type(feed(api, body["task_id"]), "status_changed")]
    assert ("running", "waiting_for_input") in changes


def test_a_child_pause_that_needs_action_is_still_result_unavailable_for_the_child(api: httpx.Client) -> None:
    asker = create_agent(
        api, scripted({"tool_calls": [{"name": "ask_user", "arguments": {"question": "?"}}]})
    )
    reply = run_sync(api, asker["id"], result="summary")
    assert reply.status_code == 202 and reply.json()["outcome"] == "result_unavailable"
