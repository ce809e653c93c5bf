"""One approval, one send: a reviewed MCP call whose server fails is never sent again without a new
approval, the new review shows how the last send ended, each send carries its approval's
idempotency key, and a reply to a failure pause resumes with a retry budget that counts (issue 35,
point 3). Real Redis, Ray and Serve; the SDK's own server on loopback, made to answer 503."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from actors.mcp_client import IDEMPOTENCY_META
from tests.integration.conftest import Service
from tests.support.agents import create_agent, feed, of_type, scripted, start, task, wait_status
from tests.support.mcp_server import McpTestServer

pytestmark = pytest.mark.integration

LOOKUP = "mcp__orders__lookup_order"
REFUND = "mcp__orders__refund_order"
#: AGENTRY_RETRY_BASE_SECONDS of the test service (tests/support/session_service.py).
RETRY_BASE_SECONDS = 0.2


@pytest.fixture
def ws_api(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key()) as client:
        yield client


@pytest.fixture
def server() -> Iterator[McpTestServer]:
    """A server of the test's own, so its counts are this test's sends alone."""
    with McpTestServer() as running:
        yield running


def orders_agent(api: httpx.Client, url: str, *turns: dict[str, Any], **use: Any) -> dict[str, Any]:
    added = api.post("/api/v1/mcp-servers", json={"name": "orders", "url": url})
    assert added.status_code == 201, added.text
    config = scripted(
        *turns,
        mcp_servers=[{"server": "orders"} | use],
        settings={"max_retries": 1},
        on_failure="ask_user",
    )
    return create_agent(api, config)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def expected_key(task_id: str, pending: dict[str, Any], approval: int) -> str:
    """The documented idempotency key of an approval's send (docs/contract.md)."""
    return hashlib.sha256(f"{task_id}:{pending['step']}:{pending['call_id']}:{approval}".encode()).hexdigest()


def approve_and_wait(api: httpx.Client, task_id: str, *statuses: str) -> dict[str, Any]:
    approved = api.post(f"/api/v1/tasks/{task_id}/review", json={"decision": "approve"})
    assert approved.status_code == 200, approved.text
    return wait_status(api, task_id, *statuses, timeout=90)


def test_one_approval_sends_a_failing_reviewed_call_once_then_asks_for_a_new_review(
    ws_api: httpx.Client, server: McpTestServer
) -> None:
    agent = orders_agent(
        ws_api,
        server.url,
        call(REFUND, order_id="A-200", amount=1),
        {"answer": "refunded"},
        require_approval=["refund_order"],
    )
    server.fail("refund_order")
    task_id = start(ws_api, agent["id"])
    first = wait_status(ws_api, task_id, "awaiting_review", "waiting_for_input", "failed", timeout=90)
    assert first["status"] == "awaiting_review", first
    pending = first["pause"]["pending_tool_call"]
    assert pending["approval"] == 1 and "previous_attempt" not in pending
    assert server.tool_requests("refund_order") == []

    # max_retries is 1, yet the one approval sends the call once: its failure asks for a new review.
    again = approve_and_wait(ws_api, task_id, "awaiting_review", "waiting_for_input", "failed", "completed")
    assert again["status"] == "awaiting_review", again
    sent = server.tool_requests("refund_order")
    assert len(sent) == 1
    repending = again["pause"]["pending_tool_call"]
    assert (repending["call_id"], repending["step"], repending["approval"]) == (
        pending["call_id"],
        pending["step"],
        2,
    )
    previous = repending["previous_attempt"]
    assert previous["approval"] == 1 and previous["outcome"] == "failed"
    assert "orders" in previous["error"] and "503" in previous["error"]
    requested = [i for i in feed(ws_api, task_id) if i.get("kind") == "review_requested"]
    assert requested[-1]["pending_tool_call"]["previous_attempt"] == previous

    # The send carried its approval's key, in the HTTP header and in the request's _meta.
    first_key = expected_key(task_id, pending, 1)
    assert sent[0]["headers"]["idempotency-key"] == first_key
    assert sent[0]["meta"][IDEMPOTENCY_META] == first_key

    # Nothing sends it again without an approval: a reply is refused and no runner runs.
    replied = ws_api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "try again"})
    assert replied.status_code == 409, replied.text
    assert task(ws_api, task_id)["status"] == "awaiting_review"
    assert len(server.tool_requests("refund_order")) == 1

    # The second approval sends it once more, under a key of its own.
    third = approve_and_wait(ws_api, task_id, "awaiting_review", "waiting_for_input", "failed", "completed")
    assert third["status"] == "awaiting_review", third
    assert third["pause"]["pending_tool_call"]["approval"] == 3
    assert third["pause"]["pending_tool_call"]["previous_attempt"]["approval"] == 2
    sent = server.tool_requests("refund_order")
    assert len(sent) == 2
    assert sent[1]["headers"]["idempotency-key"] == sent[1]["meta"][IDEMPOTENCY_META]
    assert sent[1]["headers"]["idempotency-key"] == expected_key(task_id, pending, 2) != first_key

    server.heal("refund_order")
    done = approve_and_wait(ws_api, task_id)
    assert done["status"] == "completed", done
    sent = server.tool_requests("refund_order")
    assert len(sent) == 3
    assert sent[2]["headers"]["idempotency-key"] == expected_key(task_id, pending, 3)
    items = feed(ws_api, task_id)
    assert [c["outcome"] for c in of_type(items, "mcp_call")] == ["unreachable", "unreachable", "ok"]
    assert [r["status"] for r in of_type(items, "tool_result")] == ["ok"]
    decisions = [i for i in items if i.get("kind") == "review_decision"]
    assert [d["approval"] for d in decisions] == [1, 2, 3]


def test_a_reply_to_a_failure_pause_gives_the_call_one_more_budget_with_waits_not_a_burst(
    ws_api: httpx.Client, server: McpTestServer
) -> None:
    agent = orders_agent(
        ws_api, server.url, call(LOOKUP, order_id="A-100"), {"answer": "found"}, require_approval="none"
    )
    server.fail("lookup_order")
    task_id = start(ws_api, agent["id"])
    paused = wait_status(ws_api, task_id, "waiting_for_input", "failed", "completed", timeout=90)
    assert paused["status"] == "waiting_for_input" and paused["pause"]["kind"] == "failure_pause", paused
    assert len(server.tool_requests("lookup_order")) == 2  # the send and its one retry

    # The reply resets the retry budget; the same step's retries are counted again from there, so
    # the call is sent twice more and the task pauses again (it once looped 200 times at once).
    replied = ws_api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "try again"})
    assert replied.status_code == 200, replied.text
    again = wait_status(ws_api, task_id, "waiting_for_input", "failed", "completed", timeout=90)
    assert again["status"] == "waiting_for_input" and again["pause"]["kind"] == "failure_pause", again
    sent = server.tool_requests("lookup_order")
    assert len(sent) == 4
    # Each retry waited first (exponential backoff with jitter: at least half the base).
    for earlier, later in ((sent[0], sent[1]), (sent[2], sent[3])):
        assert later["at"] - earlier["at"] >= RETRY_BASE_SECONDS / 2
    # An unreviewed call carries no idempotency key.
    assert all("idempotency-key" not in s["headers"] and not s["meta"] for s in sent)

    server.heal("lookup_order")
    assert ws_api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "once more"}).status_code == 200
    done = wait_status(ws_api, task_id, timeout=90)
    assert done["status"] == "completed", done
    assert len(server.tool_requests("lookup_order")) == 5
