"""Task records in Redis and every change to them.

A task is a hash: the immutable `spec` (JSON) plus mutable fields (status, pause, outputs, usage
counters). Its feed is a stream. Every status change goes through `transition` or `admit` (or a
completion's `core.task_finish.complete`), one atomic Lua call each that checks the current status
against the state machine's table; on a Redis Cluster a step that also writes `{global}` keys runs
as two, with nothing lost between them (`core.cluster_tasks`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis

from core import cluster_tasks, keys, lua, metrics, slots
from core.errors import Forbidden, NotFound
from core.ids import now_iso, parse_uuid, sort_key, utcnow
from core.models import Record
from core.state_machine import TERMINAL_STATUSES, TaskStatus, transition_table_json

_TABLE = transition_table_json()


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


#: Prefix of the per-purpose usage counters in a task's hash: `usage:<purpose>:<metric>`.
_PURPOSE_PREFIX = "usage:"
_USAGE_METRICS = ("input_tokens", "output_tokens", "cost_usd", "calls", "unpriced_calls")
#: Calls of a model with no known price (actors.models.pricing): while there is one, `cost_usd`
#: counts only the priced calls and `cost_known` is false.
UNPRICED_CALLS = "unpriced_calls"


def usage_increments(
    purpose: str, input_tokens: int, output_tokens: int, cost_usd: float, *, cost_known: bool = True
) -> dict[str, float]:
    """What one model call adds to a task's usage: the totals and its purpose's share
    (`steps`, `data_fields`, `documents`, `grounding`)."""
    increments: dict[str, float] = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cost_usd": cost_usd,
        f"{_PURPOSE_PREFIX}{purpose}:input_tokens": input_tokens,
        f"{_PURPOSE_PREFIX}{purpose}:output_tokens": output_tokens,
        f"{_PURPOSE_PREFIX}{purpose}:cost_usd": cost_usd,
        f"{_PURPOSE_PREFIX}{purpose}:calls": 1,
    }
    if not cost_known:
        increments[UNPRICED_CALLS] = 1
        increments[f"{_PURPOSE_PREFIX}{purpose}:{UNPRICED_CALLS}"] = 1
    return increments


def all_priced(raw: dict[str, str], prefix: str = "") -> bool:
    """Whether every model call counted in `raw` (its `<prefix>unpriced_calls`) had a known price."""
    return not float(raw.get(f"{prefix}{UNPRICED_CALLS}") or 0)


def usage_by_purpose(raw: dict[str, str]) -> dict[str, dict[str, float | int]]:
    """`usage.by_purpose`: per purpose, the tokens, cost and calls its model calls used."""
    split: dict[str, dict[str, float | int]] = {}
    for name, value in raw.items():
        if not name.startswith(_PURPOSE_PREFIX):
            continue
        purpose, _, metric = name[len(_PURPOSE_PREFIX) :].rpartition(":")
        if metric not in _USAGE_METRICS or not purpose:
            continue
        number = float(value)
        split.setdefault(purpose, {})[metric] = round(number, 6) if metric == "cost_usd" else int(number)
    return split


def tree_usage(raw: dict[str, str]) -> dict[str, float | int]:
    """`usage.tree`: what the task and every task below it spent, and (a delegated child in a tree
    with a budget) `budget_usd`, what it reserved from its parent (actors.tree_budget)."""
    usage: dict[str, float | int] = {
        "input_tokens": int(float(raw.get("tree_input_tokens", 0))),
        "output_tokens": int(float(raw.get("tree_output_tokens", 0))),
        "cost_usd": round(float(raw.get("tree_cost_usd", 0.0)), 6),
        "cost_known": all_priced(raw, "tree_"),
    }
    if raw.get("tree_budget_usd"):
        usage["budget_usd"] = round(float(raw["tree_budget_usd"]), 6)
    return usage


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


#: The webhook event each status raises (`core.webhooks` lists every event a subscription may name).
WEBHOOK_EVENTS: dict[str, str] = {
    TaskStatus.COMPLETED.value: "task.completed",
    TaskStatus.FAILED.value: "task.failed",
    TaskStatus.WAITING_FOR_INPUT.value: "task.waiting_for_input",
    TaskStatus.AWAITING_REVIEW.value: "task.awaiting_review",
}


def mirror(spec: TaskSpec) -> tuple[list[str], str]:
    """(the parent's feed as an extra script key, the parent's live-set member) for a delegated child.

    A child's items are mirrored into its parent's stream (see `core.lua`), so the parent's live
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
    # pointer to nothing, read as 404 or dropped, never a record nobody can find (core.slots).
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


async def transition(
    redis: aioredis.Redis,
    task: Task,
    target: str,
    *,
    fields: dict[str, str] | None = None,
    drop: list[str] | None = None,
    items: list[dict[str, Any]] | None = None,
    expected: str = "",
) -> tuple[bool, str]:
    """Move the task to `target` if the state machine allows it from its current status.

    Returns (applied, status before the call). Refused transitions write nothing.
    """
    ws, task_id = task.workspace_id, task.id
    stamp = now_iso()
    encoded = [dumps(item | {"created_at": stamp}) for item in items or []]
    parent_feed, parent_member = mirror(task.spec)
    script_keys = [
        keys.task(ws, task_id),
        keys.task_feed(ws, task_id),
        keys.live_tasks(),
        keys.agent_running(ws, task.spec.agent_group_id),
        keys.runtime_events(),
        keys.webhook_outbox(),
        keys.webhooks_index(ws),
        keys.task_journal(ws, task_id),
        *parent_feed,
    ]
    cluster = slots.is_cluster(redis)
    args = [
        _TABLE,
        target,
        stamp,
        dumps(fields or {}),
        dumps(drop or []),
        dumps(encoded),
        keys.TASK_EVENTS_CHANNEL,
        live_member(ws, task_id),
        expected,
        task_id,
        ws,
        parent_member,
        WEBHOOK_EVENTS.get(target, ""),
        "0" if cluster else "1",
    ]
    if cluster:
        applied, previous = await cluster_tasks.transition(redis, script_keys, args)
    else:
        # One server: the global step was applied in the same script (the result's third item is '').
        result = await redis.eval(lua.TRANSITION, len(script_keys), *script_keys, *args)
        applied, previous = result[0], result[1]
    if int(applied):
        metrics.inc(metrics.TASK_TRANSITIONS, status=target)
    return bool(int(applied)), str(previous)


async def record(
    redis: aioredis.Redis,
    task: Task,
    marker: str,
    value: Any,
    *,
    allowed: tuple[str, ...] = (TaskStatus.RUNNING.value,),
    fields: dict[str, str] | None = None,
    drop: list[str] | None = None,
    items: list[dict[str, Any]] | None = None,
    increments: dict[str, float] | None = None,
    markers: dict[str, Any] | None = None,
    paused_on: dict[str, str] | None = None,
    rollup: tuple[list[str], dict[str, float]] | None = None,
) -> int:
    """Write one recorded piece of a step exactly once (see `lua.RECORD` for the result codes).

    `paused_on` (`{call_id, arguments_sha256}`) writes only while the task's pending reviewed call
    is that one, checked in the same script that writes. `rollup` (ancestors' hash keys, increments)
    adds the increments to each ancestor in the same script.
    """
    ws, task_id = task.workspace_id, task.id
    stamp = now_iso()
    encoded = [dumps(item | {"created_at": stamp}) for item in items or []]
    parent_feed, parent_member = mirror(task.spec)
    script_keys = [
        keys.task(ws, task_id),
        keys.task_feed(ws, task_id),
        keys.task_steps(ws, task_id),
        *parent_feed,
    ]
    ancestors, rolled = rollup if rollup is not None else ([], {})
    script_keys += ancestors
    result = await redis.eval(
        lua.RECORD,
        len(script_keys),
        *script_keys,
        marker,
        dumps(value),
        dumps(list(allowed)),
        dumps(fields or {}),
        dumps(drop or []),
        dumps(encoded),
        dumps(increments or {}),
        stamp,
        keys.TASK_EVENTS_CHANNEL,
        live_member(ws, task_id),
        dumps({k: dumps(v) for k, v in (markers or {}).items()}),
        task_id,
        parent_member,
        "" if paused_on is None else dumps(paused_on),
        dumps(rolled),
        len(ancestors),
    )
    return int(result)


async def admit(redis: aioredis.Redis, task: Task, *, limit: int, from_status: str) -> str:
    """Take one of the agent's running slots, or join its FIFO queue. Returns the new status."""
    ws, task_id, group = task.workspace_id, task.id, task.spec.agent_group_id
    parent_feed, parent_member = mirror(task.spec)
    script_keys = [
        keys.agent_running(ws, group),
        keys.agent_queue(ws, group),
        keys.task(ws, task_id),
        keys.task_feed(ws, task_id),
        keys.live_tasks(),
        *parent_feed,
    ]
    member = live_member(ws, task_id)
    args = [limit, task_id, _TABLE, now_iso(), keys.TASK_EVENTS_CHANNEL, member, from_status, parent_member]
    if slots.is_cluster(redis):
        result = await cluster_tasks.admit(redis, script_keys, args)
    else:
        result = await redis.eval(lua.ADMIT, len(script_keys), *script_keys, *args, "1")
    if result and result != from_status:
        metrics.inc(metrics.TASK_TRANSITIONS, status=str(result))
    return str(result)


async def queued_heads(redis: aioredis.Redis, workspace_id: str, group_id: str, count: int) -> list[str]:
    heads: list[str] = await redis.lrange(keys.agent_queue(workspace_id, group_id), 0, max(count, 1) - 1)
    return heads


async def read_feed(redis: aioredis.Redis, workspace_id: str, task_id: str) -> list[dict[str, Any]]:
    """The task's own feed items in order; its children's mirrored entries (no `item` field) are skipped."""
    return feed_items(await redis.xrange(keys.task_feed(workspace_id, task_id)))


def feed_items(entries: list[tuple[str, dict[str, str]]]) -> list[dict[str, Any]]:
    return [json.loads(fields["item"]) for _, fields in entries if "item" in fields]


async def read_steps(redis: aioredis.Redis, workspace_id: str, task_id: str) -> dict[str, Any]:
    return step_records(await redis.hgetall(keys.task_steps(workspace_id, task_id)))


def step_records(raw: dict[str, str]) -> dict[str, Any]:
    return {k: json.loads(v) for k, v in raw.items()}


def with_increments(task: Task, increments: dict[str, float], fields: dict[str, str] | None = None) -> Task:
    """`task` as it is after a `record` of these increments and fields was written (no re-read)."""
    raw = dict(task.raw)
    for name, amount in increments.items():
        raw[name] = repr(float(raw.get(name) or 0) + amount)
    return parse_task(raw | (fields or {}))
