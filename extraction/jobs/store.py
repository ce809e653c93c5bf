"""Extraction jobs and batches in Redis.

- `ag:{ws}:job:<uuid>`: the job record (JSON); `ag:{ws}:job:<uuid>:result`: its result (JSON).
- `ag:{ws}:batch:<uuid>`: a batch and the job ids of its items; `ag:{ws}:batches`: the workspace's
  batches, newest first (lexically ordered `core.infra.ids.sort_key` members).
- `ag:{global}:extraction:pending`: every job not yet finished, as `<ws> <job id>`, so a restarted
  coordinator finds the work it owes.
- Channel `ag:{global}:extraction:done` carries the id of each job that finished; it only wakes
  waiters, who then read the record (pub/sub is never the fact).

A job moves processing -> completed | failed once; the finishing write checks the status it moves
from inside a transaction, so a job resumed after a restart cannot be finished twice.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, NoReturn

import redis.asyncio as aioredis
from redis.exceptions import WatchError

from core.infra import keys, slots
from core.infra.errors import Forbidden, NotFound
from core.infra.ids import iso, new_id, now_iso, parse_uuid, sort_key, utcnow
from core.infra.models import PageOf
from core.infra.pagination import check_limit, member_id, newest_first
from extraction.jobs.model import TaskModel
from extraction.jobs.schemas import BatchItem, BatchRecord, JobKind, JobRecord

PENDING_KEY = keys.glob("extraction", "pending")
#: The webhook event of a job that completed (a failed job raises none).
JOB_COMPLETED_EVENT = "extraction.job.completed"
DONE_CHANNEL = keys.glob("extraction", "done")


def job_key(workspace_id: str, job_id: str) -> str:
    return keys.ws(workspace_id, "job", job_id)


def result_key(workspace_id: str, job_id: str) -> str:
    return keys.ws(workspace_id, "job", job_id, "result")


def batch_key(workspace_id: str, batch_id: str) -> str:
    return keys.ws(workspace_id, "batch", batch_id)


def batches_index(workspace_id: str) -> str:
    return keys.ws(workspace_id, "batches")


def pending_member(workspace_id: str, job_id: str) -> str:
    return f"{workspace_id} {job_id}"


def split_pending_member(member: str) -> tuple[str, str]:
    workspace_id, _, job_id = member.partition(" ")
    return workspace_id, job_id


async def create_job(
    redis: aioredis.Redis,
    workspace_id: str,
    *,
    kind: JobKind,
    input: str,
    file: dict[str, Any],
    config_id: str | None,
    params: dict[str, Any],
    output_format: str,
    batch_id: str | None = None,
    task_model: TaskModel | None = None,
) -> JobRecord:
    """Store a new job as `processing` and list it as pending; `file` is the file resource."""
    record = JobRecord(
        id=new_id(),
        workspace_id=workspace_id,
        kind=kind,
        status="processing",
        input=input,
        file_id=file["file_id"],
        config_id=config_id,
        params=params,
        output_format=output_format,
        filename=file["filename"],
        file_size=file["file_size"],
        format=file["format"],
        batch_id=batch_id,
        created_at=now_iso(),
        task_model=task_model,
    )
    # On a cluster the global pointers (owner, indexes) commit first: a crash before the rest leaves a
    # pointer to nothing, read as 404 or dropped, never a record nobody can find (core.infra.slots).
    async with slots.transaction(redis, global_first=True) as pipe:
        pipe.set(keys.owner(record.id), workspace_id)
        pipe.set(job_key(workspace_id, record.id), record.model_dump_json())
        pipe.sadd(PENDING_KEY, pending_member(workspace_id, record.id))
        await pipe.execute()
    return record


async def _owned(redis: aioredis.Redis, workspace_id: str, resource_id: str, what: str) -> NoReturn:
    owner = await redis.get(keys.owner(resource_id))
    if owner and owner != workspace_id:
        raise Forbidden(f"{what} {resource_id} belongs to another workspace")
    raise NotFound(f"{what} {resource_id} not found")


async def get_job(redis: aioredis.Redis, workspace_id: str, job_id: str) -> JobRecord:
    job_id = parse_uuid(job_id, what="record_id")
    raw = await redis.get(job_key(workspace_id, job_id))
    if not raw:
        await _owned(redis, workspace_id, job_id, "job")
    return JobRecord.model_validate_json(raw)


async def load_job(redis: aioredis.Redis, workspace_id: str, job_id: str) -> JobRecord | None:
    raw = await redis.get(job_key(workspace_id, job_id))
    return JobRecord.model_validate_json(raw) if raw else None


async def get_result(redis: aioredis.Redis, workspace_id: str, job_id: str) -> dict[str, Any] | None:
    raw = await redis.get(result_key(workspace_id, job_id))
    if not raw:
        return None
    result: dict[str, Any] = json.loads(raw)
    return result


async def mark_started(redis: aioredis.Redis, record: JobRecord) -> JobRecord:
    """Stamp the start of the work (again, when a restarted coordinator resumes the job)."""
    record.started_at = now_iso()
    await redis.set(job_key(record.workspace_id, record.id), record.model_dump_json())
    return record


async def finish_job(
    redis: aioredis.Redis,
    record: JobRecord,
    *,
    result: dict[str, Any] | None = None,
    error: str | None = None,
) -> JobRecord | None:
    """Move the job to completed (with `result`) or failed (with `error`) and wake its waiters.

    Returns the finished record, or None when the job was no longer `processing`.
    """
    key = job_key(record.workspace_id, record.id)
    finished = utcnow()
    async with redis.pipeline(transaction=True) as pipe, slots.global_step(redis, pipe) as global_pipe:
        try:
            await pipe.watch(key)
            raw = await pipe.get(key)
            if not raw:
                return None
            current = JobRecord.model_validate_json(raw)
            if current.status != "processing":
                return None
            subscribed = await pipe.zcard(keys.webhooks_index(record.workspace_id)) > 0
            current.status = "failed" if error is not None else "completed"
            current.error = error
            current.finished_at = now_iso()
            started = current.started_at or current.created_at
            current.processing_time = round(
                max(0.0, (finished - datetime.fromisoformat(started.replace("Z", "+00:00"))).total_seconds()),
                3,
            )
            pipe.multi()
            pipe.set(key, current.model_dump_json())
            if result is not None:
                pipe.set(result_key(record.workspace_id, record.id), json.dumps(result, ensure_ascii=False))
            global_pipe.srem(PENDING_KEY, pending_member(record.workspace_id, record.id))
            if subscribed and current.status == "completed":
                # The webhook event commits with the job's end, or not at all (`core.stores.webhook_delivery`);
                # on a cluster it follows the job's end, as the next call (core.infra.slots.global_step).
                global_pipe.xadd(
                    keys.webhook_outbox(),
                    {
                        "type": JOB_COMPLETED_EVENT,
                        "ws": record.workspace_id,
                        "job_id": record.id,
                        "at": current.finished_at,
                    },
                )
            pipe.publish(DONE_CHANNEL, record.id)
            await pipe.execute()
            await global_pipe.execute()
        except WatchError:
            # Only a concurrent finish touches a processing job's record: that one won.
            return None
    return current


async def pending_jobs(redis: aioredis.Redis) -> list[tuple[str, str]]:
    members: set[str] = await redis.smembers(PENDING_KEY)
    return [split_pending_member(m) for m in sorted(members)]


async def forget_pending(redis: aioredis.Redis, workspace_id: str, job_id: str) -> None:
    await redis.srem(PENDING_KEY, pending_member(workspace_id, job_id))


async def create_batch(
    redis: aioredis.Redis, workspace_id: str, *, batch_id: str, kind: JobKind, items: list[BatchItem]
) -> BatchRecord:
    moment = utcnow()
    record = BatchRecord(
        id=batch_id, workspace_id=workspace_id, kind=kind, created_at=iso(moment), items=items
    )
    # On a cluster the global pointers (owner, indexes) commit first: a crash before the rest leaves a
    # pointer to nothing, read as 404 or dropped, never a record nobody can find (core.infra.slots).
    async with slots.transaction(redis, global_first=True) as pipe:
        pipe.set(keys.owner(batch_id), workspace_id)
        pipe.set(batch_key(workspace_id, batch_id), record.model_dump_json())
        pipe.zadd(batches_index(workspace_id), {sort_key(moment, batch_id): 0})
        await pipe.execute()
    return record


async def list_batches(
    redis: aioredis.Redis, workspace_id: str, *, cursor: str | None = None, limit: int | None = None
) -> PageOf:
    """The workspace's batches, newest first, each with its items' current status counts (two reads
    for a page: its batches, then every job they name)."""
    page = await newest_first(redis, batches_index(workspace_id), cursor=cursor, limit=check_limit(limit))
    ids = [member_id(m) for m in page.members]
    raws = await redis.mget([batch_key(workspace_id, i) for i in ids]) if ids else []
    batches = [BatchRecord.model_validate_json(raw) for raw in raws if raw]
    job_ids = [item.record_id for batch in batches for item in batch.items if item.record_id]
    job_raws = await redis.mget([job_key(workspace_id, i) for i in job_ids]) if job_ids else []
    statuses = {job.id: job.status for job in (JobRecord.model_validate_json(r) for r in job_raws if r)}
    data = []
    for batch in batches:
        counts: dict[str, int] = {}
        for item in batch.items:
            status = statuses.get(item.record_id or "", item.status)
            counts[status] = counts.get(status, 0) + 1
        data.append(
            {
                "batch_id": batch.id,
                "kind": batch.kind,
                "created_at": batch.created_at,
                "total": len(batch.items),
                "counts": counts,
            }
        )
    return PageOf(data=data, has_more=page.has_more, next_cursor=page.next_cursor)


async def get_batch(redis: aioredis.Redis, workspace_id: str, batch_id: str) -> BatchRecord:
    """The batch with each item's current status."""
    batch_id = parse_uuid(batch_id, what="batch_id")
    raw = await redis.get(batch_key(workspace_id, batch_id))
    if not raw:
        await _owned(redis, workspace_id, batch_id, "batch")
    record = BatchRecord.model_validate_json(raw)
    ids = [item.record_id for item in record.items if item.record_id]
    raws = await redis.mget([job_key(workspace_id, i) for i in ids]) if ids else []
    jobs = {job.id: job for job in (JobRecord.model_validate_json(r) for r in raws if r)}
    for item in record.items:
        job = jobs.get(item.record_id or "")
        if job is not None:
            item.status = job.status
            item.error = job.error
    return record
