"""What a task produced, shaped the way the polling endpoints and synchronous runs return it."""

from __future__ import annotations

from typing import Any

from core.tasks.records import Task
from core.tasks.state_machine import TaskStatus

IN_FLIGHT_MESSAGE = "the run has not finished; poll again"
PAUSED_MESSAGE = "the run is paused and needs input before it can finish"


def in_flight_message(task: Task) -> str:
    if task.status in (TaskStatus.WAITING_FOR_INPUT.value, TaskStatus.AWAITING_REVIEW.value):
        return PAUSED_MESSAGE
    return IN_FLIGHT_MESSAGE


def ended_without(task: Task, what: str) -> str:
    if task.status == TaskStatus.FAILED.value:
        return f"the run failed before writing {what}: {task.error or 'no detail'}"
    if task.status == TaskStatus.STOPPED.value:
        return f"the run was stopped before writing {what}"
    return f"the run ended without writing {what}"


def has_output_schema(task: Task, agent_config: dict[str, Any]) -> bool:
    run_schema = (task.spec.output_config or {}).get("output_schema")
    return isinstance(run_schema, dict) or isinstance(agent_config.get("output_schema"), dict)


def summary_envelope(task: Task) -> dict[str, Any]:
    body: dict[str, Any] = {"task_id": task.id, "status": task.status, "summary": task.summary}
    if not task.terminal:
        body["message"] = in_flight_message(task)
    elif task.summary is None:
        body["error"] = ended_without(task, "a summary")
    return body


def _drop_internal(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_internal(v) for k, v in value.items() if not str(k).startswith("__")}
    if isinstance(value, list):
        return [_drop_internal(v) for v in value]
    return value


def _cite(value: Any, path: str, citations: dict[str, list[dict[str, Any]]]) -> Any:
    """Replace every leaf that has provenance by `{value, bounding_boxes}` (docs/spec.md, Citation leaf)."""
    if isinstance(value, dict):
        cited = {}
        for key, child in value.items():
            if str(key).startswith("__"):
                continue
            cited[key] = _cite(child, f"{path}.{key}" if path else str(key), citations)
        return cited
    if isinstance(value, list):
        return [_cite(child, f"{path}[{i}]", citations) for i, child in enumerate(value)]
    boxes = citations.get(path)
    if boxes:
        return {"value": value, "bounding_boxes": boxes}
    return value


def cited_structured(task: Task) -> tuple[Any, list[dict[str, Any]] | None]:
    """The structured output with citation leaves and its `documents`, or unchanged when none exist."""
    if not task.citations:
        return task.structured, None
    leaves = task.citations.get("leaves") or {}
    documents = task.citations.get("documents") or []
    return _cite(_drop_internal(task.structured), "", leaves), documents


def structured_envelope(
    task: Task, agent_config: dict[str, Any], *, include_citations: bool
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "task_id": task.id,
        "agent_id": task.spec.agent_id,
        "status": task.status,
        "created_at": task.spec.created_at,
        "updated_at": task.updated_at,
        "title": task.spec.title,
    }
    if task.has_structured:
        if include_citations:
            payload, documents = cited_structured(task)
            body["structured_response"] = payload
            if documents is not None:
                body["documents"] = documents
        else:
            body["structured_response"] = task.structured
    if not task.terminal:
        body["message"] = in_flight_message(task)
    elif not task.has_structured:
        if not has_output_schema(task, agent_config):
            body["error"] = "no output schema is configured on the agent or the task"
        else:
            body["error"] = ended_without(task, "a structured output")
    return body


def last_tool_output(feed: list[dict[str, Any]], tool_name: str) -> tuple[bool, Any]:
    """The output of the last successful call of `tool_name` (found, output)."""
    for item in reversed(feed):
        if (
            item.get("type") == "tool_result"
            and item.get("tool_name") == tool_name
            and item.get("status") == "ok"
        ):
            return True, item.get("output")
    return False, None
