"""Delegation in the runtime: starting children, applying their signals, resuming the parent.

Every handler is idempotent, because events are delivered at least once: a child is admitted only
from `pending`, a signal counts once per child, and the parent's resume is recorded under the
delegating call's marker, so it happens exactly once.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import redis.asyncio as aioredis

from actors.context_budget import stored_results
from actors.launcher import admit_and_launch, drain_queue
from actors.step_markers import Piece, step_marker
from core import tasks
from core.infra import keys
from core.infra.settings import Settings
from core.stores import audit
from core.tasks import Task, delegation
from core.tasks.state_machine import TaskStatus

log = logging.getLogger(__name__)

WAITING = TaskStatus.WAITING_FOR_INPUT.value


def child_output(child: Task) -> Any:
    """docs/contract.md section 6: the child's structured output when it has one, else its summary."""
    if child.has_structured:
        return child.structured
    if child.summary is not None:
        return child.summary
    return child.error


async def handle_event(redis: aioredis.Redis, settings: Settings, event: dict[str, str]) -> None:
    kind, ws = event.get("kind"), event.get("ws", "")
    if kind == "new_message":
        child = await tasks.find_task(redis, ws, event["task"])
        if child is not None and child.status == TaskStatus.PENDING.value:
            await admit_and_launch(redis, settings, child, from_status=TaskStatus.PENDING.value)
    elif kind == "child_task":
        outcome, group_id = await delegation.signal_child(redis, ws, event["child"])
        if outcome == "complete" and group_id:
            await delegation.emit(redis, "await_completed", ws=ws, group=group_id)
        elif outcome == "duplicate" and group_id:
            # A redelivered signal: if its first delivery completed the group but died before the
            # resume, resuming now is safe (it happens once).
            await resume_parent(redis, settings, ws, group_id)
        elif outcome == "no_match":
            # Harmless (the parent was stopped or deleted), but recorded.
            await audit.record(
                redis,
                ws,
                "delegation.signal_no_match",
                key_id=None,
                task_ids=[event["child"], event.get("parent", "")],
                details={"group_id": group_id or ""},
            )
    elif kind == "await_completed":
        await resume_parent(redis, settings, ws, event["group"])
    elif kind == "drain_queue":
        # A task left `running`: its agent's next queued tasks may start.
        await drain_queue(redis, settings, ws, event["group"])


#: What the consolidated message names of each child (docs/spec.md, Delegation step 7), as the tool result does.
SUMMARY_FIELDS = ("task_id", "title", "agent_group_id", "agent_name", "status", "output")


def summary_children(children: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{name: child.get(name) for name in SUMMARY_FIELDS} for child in children]


def summary_text(children: list[dict[str, Any]], header: str) -> str:
    lines = [header]
    for child in children:
        output = child.get("output")
        shown = output if isinstance(output, str) else json.dumps(output, default=str)
        title = child["title"] or "untitled"
        lines.append(
            f"- {title} (task {child['task_id']}, agent {child['agent_name']}): {child['status']}: {shown}"
        )
    return "\n".join(lines)


async def resume_parent(redis: aioredis.Redis, settings: Settings, workspace_id: str, group_id: str) -> bool:
    """Resume the parent of a complete await group with one consolidated message, once."""
    group = await delegation.load_group(redis, workspace_id, group_id)
    if group is None or group.get("status") != "complete":
        return False
    parent = await tasks.find_task(redis, workspace_id, group["parent_task_id"])
    if parent is None or parent.status != WAITING or (parent.pause or {}).get("group_id") != group_id:
        return False
    children = []
    for child_id in group["children"]:
        child = await tasks.find_task(redis, workspace_id, child_id)
        if child is None:
            continue
        children.append(
            {
                "task_id": child.id,
                "title": child.spec.title,
                "agent_group_id": child.spec.agent_group_id,
                "agent_name": child.spec.agent_name,
                "status": child.status,
                "output": child_output(child),
                "item_key": child.spec.item_key,
            }
        )
    batch_id = group.get("batch_id") or ""
    if batch_id:
        output = await delegation.batch_rollup(redis, workspace_id, batch_id, children)
        header = (
            f"Batch {batch_id} finished: {output['completed']} of {output['total_items']} items completed."
        )
        shown = output["children"]
    else:
        for entry in children:
            entry.pop("item_key")
        output = {
            "status": "completed",
            "group_id": group_id,
            "strategy": group["strategy"],
            "children": children,
        }
        header = f"All {len(children)} delegated tasks finished."
        shown = children
    step, call_id = group["step"], group["call_id"]
    written = await tasks.record(
        redis,
        parent,
        step_marker(step, Piece.TOOL, call_id),
        {"status": "ok"},
        allowed=(WAITING,),
        fields={"retries_used": "0"},
        drop=["pause"],
        markers=stored_results("delegate_tasks", step, call_id, output),
        items=[
            {
                "type": "tool_result",
                "call_id": call_id,
                "tool_name": "delegate_tasks",
                "step": step,
                "status": "ok",
                "output": output,
            },
            {
                "type": "message_sent",
                "kind": "delegation_summary",
                "text": summary_text(shown, header),
                "group_id": group_id,
                "children": summary_children(shown),
            },
        ],
    )
    if written != 1:
        return False
    await admit_and_launch(redis, settings, parent, from_status=WAITING)
    return True


async def check_timers(redis: aioredis.Redis, settings: Settings) -> int:
    """At an await's resume time: a child still running moves the await one window forward."""
    moved = 0
    now = time.time()
    for member in await redis.zrangebyscore(keys.await_timers(), "-inf", now):
        workspace_id, _, group_id = member.partition("|")
        group = await delegation.load_group(redis, workspace_id, group_id)
        if group is None or group.get("status") != "open":
            await redis.zrem(keys.await_timers(), member)
            continue
        children = [await tasks.find_task(redis, workspace_id, c) for c in group["children"]]
        if any(c is not None and not c.terminal for c in children):
            await redis.zadd(keys.await_timers(), {member: now + float(group["timeout_seconds"])})
            moved += 1
            continue
        # Every child is terminal: apply any signal that never arrived (each counts once).
        for child in children:
            if child is not None:
                await handle_event(
                    redis, settings, {"kind": "child_task", "ws": workspace_id, "child": child.id}
                )
    return moved
