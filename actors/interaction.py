"""What people do to a running task: reply, review, cancel, delete."""

from __future__ import annotations

import functools
from typing import Any

import redis.asyncio as aioredis

from actors.context_budget import stored_results
from actors.launcher import admit_and_launch, drain_queue
from actors.models.extraction import extraction_model
from actors.review_binding import binding_of, preview_of, recorded_arguments
from actors.step_markers import Piece, reply_marker, review_marker, step_marker
from core import tasks
from core.infra import keys
from core.infra.errors import BadRequest, Conflict
from core.infra.ids import now_iso
from core.infra.settings import Settings
from core.tasks import Task, delegation
from core.tasks.state_machine import TaskStatus
from tools.builtin import build_registry
from tools.context import ToolContext
from tools.registry import ToolRegistry

WAITING = TaskStatus.WAITING_FOR_INPUT.value
REVIEW = TaskStatus.AWAITING_REVIEW.value


async def reply(
    redis: aioredis.Redis, settings: Settings, task: Task, message: str, files: list[dict[str, Any]]
) -> Task:
    """Answer a task in `waiting_for_input`; it continues with a fresh retry budget."""
    if task.status != WAITING:
        raise Conflict(f"the task is {task.status}; only a task in waiting_for_input takes a reply")
    if not message.strip() and not files:
        raise BadRequest("a reply needs a message, files, or both")
    pause = task.pause or {}
    items: list[dict[str, Any]] = []
    call_id = pause.get("call_id")
    if pause.get("kind") == "ask_user" and call_id:
        items.append({"type": "user_message", "text": message, "files": files, "in_reply_to": call_id})
        items.append(
            {
                "type": "tool_result",
                "call_id": call_id,
                "tool_name": "ask_user",
                "step": pause.get("step"),
                "status": "ok",
                "output": {"reply": message, "files": files},
            }
        )
    else:
        items.append({"type": "user_message", "text": message, "files": files})
    markers: dict[str, Any] | None = (
        {step_marker(pause.get("step"), Piece.TOOL, call_id): {"status": "ok"}} if call_id else None
    )
    if markers is not None and items[-1]["type"] == "tool_result":
        # A long reply reaches the model as a summary and a handle, as any long tool result does.
        markers |= stored_results("ask_user", int(pause.get("step") or 0), str(call_id), items[-1]["output"])
    written = await tasks.record(
        redis,
        task,
        # This pause's marker: a second reply to the same pause finds it and is refused.
        reply_marker(task.raw.get("feed_seq", "0")),
        {"at": now_iso()},
        allowed=(WAITING,),
        fields={"retries_used": "0"},
        drop=["pause"],
        items=items,
        markers=markers,
    )
    if written <= 0:
        raise Conflict("the task is no longer waiting for input")
    await admit_and_launch(redis, settings, task, from_status=WAITING)
    return await tasks.load_task(redis, task.workspace_id, task.id)


async def review(
    redis: aioredis.Redis,
    settings: Settings,
    task: Task,
    decision: str,
    comment: str | None,
    answers: dict[str, str] | None = None,
) -> Task:
    """Approve (the pending call is sent, once) or reject (the model gets a tool error) a paused call.

    `answers` is the preview the reviewer answers (`{call_id, arguments_sha256}`); when given it
    must be the pending call's. The decision is written only while that call is still the pending
    one (`actors.review_binding`).
    """
    if task.status != REVIEW:
        raise Conflict(f"the task is {task.status}; only a task in awaiting_review takes a review")
    pending = (task.pause or {}).get("pending_tool_call") or {}
    call_id, step = pending.get("call_id"), pending.get("step")
    shown = preview_of(pending)
    if answers is not None and answers != shown:
        raise Conflict(
            f"the review answers call {answers['call_id']} with arguments {answers['arguments_sha256']}, "
            f"but the call pending review is {shown['call_id']} with arguments "
            f"{shown['arguments_sha256']}; it stays in awaiting_review"
        )
    decided: dict[str, Any] = {"decision": decision, "comment": comment}
    if decision == "approve":
        decided["arguments_sha256"] = shown["arguments_sha256"]
        decided["target"] = await _check_binding(redis, settings, task, pending, shown["arguments_sha256"])
    item = {
        "type": "message_sent",
        "kind": "review_decision",
        "text": f"{pending.get('tool_name')} was {'approved' if decision == 'approve' else 'rejected'}",
        "decision": decision,
        "comment": comment,
        "tool_name": pending.get("tool_name"),
        "call_id": call_id,
        "arguments_sha256": shown["arguments_sha256"],
        "approval": int(pending.get("approval") or 1),
    }
    written = await tasks.record(
        redis,
        task,
        # The approval this review gives (a call whose earlier approval was spent needs a new one).
        review_marker(step, call_id, int(pending.get("approval") or 1)),
        decided,
        allowed=(REVIEW,),
        fields={"retries_used": "0"},
        drop=["pause"],
        items=[item],
        paused_on=shown,
    )
    if written == -2:
        raise Conflict("another call is pending review now; it stays in awaiting_review")
    if written <= 0:
        raise Conflict("the task is no longer awaiting review")
    await admit_and_launch(redis, settings, task, from_status=REVIEW)
    return await tasks.load_task(redis, task.workspace_id, task.id)


@functools.cache
def _tools() -> ToolRegistry:
    return build_registry(extraction_model)


async def _check_binding(
    redis: aioredis.Redis, settings: Settings, task: Task, pending: dict[str, Any], approved: str
) -> Any:
    """The approved target; 409 (the task stays in review) when what would run is not what was shown.

    What would run is the call as its model step recorded it (the runner runs that record), so its
    arguments are compared with the approved digest and its target is taken again now.
    """
    step, call_id = pending.get("step"), pending.get("call_id")
    steps = await tasks.read_steps(redis, task.workspace_id, task.id)
    ctx = ToolContext(
        workspace_id=task.workspace_id,
        task_id=task.id,
        step_id=f"{task.id}:{step}",
        call_id=str(call_id),
        settings=settings,
        redis=redis,
    )
    now = await binding_of(
        _tools(), str(pending.get("tool_name")), recorded_arguments(steps, step, call_id), ctx
    )
    if now["arguments_sha256"] != approved:
        raise Conflict("the call's arguments changed since the preview; it stays in awaiting_review")
    shown = (pending.get("binding") or {}).get("target")
    if now["target"] != shown:
        raise Conflict(
            f"what {pending.get('tool_name')} would reach (its connector, environment or URL) changed "
            "since the preview; it stays in awaiting_review"
        )
    return shown


async def _stop(redis: aioredis.Redis, settings: Settings, task: Task) -> None:
    if not task.terminal:
        applied, previous = await tasks.transition(redis, task, TaskStatus.STOPPED.value)
        if applied:
            await redis.lrem(keys.agent_queue(task.workspace_id, task.spec.agent_group_id), 0, task.id)
            if previous == TaskStatus.RUNNING.value:
                await drain_queue(redis, settings, task.workspace_id, task.spec.agent_group_id)
    # A stopped parent waits for nobody: its awaits are cancelled.
    await delegation.cancel_groups(redis, task.workspace_id, task.id)


async def cancel(redis: aioredis.Redis, settings: Settings, task: Task, *, cascade: bool = False) -> Task:
    """Stop a task (idempotent on a terminal one). The step running now finishes; nothing follows.

    With `cascade`, every active descendant is stopped too, also below an already-terminal parent.
    """
    await _stop(redis, settings, task)
    if cascade:
        for child_id in await delegation.descendants(redis, task.workspace_id, task.id):
            child = await tasks.find_task(redis, task.workspace_id, child_id)
            if child is not None:
                await _stop(redis, settings, child)
    return await tasks.load_task(redis, task.workspace_id, task.id, include_deleted=True)


async def soft_delete(redis: aioredis.Redis, task: Task, *, include_subtasks: bool = False) -> list[str]:
    """Hide the task (404 afterwards); running ones are not halted, but their parent's awaits end."""
    targets = [task.id]
    if include_subtasks:
        targets += await delegation.descendants(redis, task.workspace_id, task.id)
    deleted = []
    for task_id in targets:
        current = await tasks.find_task(redis, task.workspace_id, task_id)
        if current is None or current.deleted_at:
            continue
        await redis.hset(keys.task(task.workspace_id, task_id), "deleted_at", now_iso())
        await redis.zrem(keys.tasks_index(task.workspace_id), current.spec.index_member)
        await delegation.cancel_groups(redis, task.workspace_id, task_id)
        deleted.append(task_id)
    return deleted
