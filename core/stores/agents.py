"""Agents: versioned definitions grouped under a stable `agent_group_id`.

Each version is its own record (`id`); the group holds the fields that belong to every version
(name, is_active, is_public) and points at its latest published version. Publishing and soft
deletion are optimistic transactions on the group record, so two concurrent publishes never
produce the same version number.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import WatchError

from core.infra import keys, slots
from core.infra.backoff import backoff_seconds
from core.infra.errors import BadRequest, Forbidden, NotFound
from core.infra.ids import new_id, now_iso, parse_uuid, sort_key, utcnow
from core.infra.models import Agent, AgentGroup, AgentVersion, PageOf
from core.infra.pagination import check_limit, member_id, newest_first
from core.stores.mcp_config import server_uses

#: docs/contract.md section 2: the tools an agent has when its config names none.
DEFAULT_TOOL_NAMES: tuple[str, ...] = (
    "ask_user",
    "delegate_tasks",
    "parse_document",
    "extract_document",
    "classify_document",
)
#: Longest agent name accepted.
MAX_NAME_LENGTH = 200
#: Wait before an agent update that lost a race to another writer reads the agent again; it doubles.
WATCH_RETRY_BASE_SECONDS = 0.005
WATCH_RETRY_CAP_SECONDS = 0.1


def default_config() -> dict[str, Any]:
    return {"system_prompt": "", "tools": list(DEFAULT_TOOL_NAMES)}


def _check_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > MAX_NAME_LENGTH:
        raise BadRequest(f"name must be 1 to {MAX_NAME_LENGTH} characters")
    return name


async def _owned(redis: aioredis.Redis, workspace_id: str, resource_id: str, what: str) -> None:
    """Raise 403 when the id belongs to another workspace, 404 when nobody has it."""
    owner = await redis.get(keys.owner(resource_id))
    if owner and owner != workspace_id:
        raise Forbidden(f"{what} {resource_id} belongs to another workspace")
    raise NotFound(f"{what} {resource_id} not found")


async def create_agent(
    redis: aioredis.Redis,
    workspace_id: str,
    *,
    name: str | None = None,
    config: dict[str, Any] | None = None,
    is_active: bool = True,
    is_public: bool = False,
) -> Agent:
    if name is None:
        number = await redis.incr(keys.untitled_counter(workspace_id))
        name = f"Untitled Agent {number}"
    name = _check_name(name)
    if config is not None:
        server_uses(config)
    moment = utcnow()
    stamp = now_iso()
    group_id, version_id = new_id(), new_id()
    version = AgentVersion(
        id=version_id,
        agent_group_id=group_id,
        version_number=1,
        status="published",
        config=default_config() if config is None else config,
        created_at=stamp,
        updated_at=stamp,
    )
    group = AgentGroup(
        id=group_id,
        workspace_id=workspace_id,
        name=name,
        is_active=is_active,
        is_public=is_public,
        latest_version_id=version_id,
        latest_version_number=1,
        created_at=stamp,
        updated_at=stamp,
        index_member=sort_key(moment, group_id),
    )
    # On a cluster the global pointers (owner, indexes) commit first: a crash before the rest leaves a
    # pointer to nothing, read as 404 or dropped, never a record nobody can find (core.infra.slots).
    async with slots.transaction(redis, global_first=True) as pipe:
        pipe.set(keys.owner(group_id), workspace_id)
        pipe.set(keys.owner(version_id), workspace_id)
        pipe.set(keys.agent(workspace_id, version_id), version.model_dump_json())
        pipe.set(keys.agent_group(workspace_id, group_id), group.model_dump_json())
        pipe.zadd(keys.agent_group_versions(workspace_id, group_id), {f"{1:010d}:{version_id}": 0})
        pipe.zadd(keys.agent_groups_index(workspace_id), {group.index_member: 0})
        if is_public:
            pipe.sadd(keys.public_agent_groups(), f"{workspace_id}:{group_id}")
        await pipe.execute()
    return Agent.of(version, group)


#: Versions as first read, by (workspace, id): a version's config never changes (a new config is a
#: new version, and deleting an agent marks its group), so a runner or a run reads it once per
#: process. Its `status` does change (`archived`): readers of the cache use its id, config and number.
_VERSIONS: OrderedDict[tuple[str, str], AgentVersion] = OrderedDict()
VERSION_CACHE_SIZE = 2048


def cached_version(workspace_id: str, version_id: str) -> AgentVersion | None:
    return _VERSIONS.get((workspace_id, version_id))


def remember_version(workspace_id: str, version: AgentVersion) -> AgentVersion:
    _VERSIONS[(workspace_id, version.id)] = version
    while len(_VERSIONS) > VERSION_CACHE_SIZE:
        _VERSIONS.popitem(last=False)
    return version


async def version_config(redis: aioredis.Redis, workspace_id: str, version_id: str) -> AgentVersion:
    """The version, from this process's cache when it read it before (see `_VERSIONS`)."""
    return cached_version(workspace_id, version_id) or remember_version(
        workspace_id, await load_version(redis, workspace_id, version_id)
    )


def parse_group(raw: str | None) -> AgentGroup | None:
    """A group record as stored; None when it is missing or deleted."""
    if not raw:
        return None
    group = AgentGroup.model_validate_json(raw)
    return None if group.deleted_at else group


async def load_group(redis: aioredis.Redis, workspace_id: str, group_id: str) -> AgentGroup:
    raw = await redis.get(keys.agent_group(workspace_id, group_id))
    if not raw:
        await _owned(redis, workspace_id, group_id, "agent group")
    group = AgentGroup.model_validate_json(raw)
    if group.deleted_at:
        raise NotFound(f"agent group {group_id} not found")
    return group


async def load_version(redis: aioredis.Redis, workspace_id: str, agent_id: str) -> AgentVersion:
    agent_id = parse_uuid(agent_id, what="agent_id")
    raw = await redis.get(keys.agent(workspace_id, agent_id))
    if not raw:
        await _owned(redis, workspace_id, agent_id, "agent")
    return AgentVersion.model_validate_json(raw)


async def resolve(redis: aioredis.Redis, workspace_id: str, agent_id: str) -> tuple[AgentVersion, AgentGroup]:
    """The version named by `agent_id` and its group; 404 once the group is deleted."""
    version = await load_version(redis, workspace_id, agent_id)
    group = await load_group(redis, workspace_id, version.agent_group_id)
    return version, group


async def get_agent(redis: aioredis.Redis, workspace_id: str, agent_id: str) -> Agent:
    version, group = await resolve(redis, workspace_id, agent_id)
    return Agent.of(version, group)


async def latest(redis: aioredis.Redis, workspace_id: str, group: AgentGroup) -> AgentVersion:
    return await load_version(redis, workspace_id, group.latest_version_id)


async def version_for_run(
    redis: aioredis.Redis, workspace_id: str, agent_id: str, version_number: int | None
) -> tuple[AgentVersion, AgentGroup]:
    """What a run executes: the group's latest published version, or the numbered one (its id,
    config and number: versions come from this process's cache, `_VERSIONS`)."""
    named = await version_config(redis, workspace_id, parse_uuid(agent_id, what="agent_id"))
    group = await load_group(redis, workspace_id, named.agent_group_id)
    if not group.is_active:
        raise Forbidden(f"agent {agent_id} is inactive")
    if version_number is None:
        # Runs usually name the latest version itself: the record just read is the one to run.
        if named.id == group.latest_version_id:
            return named, group
        return await version_config(redis, workspace_id, group.latest_version_id), group
    members: list[str] = await redis.zrangebylex(
        keys.agent_group_versions(workspace_id, group.id),
        f"[{version_number:010d}:",
        f"[{version_number:010d}:\xff",
    )
    if not members:
        raise NotFound(f"agent {agent_id} has no version {version_number}")
    return await version_config(redis, workspace_id, member_id(members[0])), group


async def list_agents(
    redis: aioredis.Redis, workspace_id: str, *, cursor: str | None, limit: int | None
) -> PageOf:
    page = await newest_first(
        redis, keys.agent_groups_index(workspace_id), cursor=cursor, limit=check_limit(limit)
    )
    group_ids = [member_id(m) for m in page.members]
    raws = await redis.mget([keys.agent_group(workspace_id, g) for g in group_ids]) if group_ids else []
    groups = [AgentGroup.model_validate_json(r) for r in raws if r]
    versions_raw = (
        await redis.mget([keys.agent(workspace_id, g.latest_version_id) for g in groups]) if groups else []
    )
    data = [
        Agent.of(AgentVersion.model_validate_json(v), g).model_dump()
        for g, v in zip(groups, versions_raw, strict=True)
        if v and not g.deleted_at
    ]
    return PageOf(data=data, has_more=page.has_more, next_cursor=page.next_cursor)


async def list_versions(
    redis: aioredis.Redis, workspace_id: str, agent_id: str, *, cursor: str | None, limit: int | None
) -> PageOf:
    _, group = await resolve(redis, workspace_id, agent_id)
    page = await newest_first(
        redis,
        keys.agent_group_versions(workspace_id, group.id),
        cursor=cursor,
        limit=check_limit(limit),
    )
    ids = [member_id(m) for m in page.members]
    raws = await redis.mget([keys.agent(workspace_id, i) for i in ids]) if ids else []
    data = [Agent.of(AgentVersion.model_validate_json(r), group).model_dump() for r in raws if r]
    return PageOf(data=data, has_more=page.has_more, next_cursor=page.next_cursor)


async def update_agent(
    redis: aioredis.Redis,
    workspace_id: str,
    agent_id: str,
    *,
    name: str | None = None,
    config: dict[str, Any] | None = None,
    is_active: bool | None = None,
    is_public: bool | None = None,
) -> Agent:
    """PATCH: a new `config` publishes a new version; the other fields change the group in place."""
    _, group = await resolve(redis, workspace_id, agent_id)
    if name is not None:
        name = _check_name(name)
    if config is not None:
        server_uses(config)
    group_key = keys.agent_group(workspace_id, group.id)
    conflicts = 0
    while True:
        async with redis.pipeline(transaction=True) as pipe, slots.global_step(redis, pipe) as global_pipe:
            try:
                await pipe.watch(group_key)
                raw = await pipe.get(group_key)
                if not raw:
                    raise NotFound(f"agent {agent_id} not found")
                group = AgentGroup.model_validate_json(raw)
                if group.deleted_at:
                    raise NotFound(f"agent {agent_id} not found")
                previous_raw = await pipe.get(keys.agent(workspace_id, group.latest_version_id))
                stamp = now_iso()
                pipe.multi()
                if config is not None and previous_raw:
                    previous = AgentVersion.model_validate_json(previous_raw)
                    previous.status = "archived"
                    previous.updated_at = stamp
                    number = group.latest_version_number + 1
                    version = AgentVersion(
                        id=new_id(),
                        agent_group_id=group.id,
                        version_number=number,
                        status="published",
                        config=config,
                        created_at=stamp,
                        updated_at=stamp,
                    )
                    global_pipe.set(keys.owner(version.id), workspace_id)
                    pipe.set(keys.agent(workspace_id, previous.id), previous.model_dump_json())
                    pipe.set(keys.agent(workspace_id, version.id), version.model_dump_json())
                    pipe.zadd(
                        keys.agent_group_versions(workspace_id, group.id), {f"{number:010d}:{version.id}": 0}
                    )
                    group.latest_version_id = version.id
                    group.latest_version_number = number
                if name is not None:
                    group.name = name
                if is_active is not None:
                    group.is_active = is_active
                if is_public is not None:
                    group.is_public = is_public
                    member = f"{workspace_id}:{group.id}"
                    if is_public:
                        global_pipe.sadd(keys.public_agent_groups(), member)
                    else:
                        global_pipe.srem(keys.public_agent_groups(), member)
                group.updated_at = stamp
                pipe.set(group_key, group.model_dump_json())
                await pipe.execute()
                # On a cluster the global facts (the new version's owner, the public set) follow the
                # watched workspace step once it committed: a crash between leaves the version
                # unlisted as public or answered 404 by id until the next PATCH (core.infra.slots).
                await global_pipe.execute()
                break
            except WatchError:
                # Another writer changed the agent meanwhile: read it again after a short, jittered
                # wait, so two writers racing on one agent do not collide again at once.
                conflicts += 1
                await asyncio.sleep(
                    backoff_seconds(conflicts, base=WATCH_RETRY_BASE_SECONDS, cap=WATCH_RETRY_CAP_SECONDS)
                )
                continue
    return await get_agent(redis, workspace_id, group.latest_version_id)


async def delete_agent(redis: aioredis.Redis, workspace_id: str, agent_id: str) -> dict[str, Any]:
    """Soft-delete the whole group: every version answers 404 afterwards."""
    _, group = await resolve(redis, workspace_id, agent_id)
    group.deleted_at = now_iso()
    group.updated_at = group.deleted_at
    # On a cluster the global pointers go after the record: a crash between leaves a pointer to
    # nothing, read as 404 or dropped (core.infra.slots).
    async with slots.transaction(redis, global_first=False) as pipe:
        pipe.set(keys.agent_group(workspace_id, group.id), group.model_dump_json())
        pipe.zrem(keys.agent_groups_index(workspace_id), group.index_member)
        pipe.srem(keys.public_agent_groups(), f"{workspace_id}:{group.id}")
        await pipe.execute()
    return {"id": agent_id, "deleted": True}
