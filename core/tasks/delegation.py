"""Delegation in the store: child tasks, await groups, signals, rosters (docs/spec.md, Delegation).

The order of docs/spec.md's steps is the order of the writes here: the children and the await group are
committed in one transaction, and only then is one `new_message` event emitted per child, so a fast
child can never finish before its await exists.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis

from core.infra import keys, slots
from core.infra.errors import Forbidden, NotFound
from core.infra.ids import new_id, now_iso
from core.infra.models import AgentGroup, AgentVersion
from core.stores import agents
from core.tasks.records import Task, TaskSpec, add_create, count_created, new_spec

#: docs/spec.md, Limits: delegation depth, top-level = 0.
MAX_DEPTH = 3
#: docs/spec.md, Limits: children per call on the expanded count (`max_children_per_call`, a platform
#: setting: AGENTRY_MAX_CHILDREN_PER_CALL); 0 means no limit below the hard cap.
DEFAULT_MAX_CHILDREN_PER_CALL = 250
#: docs/spec.md, Limits: the source-mode hard cap, which no call passes (a batch of real files needs up to it).
HARD_MAX_CHILDREN_PER_CALL = 1000


def children_limit(setting: int) -> int:
    """The per-call limit that a `max_children_per_call` setting gives."""
    return HARD_MAX_CHILDREN_PER_CALL if setting <= 0 else min(setting, HARD_MAX_CHILDREN_PER_CALL)


#: docs/spec.md, Limits: delegation timeout default and ceiling, in minutes.
DEFAULT_TIMEOUT_MINUTES = 60
MAX_TIMEOUT_MINUTES = 1440
STRATEGY = "all_required"

# One signal, exactly once: dedupe by child, complete the await, report whether the group is done.
# ARGV[5] "1": drop the await timer (KEYS[3]) here too; "0" on a cluster, where the caller drops it.
_SIGNAL = """
local group = redis.call('GET', KEYS[2])
if redis.call('SET', KEYS[1], '1', 'NX') == false then return 'duplicate:' .. (group or '') end
if not group then return 'no_match' end
local group_key = ARGV[1] .. group
local status = redis.call('HGET', group_key, 'status')
if status ~= 'open' then return 'no_match:' .. group end
local pending_key = group_key .. ':pending'
if redis.call('SREM', pending_key, ARGV[2]) == 0 then return 'no_match:' .. group end
if redis.call('SCARD', pending_key) == 0 then
  redis.call('HSET', group_key, 'status', 'complete', 'completed_at', ARGV[3])
  if ARGV[5] == '1' then redis.call('ZREM', KEYS[3], ARGV[4] .. '|' .. group) end
  return 'complete:' .. group
end
return 'pending:' .. group
"""


@dataclass
class Target:
    """A resolved delegation target: the agent's group and the version a child runs."""

    group: AgentGroup
    version: AgentVersion
    workspace_id: str
    public: bool


async def resolve_target(redis: aioredis.Redis, workspace_id: str, group_id: str) -> Target | None:
    """The workspace's agent group, or a published public agent of another workspace; None otherwise."""
    try:
        group = await agents.load_group(redis, workspace_id, group_id)
        return Target(group, await agents.latest(redis, workspace_id, group), workspace_id, public=False)
    except (NotFound, Forbidden):
        pass
    owner = await redis.get(keys.owner(group_id))
    if not owner or not await redis.sismember(keys.public_agent_groups(), f"{owner}:{group_id}"):
        return None
    try:
        group = await agents.load_group(redis, owner, group_id)
    except NotFound:
        return None
    if not group.is_public or not group.is_active:
        return None
    return Target(group, await agents.latest(redis, owner, group), owner, public=True)


def child_spec(
    parent: Task,
    target: Target,
    *,
    prompt: str,
    title: str | None,
    step_id: str,
    placement: str,
    item_key: str | None = None,
) -> TaskSpec:
    return new_spec(
        {
            "task_id": new_id(),
            "workspace_id": parent.workspace_id,
            "agent_id": target.version.id,
            "agent_group_id": target.group.id,
            "version_number": target.version.version_number,
            "agent_name": target.group.name,
            "title": title,
            "query": prompt,
            "source": "spawned",
            "parent_task_id": parent.id,
            "parent_step_id": step_id,
            "spawn_depth": parent.spec.spawn_depth + 1,
            "item_key": item_key,
            "placement": placement,
            # Public agents run in the caller's workspace; only their definition comes from elsewhere.
            "agent_workspace_id": target.workspace_id if target.public else None,
        }
    )


async def spawn(
    redis: aioredis.Redis,
    parent: Task,
    children: list[TaskSpec],
    *,
    call_id: str,
    step: int,
    timeout_seconds: int | None,
    attach: list[str] | None = None,
    batch_id: str | None = None,
) -> str | None:
    """Create the children (and, for a waiting call, their await group) atomically, then start them.

    `attach` names running children of an earlier batch that this group waits on as well.
    Returns the await group id, or None when nothing waits (async delegation).
    """
    ws = parent.workspace_id
    group_id = new_id() if timeout_seconds is not None else None
    waited = [c.task_id for c in children] + list(attach or [])
    record = {"group_id": group_id, "children": [{"task_id": c.task_id, "title": c.title} for c in children]}
    # On a cluster the global pointers (owner, indexes) commit first: a crash before the rest leaves a
    # pointer to nothing, read as 404 or dropped, never a record nobody can find (core.infra.slots).
    async with slots.transaction(redis, global_first=True) as pipe:
        pipe.hset(keys.task_delegations(ws, parent.id), call_id, json.dumps(record))
        for child in children:
            add_create(pipe, child)
            if child.item_key:
                pipe.hset(keys.task_items(ws, parent.id), child.item_key, child.task_id)
        if group_id is not None and timeout_seconds is not None:
            resume_at = time.time() + timeout_seconds
            pipe.hset(
                keys.await_group(ws, group_id),
                mapping={
                    "parent_task_id": parent.id,
                    "call_id": call_id,
                    "step": step,
                    "strategy": STRATEGY,
                    "status": "open" if waited else "complete",
                    "timeout_seconds": timeout_seconds,
                    "resume_at": resume_at,
                    "children": json.dumps(waited),
                    "batch_id": batch_id or "",
                    "created_at": now_iso(),
                },
            )
            pipe.sadd(keys.task_awaits(ws, parent.id), group_id)
            if waited:
                pipe.sadd(keys.await_pending(ws, group_id), *waited)
                pipe.zadd(keys.await_timers(), {f"{ws}|{group_id}": resume_at})
            for child_id in waited:
                pipe.set(keys.child_await(ws, child_id), group_id)
        await pipe.execute()
    count_created(len(children))
    # Only now, with the awaits committed, may the children start (docs/spec.md, Delegation step 3).
    for child in children:
        await emit(redis, "new_message", ws=ws, task=child.task_id)
    return group_id


async def previous_call(redis: aioredis.Redis, parent: Task, call_id: str) -> dict[str, Any] | None:
    """What an earlier run of the same delegate_tasks call spawned (a runner restarted mid-step)."""
    raw = await redis.hget(keys.task_delegations(parent.workspace_id, parent.id), call_id)
    return json.loads(raw) if raw else None


async def emit(redis: aioredis.Redis, kind: str, **fields: str) -> None:
    await redis.xadd(keys.runtime_events(), {"kind": kind, **fields})


async def signal_child(redis: aioredis.Redis, workspace_id: str, child_id: str) -> tuple[str, str | None]:
    """Apply a `child_task` signal once: (outcome, group id). Outcomes: duplicate, no_match, pending, complete."""
    # On a cluster the await timer ({global}) is dropped after the script, which then gets a key of
    # its own slot in its place: a crash between leaves a timer that `check_timers` drops when it
    # finds the group complete.
    here = not slots.is_cluster(redis)
    seen = keys.signal_seen(workspace_id, child_id)
    result = str(
        await redis.eval(
            _SIGNAL,
            3,
            seen,
            keys.child_await(workspace_id, child_id),
            keys.await_timers() if here else seen,
            keys.await_group(workspace_id, ""),
            child_id,
            now_iso(),
            workspace_id,
            "1" if here else "0",
        )
    )
    outcome, _, group = result.partition(":")
    if outcome == "complete" and not here:
        await redis.zrem(keys.await_timers(), f"{workspace_id}|{group}")
    return outcome, group or None


async def load_group(redis: aioredis.Redis, workspace_id: str, group_id: str) -> dict[str, Any] | None:
    raw: dict[str, str] = await redis.hgetall(keys.await_group(workspace_id, group_id))
    if not raw:
        return None
    return raw | {"children": json.loads(raw.get("children") or "[]"), "step": int(raw.get("step", 0))}


async def cancel_groups(redis: aioredis.Redis, workspace_id: str, parent_id: str) -> list[str]:
    """Cancel the parent's open awaits: a child's later signal finds none (`no_match`)."""
    cancelled = []
    for group_id in await redis.smembers(keys.task_awaits(workspace_id, parent_id)):
        group_key = keys.await_group(workspace_id, group_id)
        if await redis.hget(group_key, "status") == "open":
            await redis.hset(group_key, mapping={"status": "cancelled", "cancelled_at": now_iso()})
            await redis.zrem(keys.await_timers(), f"{workspace_id}|{group_id}")
            cancelled.append(group_id)
    return cancelled


async def children_of(redis: aioredis.Redis, workspace_id: str, task_id: str) -> list[str]:
    members: list[str] = await redis.zrange(keys.task_children(workspace_id, task_id), 0, -1)
    return [m.split(":", 1)[1] for m in members]


async def descendants(redis: aioredis.Redis, workspace_id: str, task_id: str) -> list[str]:
    """Every task spawned below this one, breadth first."""
    found: list[str] = []
    frontier = [task_id]
    while frontier:
        nxt: list[str] = []
        for current in frontier:
            nxt += await children_of(redis, workspace_id, current)
        found += nxt
        frontier = nxt
    return found


async def _roster_candidates(
    redis: aioredis.Redis, workspace_id: str, caller_group_id: str
) -> list[tuple[str, str, bool]]:
    """(owner workspace, group id, public) of every agent a roster may name, the workspace's own first."""
    async with redis.pipeline(transaction=False) as pipe:
        pipe.zrange(keys.agent_groups_index(workspace_id), 0, -1)
        pipe.smembers(keys.public_agent_groups())
        members, public_members = await pipe.execute()
    local = [(workspace_id, m.split(":", 1)[1], False) for m in members]
    public = [(*m.split(":", 1), True) for m in public_members]
    return [
        (owner, group_id, is_public)
        for owner, group_id, is_public in [*local, *sorted(public)]
        if group_id != caller_group_id and not (is_public and owner == workspace_id)
    ]


async def _latest_versions(
    redis: aioredis.Redis, candidates: list[tuple[str, str, bool]]
) -> dict[tuple[str, str], tuple[AgentGroup, AgentVersion]]:
    """Each live candidate's group and latest version: one pipeline for the groups, one for the
    versions this process has not read before (core.stores.agents caches them)."""
    if not candidates:
        return {}
    async with redis.pipeline(transaction=False) as pipe:
        for owner, group_id, _ in candidates:
            pipe.get(keys.agent_group(owner, group_id))
        raws = await pipe.execute()
    groups = {
        (owner, group_id): group
        for (owner, group_id, _), raw in zip(candidates, raws, strict=True)
        if (group := agents.parse_group(raw)) is not None
    }
    missing = [
        (owner, group.latest_version_id)
        for (owner, _), group in groups.items()
        if agents.cached_version(owner, group.latest_version_id) is None
    ]
    if missing:
        async with redis.pipeline(transaction=False) as pipe:
            for owner, version_id in missing:
                pipe.get(keys.agent(owner, version_id))
            for (owner, _), raw in zip(missing, await pipe.execute(), strict=True):
                if raw:
                    agents.remember_version(owner, AgentVersion.model_validate_json(raw))
    found = {}
    for (owner, group_id), group in groups.items():
        version = agents.cached_version(owner, group.latest_version_id)
        if version is not None:
            found[(owner, group_id)] = (group, version)
    return found


async def roster(redis: aioredis.Redis, workspace_id: str, caller_group_id: str) -> list[dict[str, Any]]:
    """Agents the caller may be offered as delegation targets (docs/spec.md, delegate_tasks rule 7)."""
    entries: list[dict[str, Any]] = []
    seen_ids: set[str] = set()
    seen_names: set[str] = set()
    candidates = await _roster_candidates(redis, workspace_id, caller_group_id)
    latest = await _latest_versions(redis, candidates)
    for owner, group_id, is_public in candidates:
        if group_id in seen_ids or (owner, group_id) not in latest:
            continue
        group, version = latest[(owner, group_id)]
        if not group.is_active or version.config.get("delegation_enabled") is False:
            continue
        profile = version.config.get("delegation_profile") or {}
        description = profile.get("description") if isinstance(profile, dict) else None
        if not description:
            continue
        # A workspace agent wins over a public one with the same name.
        if is_public and group.name.lower() in seen_names:
            continue
        seen_ids.add(group_id)
        seen_names.add(group.name.lower())
        entries.append(
            {
                "agent_group_id": group_id,
                "name": group.name,
                "description": str(description),
                "example_input": str(profile.get("example_input") or ""),
                "public": is_public,
            }
        )
    return entries


async def batch_rollup(
    redis: aioredis.Redis, workspace_id: str, batch_id: str, children: list[dict[str, Any]]
) -> dict[str, Any]:
    """One compact result for a source batch: totals, plus only the children that did not complete."""
    batch: dict[str, str] = await redis.hgetall(keys.batch_run(workspace_id, batch_id))
    completed = sum(1 for c in children if c["status"] == "completed")
    return {
        "status": "completed",
        "batch_id": batch_id,
        "group_id": batch.get("group_id", ""),
        "strategy": STRATEGY,
        "total_items": int(batch.get("total_items", 0)),
        "created_children": int(batch.get("created_children", 0)),
        "skipped_count": int(batch.get("skipped_count", 0)),
        "attached_count": int(batch.get("attached_count", 0)),
        "pages_fetched": int(batch.get("pages_fetched", 0)),
        "completed": completed,
        "children": [c for c in children if c["status"] != "completed"],
    }


#: Counters of a batch record (docs/spec.md source mode rule 5), read back as integers.
BATCH_COUNTERS = ("total_items", "created_children", "skipped_count", "attached_count", "pages_fetched")


async def latest_batch(redis: aioredis.Redis, workspace_id: str, task_id: str) -> dict[str, Any] | None:
    """The record of the parent's latest source batch with its children's outcomes derived live from
    their statuses (docs/spec.md source mode rule 5), or None when the task ran no source batch."""
    batch_ids: list[str] = await redis.lrange(keys.task_batches(workspace_id, task_id), -1, -1)
    if not batch_ids:
        return None
    raw: dict[str, str] = await redis.hgetall(keys.batch_run(workspace_id, batch_ids[0]))
    if not raw:
        return None
    record: dict[str, Any] = {
        "batch_id": raw.get("batch_id", batch_ids[0]),
        "task_id": task_id,
        "status": raw.get("status", ""),
        "source_tool": raw.get("source_tool", ""),
        "created_at": raw.get("created_at", ""),
        "finished_at": raw.get("finished_at") or None,
        "error": raw.get("error") or None,
        "group_id": raw.get("group_id") or None,
    } | {name: int(raw.get(name, 0)) for name in BATCH_COUNTERS}
    group = await load_group(redis, workspace_id, raw["group_id"]) if raw.get("group_id") else None
    outcomes: dict[str, int] = {}
    for child_id in (group or {}).get("children", []):
        status = await redis.hget(keys.task(workspace_id, child_id), "status")
        if status:
            outcomes[status] = outcomes.get(status, 0) + 1
    record["children"] = outcomes
    return record
