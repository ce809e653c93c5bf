"""Answering and approving from the console (issue 38, point 1), in headless Chromium on the real
service: a question answered with text and a file, an MCP call under review approved (by its key)
and one rejected, checked at the loopback MCP server, and a preview gone stale refused plainly.

The reply and review views are saved as reply.png and review.png in $AGENTRY_SCREENSHOT_DIR when it
is set (tests/support/browser.py), so CI writes none outside its tmp dirs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import Service
from tests.support import documents
from tests.support.agents import ask, create_agent, feed, scripted, start, task, wait_status
from tests.support.browser import chromium, css, one, save_screenshot, sign_in, until
from tests.support.mcp_server import McpTestServer

pytestmark = pytest.mark.integration

REFUND = "mcp__orders__refund_order"
#: What the output panel said for both pauses before (the API's envelope message): never for a review.
API_PAUSE_WORDS = "needs input"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def mcp_server() -> Iterator[McpTestServer]:
    with McpTestServer() as server:
        yield server


def refund_task(service: Service, key: str, url: str, order_id: str) -> tuple[str, dict[str, Any]]:
    """A task paused on an MCP refund under review: its id and its pending call."""
    with service.client(key, timeout=60) as api:
        added = api.post("/api/v1/mcp-servers", json={"name": "orders", "url": url})
        assert added.status_code == 201, added.text
        config = scripted(
            {"tool_calls": [{"name": REFUND, "arguments": {"order_id": order_id, "amount": 5}}]},
            # A rejection reaches the model as a tool error, which the answer repeats.
            {"answer": "refund: {{last_tool_result}} {{last_tool_result.error}}"},
            mcp_servers=[{"server": "orders", "require_approval": ["refund_order"]}],
            settings={"max_retries": 1},
        )
        agent = create_agent(api, config, name="Refunds")
        task_id = start(api, agent["id"], f"Refund order {order_id}")
        paused = wait_status(api, task_id, "awaiting_review", "failed", "completed", timeout=90)
        assert paused["status"] == "awaiting_review", paused
        return task_id, paused["pause"]["pending_tool_call"]


def open_review(browser: Any, service: Service, key: str, task_id: str) -> Any:
    """The task's page, its review panel shown; the panel."""
    sign_in(browser, service, key, f"#/tasks/{task_id}")
    panel = one(browser, "#task-actions #review-panel", timeout=60)
    reads(browser, "#task-status .status", "Waiting for your approval")
    return panel


def text(browser: Any, selector: str) -> str | None:
    """The element's text as shown, read in one step (the page re-renders the status badge)."""
    shown: str | None = browser.execute_script(
        "return document.querySelector(arguments[0])?.innerText ?? null", selector
    )
    return shown


def reads(browser: Any, selector: str, expected: str) -> None:
    until(browser, lambda d: text(d, selector) == expected, what=f"{selector} to read {expected!r}")


def output_note(browser: Any) -> str:
    """What the structured-output panel says once it has loaded."""
    note: str = until(
        browser,
        lambda d: (shown := text(d, "#structured-output")) and shown != "Loading…" and shown,
        what="the output panel's note",
    )
    return note


def refunds_of(server: McpTestServer, order_id: str) -> list[dict[str, Any]]:
    return [c for c in server.tool_calls("refund_order") if c.get("order_id") == order_id]


def test_a_question_is_answered_from_the_console_with_text_and_a_file(
    service: Service, browser: Any, tmp_path: Path
) -> None:
    key = service.key()
    with service.client(key, timeout=60) as api:
        agent = create_agent(
            api,
            scripted(
                ask("Which ward is the patient in?"),
                {"answer": "Filed for {{last_tool_result.reply}} with {{last_tool_result.files.0.file}}"},
            ),
            name="Ward filer",
        )
        task_id = start(api, agent["id"], "File the admission")
        wait_status(api, task_id, "waiting_for_input", timeout=90)

    sign_in(browser, service, key, f"#/tasks/{task_id}")
    form = one(browser, "#task-actions #reply-form", timeout=60)
    assert "Which ward is the patient in?" in form.text
    reads(browser, "#task-status .status", "Waiting for your answer")
    note = output_note(browser)
    assert "waiting for your answer" in note and API_PAUSE_WORDS not in note

    # An empty answer is refused in the page, before any request.
    one(browser, "#reply-send").click()
    assert "Write an answer" in one(browser, "#reply-outcome .error").text

    attachment = tmp_path / "referral.pdf"
    attachment.write_bytes(documents.pdf_text([["Referral letter", "Ward 7B"]]))
    one(browser, "#reply-text").send_keys("Ward 7B")
    one(browser, "#reply-files").send_keys(str(attachment))
    assert not css(browser, "#reply-outcome .error")  # the refusal went once there was an answer
    save_screenshot(browser, tmp_path, "reply.png")
    one(browser, "#reply-send").click()

    sent = one(browser, "#task-actions .saved", timeout=30)
    assert sent.text == "Answer sent: the task continues."
    one(browser, '#task-status [data-status="completed"]', timeout=90)
    assert not css(browser, "#reply-form")
    with service.client(key) as api:
        summary = api.get(f"/api/v1/tasks/{task_id}/summary").json()["summary"]
        assert summary == "Filed for Ward 7B with referral.pdf"
        answered = [i for i in feed(api, task_id) if i["type"] == "user_message" and i.get("files")]
        assert [f["file"] for f in answered[0]["files"]] == ["referral.pdf"]


def test_a_review_shows_the_previewed_call_and_the_a_key_approves_it(
    service: Service, browser: Any, mcp_server: McpTestServer, tmp_path: Path
) -> None:
    key = service.key()
    task_id, pending = refund_task(service, key, mcp_server.url, "A-100")
    panel = open_review(browser, service, key, task_id)

    # The call as the API previews it: tool, MCP server and URL, the exact arguments as data.
    assert one(browser, "#review-tool").text == REFUND
    assert one(browser, "#review-server").text == "orders"
    assert one(browser, "#review-url").text == mcp_server.url
    arguments = one(browser, "#review-arguments")
    assert arguments.get_attribute("data-sha256") == pending["arguments_sha256"]
    assert one(browser, '#review-arguments dd[data-name="order_id"]').text == '"A-100"'
    assert one(browser, '#review-arguments dd[data-name="amount"]').text == "5"
    assert "a approve" in panel.text and "r reject" in panel.text
    output = output_note(browser)
    assert "waiting for your approval" in output and API_PAUSE_WORDS not in output
    labels = " ".join(e.get_attribute("textContent") for e in css(browser, "#feed .feed-label"))
    assert "review_requested" not in labels.lower() and "approval requested" in labels
    save_screenshot(browser, tmp_path, "review.png")
    assert refunds_of(mcp_server, "A-100") == []

    # Typed into the comment box, `a` is a letter, not an approval; outside it, it approves.
    comment = one(browser, "#review-comment")
    comment.send_keys("a refund as agreed")
    one(browser, "#review-panel h2").click()
    browser.switch_to.active_element.send_keys("a")

    done = one(browser, '#task-actions .saved[data-decision="approve"]', timeout=30)
    assert done.text.startswith("Approved")
    one(browser, '#task-status [data-status="completed"]', timeout=90)
    assert refunds_of(mcp_server, "A-100") == [{"order_id": "A-100", "amount": 5}]
    with service.client(key) as api:
        decisions = [i for i in feed(api, task_id) if i.get("kind") == "review_decision"]
    assert len(decisions) == 1
    decision = decisions[0]
    assert (decision["decision"], decision["comment"]) == ("approve", "a refund as agreed")
    assert (decision["call_id"], decision["arguments_sha256"]) == (
        pending["call_id"],
        pending["arguments_sha256"],
    )


def test_a_review_rejected_from_the_console_never_reaches_the_server(
    service: Service, browser: Any, mcp_server: McpTestServer
) -> None:
    key = service.key()
    task_id, _ = refund_task(service, key, mcp_server.url, "A-200")
    open_review(browser, service, key, task_id)
    one(browser, "#review-reject").click()

    done = one(browser, '#task-actions .saved[data-decision="reject"]', timeout=30)
    assert done.text.startswith("Rejected")
    one(browser, '#task-status [data-status="completed"]', timeout=90)
    assert not css(browser, "#review-panel")
    with service.client(key) as api:
        assert "rejected" in api.get(f"/api/v1/tasks/{task_id}/summary").json()["summary"]
        decisions = [i for i in feed(api, task_id) if i.get("kind") == "review_decision"]
    assert [d["decision"] for d in decisions] == ["reject"]
    assert refunds_of(mcp_server, "A-200") == []


def test_a_stale_preview_is_refused_plainly_and_the_pending_call_shown_again(
    service: Service, browser: Any, mcp_server: McpTestServer
) -> None:
    key = service.key()
    task_id, _ = refund_task(service, key, mcp_server.url, "A-300")
    open_review(browser, service, key, task_id)
    # What the call would reach changes after the page showed it: the preview is stale.
    with service.client(key) as api:
        server_id = next(s["id"] for s in api.get("/api/v1/mcp-servers").json()["data"])
        patched = api.patch(f"/api/v1/mcp-servers/{server_id}", json={"bearer_token": "rotated"})
        assert patched.status_code == 200, patched.text
    one(browser, "#review-approve").click()

    conflict = one(browser, "#review-conflict", timeout=30)
    assert conflict.get_attribute("role") == "alert"
    assert "Not sent: this preview is out of date." in conflict.text
    assert "changed since the preview" in conflict.text  # the API's own reason
    # The panel was loaded again, its buttons usable, and nothing was sent.
    until(browser, lambda d: d.find_element("id", "review-approve").is_enabled(), what="the panel again")
    assert one(browser, "#review-tool").text == REFUND
    with service.client(key) as api:
        assert task(api, task_id)["status"] == "awaiting_review"
    assert refunds_of(mcp_server, "A-300") == []


def test_the_review_keys_do_nothing_without_a_review(service: Service, browser: Any) -> None:
    """On a task that is not in review, `a` and `r` send no request (the page logs none)."""
    key = service.key()
    with service.client(key, timeout=60) as api:
        agent = create_agent(api, scripted({"answer": "done"}), name="Plain")
        task_id = start(api, agent["id"])
        wait_status(api, task_id, "completed", timeout=90)
    sign_in(browser, service, key, f"#/tasks/{task_id}")
    one(browser, '#task-status [data-status="completed"]', timeout=60)
    browser.execute_script(
        "window.__posts = 0; const f = window.fetch;"
        "window.fetch = (u, i) => { if (i && i.method === 'POST') window.__posts++; return f(u, i); };"
    )
    one(browser, "body").send_keys("ar")
    assert browser.execute_script("return window.__posts") == 0
    assert one(browser, "#task-actions", timeout=5).get_attribute("hidden") is not None
