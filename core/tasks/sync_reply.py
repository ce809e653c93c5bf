"""The synchronous run reply (docs/spec.md, run endpoint): outcome, selected payload and its status."""

from __future__ import annotations

import json
from typing import Any

from core.tasks import results
from core.tasks.records import Task
from core.tasks.state_machine import TaskStatus

OUTCOME_MESSAGES = {
    "terminal": "the run finished",
    "budget_expired": "the wait budget ran out before the run finished; poll the task",
    "draining": "this server is shutting down; poll the task, it goes on",
    "result_unavailable": "the run is paused and needs input (reply or review) before it can finish",
}


#: Pauses that end only when someone acts (a reply or a review decision).
_PAUSED = (TaskStatus.WAITING_FOR_INPUT.value, TaskStatus.AWAITING_REVIEW.value)


def needs_action(task: Task) -> bool:
    """Whether the task is paused until someone replies or reviews (docs/contract.md section 4).

    A parent waiting on its delegated children is `waiting_for_input` too, but it resumes by itself
    when they end, so a held request keeps waiting for it. A paused status without a pause is a task
    whose pause was just answered (the reply or the children's results are recorded) on its way back
    to `running`: nothing is asked of anyone either.
    """
    if task.status not in _PAUSED or task.pause is None:
        return False
    return task.pause.get("kind") != "delegation"


def wait_outcome(task: Task, *, drained: bool, expired: bool) -> str | None:
    """The outcome a held `async=false` request answers with now, or None to keep waiting."""
    if task.terminal:
        return "terminal"
    if needs_action(task):
        return "result_unavailable"
    if drained:
        return "draining"
    if expired:
        return "budget_expired"
    return None


def _status_for(task: Task) -> str:
    if task.status == TaskStatus.FAILED.value:
        return "failed"
    if task.status == TaskStatus.STOPPED.value:
        return "cancelled"
    if not task.terminal:
        return "processing"
    return "completed"


def select_payload(
    task: Task, feed: list[dict[str, Any]], selector: str, *, include_citations: bool
) -> tuple[bool, Any, list[dict[str, Any]] | None]:
    """(found, payload, documents) for a selector."""
    if selector == "structured":
        if not task.has_structured:
            return False, None, None
        if include_citations:
            payload, documents = results.cited_structured(task)
            return True, payload, documents
        return True, task.structured, None
    if selector == "summary":
        return (task.summary is not None), task.summary, None
    if selector == "feed":
        return True, feed, None
    found, output = results.last_tool_output(feed, selector.split(":", 1)[1])
    return found, output, None


def build_reply(
    task: Task,
    feed: list[dict[str, Any]],
    *,
    outcome: str,
    selector: str,
    budget_seconds: int,
    include_citations: bool,
    cap_bytes: int,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "task_id": task.id,
        "agent_id": task.spec.agent_id,
        "status": task.status,
        "outcome": outcome,
        "message": OUTCOME_MESSAGES[outcome],
        "created_at": task.spec.created_at,
        "wait_budget_seconds": budget_seconds,
        "result_selector": selector,
    }
    found, payload, documents = select_payload(task, feed, selector, include_citations=include_citations)
    status = _status_for(task)
    if not found:
        body["result_status"] = "not_found" if status == "completed" else status
        return body
    size = len(json.dumps(payload, separators=(",", ":"), default=str).encode())
    if size > cap_bytes:
        body["result_status"] = "too_large"
        body["result_bytes"] = size
        return body
    body["result_status"] = status
    body["result"] = payload
    if selector == "structured" and include_citations and documents is not None:
        body["result_documents"] = documents
    return body
