"""Task records in Redis: the immutable spec, the task as read, and its creation and lookup.

A task is a hash: the immutable `spec` (JSON) plus mutable fields (status, pause, outputs, usage
counters). Its feed is a stream (`core.tasks.feed`); its status changes are `core.tasks.changes`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis

from core.infra import keys, metrics, slots
from core.infra.errors import Forbidden, NotFound
from core.infra.ids import now_iso, parse_uuid, sort_key, utcnow
from core.infra.models import Record
from core.tasks.state_machine import TERMINAL_STATUSES, TaskStatus


class TaskSpec(Record):
    """What a task is: fixed when it is created."""

    task_id: str
    workspace_id: str
    agent_id: str
    agent_group_id: str
    version_number: int
    agent_name: str
    title: str | None = None
    query: str = ""
    files: list[dict[str, Any]] = []
    source: str = "production"
    parent_task_id: str | None = None
    parent_step_id: str | None = None
    spawn_depth: int = 0
    item_key: str | None = None
    output_config: dict[str, Any] | None = None
    disable_delegation: bool = False
    placement: str = "dedicated"
    #: Where the agent's definition lives: another workspace's for a published public agent. Only
    #: the definition is read there; connections, MCP servers, files and prices are the task's own.
    agent_workspace_id: str | None = None
    created_at: str
    #: Its member in the workspace's task index (newest first).
    index_member: str


@dataclass
class Task:
    """A task as loaded: its spec plus the current mutable state."""

    spec: TaskSpec
    status: str
    updated_at: str
    pause: dict[str, Any] | None = None
    error: str | None = None
    summary: str | None = None
    structured: Any = None
    has_structured: bool = False
    data_fields: dict[str, Any] | None = None
    citations: dict[str, Any] | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    model_calls: int = 0
    retries_used: int = 0
    step: int = 0
    #: Decision steps taken (each recorded model call), docs/contract.md section 3's `usage.steps`.
    decision_steps: int = 0
    deleted_at: str | None = None
    raw: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.spec.task_id

    @property
    def workspace_id(self) -> str:
        return self.spec.workspace_id

    @property
    def agent_workspace_id(self) -> str:
        """The workspace to read the agent's definition (versions, group) in; never credentials."""
        return self.spec.agent_workspace_id or self.spec.workspace_id

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES


def _loads(raw: str | None) -> Any:
    return json.loads(raw) if raw else None


def parse_task(raw: dict[str, str]) -> Task:
    return Task(
        spec=TaskSpec.model_validate_json(raw["spec"]),
        status=raw["status"],
        updated_at=raw.get("updated_at", ""),
        pause=_loads(raw.get("pause")),
        error=raw.get("error") or None,
        summary=raw.get("summary"),
        structured=_loads(raw.get("structured")),
        has_structured="structured" in raw,
        data_fields=_loads(raw.get("data_fields")),
        citations=_loads(raw.get("citations")),
        input_tokens=int(float(raw.get("input_tokens", 0))),
        output_tokens=int(float(raw.get("output_tokens", 0))),
        cost_usd=float(raw.get("cost_usd", 0.0)),
        model_calls=int(float(raw.get("model_calls", 0))),
        retries_used=int(float(raw.get("retries_used", 0))),
        step=int(float(raw.get("step", 0))),
        decision_steps=int(float(raw.get("decision_steps", 0))),
        deleted_at=raw.get("deleted_at") or None,
        raw=raw,
    )


def placement_for(agent_config: dict[str, Any], default: str) -> str:
    """`settings.placement` of the agent, else the platform's AGENTRY_TASK_PLACEMENT."""
    placement = (agent_config.get("settings") or {}).get("placement")
    return placement if placement in ("dedicated", "pooled") else default


def live_member(workspace_id: str, task_id: str) -> str:
    return f"{workspace_id}|{task_id}"


def mirror(spec: TaskSpec) -> tuple[list[str], str]:
    """(the parent's feed as an extra script key, the parent's live-set member) for a delegated child.

    A child's items are mirrored into its parent's stream (see `core.tasks.lua`), so the parent's live
    event stream shows the child's progress; the parent is always in the child's workspace.
    """
    if not spec.parent_task_id:
        return [], ""
    ws = spec.workspace_id
    return [keys.task_feed(ws, spec.parent_task_id)], live_member(ws, spec.parent_task_id)


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), default=str)


def new_spec(spec_fields: dict[str, Any]) -> TaskSpec:
    moment = utcnow()
    return TaskSpec.model_validate(
        spec_fields | {"created_at": now_iso(), "index_member": sort_key(moment, spec_fields["task_id"])}
    )


def first_item(spec: TaskSpec) -> dict[str, Any]:
    """A new task's feed item 1: its user message."""
    return {
        "seq": 1,
        "type": "user_message",
        "text": spec.query,
        "files": spec.files,
        "created_at": spec.created_at,
    }


def created_fields(spec: TaskSpec) -> dict[str, Any]:
    """A new `pending` task's hash."""
    return {
        "spec": spec.model_dump_json(),
        "status": TaskStatus.PENDING.value,
        "created_at": spec.created_at,
        "updated_at": spec.created_at,
        "feed_seq": 1,
    }


def add_create(pipe: Any, spec: TaskSpec) -> None:
    """Queue the writes that create a `pending` task with its first user message as feed item 1."""
    ws, task_id = spec.workspace_id, spec.task_id
    first = first_item(spec)
    fields = created_fields(spec)
    if spec.parent_task_id:
        # Read by the transition script: a child's terminal state signals its parent.
        fields["parent_task_id"] = spec.parent_task_id
        pipe.zadd(keys.task_children(ws, spec.parent_task_id), {spec.index_member: 0})
        pipe.xadd(keys.task_feed(ws, spec.parent_task_id), {"child": task_id, "child_item": dumps(first)})
        pipe.publish(keys.TASK_EVENTS_CHANNEL, live_member(ws, spec.parent_task_id) + "|child")
    pipe.set(keys.owner(task_id), ws)
    pipe.hset(keys.task(ws, task_id), mapping=fields)
    pipe.xadd(keys.task_feed(ws, task_id), {"seq": 1, "item": dumps(first)})
    pipe.zadd(keys.tasks_index(ws), {spec.index_member: 0})
    pipe.sadd(keys.live_tasks(), live_member(ws, task_id))


def count_created(count: int) -> None:
    """Count tasks stored with `add_create`, once their transaction has committed."""
    metrics.inc(metrics.TASK_TRANSITIONS, count, status=TaskStatus.PENDING.value)


async def create_task(redis: aioredis.Redis, spec_fields: dict[str, Any]) -> Task:
    """Store a new `pending` task with its first user message as feed item 1."""
    spec = new_spec(spec_fields)
    # On a cluster the global pointers (owner, indexes) commit first: a crash before the rest leaves a
    # pointer to nothing, read as 404 or dropped, never a record nobody can find (core.infra.slots).
    async with slots.transaction(redis, global_first=True) as pipe:
        add_create(pipe, spec)
        await pipe.execute()
    count_created(1)
    return Task(spec=spec, status=TaskStatus.PENDING.value, updated_at=spec.created_at)


async def find_task(redis: aioredis.Redis, workspace_id: str, task_id: str) -> Task | None:
    raw = await redis.hgetall(keys.task(workspace_id, task_id))
    return parse_task(raw) if raw else None


async def load_task(
    redis: aioredis.Redis, workspace_id: str, task_id: str, *, include_deleted: bool = False
) -> Task:
    """The caller's task: 400 for a malformed id, 403 for another workspace's, 404 otherwise."""
    task_id = parse_uuid(task_id, what="task_id")
    task = await find_task(redis, workspace_id, task_id)
    if task is None:
        owner = await redis.get(keys.owner(task_id))
        if owner and owner != workspace_id:
            raise Forbidden(f"task {task_id} belongs to another workspace")
        raise NotFound(f"task {task_id} not found")
    if task.deleted_at and not include_deleted:
        raise NotFound(f"task {task_id} not found")
    return task
