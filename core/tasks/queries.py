"""Listing tasks: filters, buckets and cursor pages over the workspace's task index."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import redis.asyncio as aioredis

from core.infra import keys
from core.infra.errors import BadRequest
from core.infra.ids import decode_cursor, encode_cursor, parse_iso, parse_uuid
from core.infra.pagination import check_limit, member_id
from core.tasks.records import Task, parse_task
from core.tasks.state_machine import TaskStatus

#: docs/spec.md, task list: the bucket values; any other gives 400.
BUCKETS = ("production", "test", "all")
#: Index members read per round trip while filtering.
SCAN_BATCH = 200


@dataclass(frozen=True)
class TaskFilter:
    agent_group_id: str | None = None
    agent_id: str | None = None
    statuses: frozenset[str] | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    title: str | None = None
    bucket: str = "production"
    parent_task_id: str | None = None

    @classmethod
    def parse(
        cls,
        *,
        agent_group_id: str | None,
        agent_id: str | None,
        status: str | None,
        created_after: str | None,
        created_before: str | None,
        title: str | None,
        bucket: str | None,
    ) -> TaskFilter:
        statuses = None
        if status:
            names = {s.strip() for s in status.split(",") if s.strip()}
            unknown = names - {s.value for s in TaskStatus}
            if unknown:
                raise BadRequest(f"unknown status value(s): {', '.join(sorted(unknown))}")
            statuses = frozenset(names)
        bucket = bucket if bucket is not None else "production"
        if bucket not in BUCKETS:
            raise BadRequest("bucket must be production, test or all")
        return cls(
            agent_group_id=parse_uuid(agent_group_id, what="agent_group_id") if agent_group_id else None,
            agent_id=parse_uuid(agent_id, what="agent_id") if agent_id else None,
            statuses=statuses,
            created_after=parse_iso(created_after, what="created_after") if created_after else None,
            created_before=parse_iso(created_before, what="created_before") if created_before else None,
            title=title.lower() if title else None,
            bucket=bucket,
        )

    def matches(self, task: Task) -> bool:
        s = task.spec
        if task.deleted_at:
            return False
        if self.bucket == "production" and s.source == "test":
            return False
        if self.bucket == "test" and s.source != "test":
            return False
        if self.agent_group_id and s.agent_group_id != self.agent_group_id:
            return False
        if self.agent_id and s.agent_id != self.agent_id:
            return False
        if self.parent_task_id and s.parent_task_id != self.parent_task_id:
            return False
        if self.statuses is not None and task.status not in self.statuses:
            return False
        created = parse_iso(s.created_at)
        if self.created_after and created < self.created_after:
            return False
        if self.created_before and created > self.created_before:
            return False
        return not (self.title and self.title not in (s.title or "").lower())


@dataclass
class TaskPage:
    tasks: list[Task]
    has_more: bool
    next_cursor: str


async def list_tasks(
    redis: aioredis.Redis, workspace_id: str, flt: TaskFilter, *, cursor: str | None, limit: int | None
) -> TaskPage:
    size = check_limit(limit)
    upper = f"({decode_cursor(cursor)}" if cursor else "+"
    found: list[tuple[str, Task]] = []
    while len(found) <= size:
        members: list[str] = await redis.zrevrangebylex(
            keys.tasks_index(workspace_id), upper, "-", start=0, num=SCAN_BATCH
        )
        if not members:
            break
        async with redis.pipeline(transaction=False) as pipe:
            for member in members:
                pipe.hgetall(keys.task(workspace_id, member_id(member)))
            raws = await pipe.execute()
        for member, raw in zip(members, raws, strict=True):
            if raw:
                task = parse_task(raw)
                if flt.matches(task):
                    found.append((member, task))
                    if len(found) > size:
                        break
        upper = f"({members[-1]}"
        if len(members) < SCAN_BATCH:
            break
    has_more = len(found) > size
    page = found[:size]
    return TaskPage(
        tasks=[t for _, t in page],
        has_more=has_more,
        next_cursor=encode_cursor(page[-1][0]) if has_more and page else "",
    )
