"""Webhook deliveries in Redis: fan-out of outbox events, due retries, and the record of every attempt.

- The outbox (`keys.webhook_outbox`) receives an event in the same atomic step as the change it
  reports (the task transition script, the extraction job's finishing transaction), and only when
  the workspace has a subscription. The dispatcher reads it with a consumer group.
- Fan-out turns one outbox entry into one delivery per subscription that wants the event, and
  acknowledges and deletes the entry, in one transaction: an entry is fanned out exactly once.
- A delivery waits in the due set (`keys.webhook_due`, scored by Unix time). Claiming pushes its
  score a lease ahead, so a dispatcher that dies mid-attempt leaves it due again, never lost (a
  receiver may then see it twice, with the same `X-Agentry-Delivery`).
- Each attempt is appended to the subscription's attempt stream; a success, or a failure with no
  retry left before the window's end, deletes the delivery.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any, Literal

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from core.infra import keys, slots
from core.infra.backoff import backoff_seconds
from core.infra.errors import BadRequest
from core.infra.ids import decode_cursor, encode_cursor, iso, new_id, parse_iso, utcnow
from core.infra.models import PageOf, Record
from core.infra.pagination import check_limit

#: Longest wait between two attempts of one delivery.
RETRY_CAP_SECONDS = 3600.0
#: A delivery is tried until this long after its event, then marked failed.
RETRY_WINDOW_SECONDS = 24 * 3600.0
#: A claimed delivery comes due again after this long if its attempt was never recorded.
CLAIM_LEASE_SECONDS = 120.0
#: Attempts kept per subscription (older ones are trimmed, approximately).
MAX_RECORDED_ATTEMPTS = 1000
#: A cursor over attempts names a stream id; the prefix keeps it apart from other cursors.
_CURSOR_PREFIX = "attempt:"

Outcome = Literal["succeeded", "retrying", "failed"]

#: KEYS: due set. ARGV: now, lease end, count. Claims up to `count` due members at once.
CLAIM_DUE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], member) end
return due
"""


class Delivery(Record):
    """One event on its way to one subscription; the body is fixed when it is fanned out."""

    id: str
    workspace_id: str
    webhook_id: str
    event_id: str
    event_type: str
    body: str
    created_at: str
    deadline_at: str
    attempts: int = 0


def retry_delay(attempt: int, base_seconds: float) -> float:
    """Seconds after failed attempt number `attempt` (1-based) before the next: doubling, capped,
    jittered (core.infra.backoff)."""
    return backoff_seconds(attempt, base=base_seconds, cap=RETRY_CAP_SECONDS)


def next_attempt_at(attempt: int, now: datetime, deadline: datetime, base_seconds: float) -> datetime | None:
    """When to try again after failed attempt `attempt`, or None when that would pass the deadline."""
    due = now + timedelta(seconds=retry_delay(attempt, base_seconds))
    return due if due <= deadline else None


def due_member(workspace_id: str, delivery_id: str) -> str:
    return f"{workspace_id}|{delivery_id}"


def split_due_member(member: str) -> tuple[str, str]:
    workspace_id, _, delivery_id = member.partition("|")
    return workspace_id, delivery_id


def payload(event_id: str, event_type: str, created_at: str, workspace_id: str, data: dict[str, Any]) -> str:
    """The body every subscription receives for an event, serialised once so retries send the same bytes."""
    body = {
        "id": event_id,
        "type": event_type,
        "created_at": created_at,
        "workspace_id": workspace_id,
        "data": data,
    }
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False, default=str)


async def ensure_group(redis: aioredis.Redis) -> None:
    try:
        await redis.xgroup_create(keys.webhook_outbox(), keys.WEBHOOKS_GROUP, id="0", mkstream=True)
    except ResponseError as exc:
        if "BUSYGROUP" not in str(exc):
            raise


async def fan_out(
    redis: aioredis.Redis,
    entry_id: str,
    *,
    workspace_id: str,
    event_type: str,
    created_at: str,
    data: dict[str, Any] | None,
    webhook_ids: list[str],
) -> list[Delivery]:
    """Create one delivery per subscription and retire the outbox entry, in one transaction.

    `data` None (the task or job is gone) retires the entry with no delivery.
    """
    event_id = new_id()
    now = utcnow()
    deadline = parse_iso(created_at) + timedelta(seconds=RETRY_WINDOW_SECONDS)
    deliveries: list[Delivery] = []
    if data is not None:
        body = payload(event_id, event_type, created_at, workspace_id, data)
        deliveries = [
            Delivery(
                id=new_id(),
                workspace_id=workspace_id,
                webhook_id=webhook_id,
                event_id=event_id,
                event_type=event_type,
                body=body,
                created_at=created_at,
                deadline_at=iso(deadline),
            )
            for webhook_id in webhook_ids
        ]
    # On a cluster the deliveries (workspace) commit before their due entries and the outbox ack
    # (global): a crash between leaves the entry unacknowledged, so it is fanned out again
    # (at least once); the orphaned records are never due (core.infra.slots).
    async with slots.transaction(redis, global_first=False) as pipe:
        for delivery in deliveries:
            pipe.set(keys.webhook_delivery(workspace_id, delivery.id), delivery.model_dump_json())
            pipe.zadd(keys.webhook_due(), {due_member(workspace_id, delivery.id): now.timestamp()})
        pipe.xack(keys.webhook_outbox(), keys.WEBHOOKS_GROUP, entry_id)
        pipe.xdel(keys.webhook_outbox(), entry_id)
        await pipe.execute()
    return deliveries


async def claim_due(redis: aioredis.Redis, *, count: int) -> list[str]:
    """Members of the due set whose attempt is due now, each leased to the caller."""
    now = utcnow().timestamp()
    claimed: list[str] = await redis.eval(
        CLAIM_DUE, 1, keys.webhook_due(), now, now + CLAIM_LEASE_SECONDS, count
    )
    return claimed


async def load_delivery(redis: aioredis.Redis, workspace_id: str, delivery_id: str) -> Delivery | None:
    raw = await redis.get(keys.webhook_delivery(workspace_id, delivery_id))
    return Delivery.model_validate_json(raw) if raw else None


async def drop(redis: aioredis.Redis, workspace_id: str, delivery_id: str) -> None:
    """Forget a delivery whose subscription is gone."""
    # On a cluster the global pointers go after the record: a crash between leaves a pointer to
    # nothing, read as 404 or dropped (core.infra.slots).
    async with slots.transaction(redis, global_first=False) as pipe:
        pipe.delete(keys.webhook_delivery(workspace_id, delivery_id))
        pipe.zrem(keys.webhook_due(), due_member(workspace_id, delivery_id))
        await pipe.execute()


async def record_attempt(
    redis: aioredis.Redis,
    delivery: Delivery,
    *,
    started: datetime,
    duration_ms: int,
    status_code: int | None,
    error: str | None,
    base_seconds: float,
) -> tuple[Outcome, dict[str, Any]]:
    """Write the attempt and what follows it (the next due time, or the delivery's end) atomically."""
    number = delivery.attempts + 1
    finished = utcnow()
    succeeded = status_code is not None and 200 <= status_code < 300
    retry_at = None
    if not succeeded:
        retry_at = next_attempt_at(number, finished, parse_iso(delivery.deadline_at), base_seconds)
    outcome: Outcome = "succeeded" if succeeded else ("retrying" if retry_at else "failed")
    attempt = {
        "delivery_id": delivery.id,
        "event_id": delivery.event_id,
        "event": delivery.event_type,
        "attempt": number,
        "outcome": outcome,
        "status_code": status_code,
        "error": error,
        "duration_ms": duration_ms,
        "started_at": iso(started),
        "finished_at": iso(finished),
        "next_attempt_at": iso(retry_at) if retry_at else None,
    }
    ws = delivery.workspace_id
    member = due_member(ws, delivery.id)
    # On a cluster the delivery record commits before its due entry (core.infra.slots): a due entry
    # never points at an attempt that was not recorded.
    async with slots.transaction(redis, global_first=False) as pipe:
        pipe.xadd(
            keys.webhook_attempts(ws, delivery.webhook_id),
            {"attempt": json.dumps(attempt)},
            maxlen=MAX_RECORDED_ATTEMPTS,
            approximate=True,
        )
        if retry_at is not None:
            delivery.attempts = number
            pipe.set(keys.webhook_delivery(ws, delivery.id), delivery.model_dump_json())
            pipe.zadd(keys.webhook_due(), {member: retry_at.timestamp()})
        else:
            pipe.delete(keys.webhook_delivery(ws, delivery.id))
            pipe.zrem(keys.webhook_due(), member)
        await pipe.execute()
    return outcome, attempt


async def list_attempts(
    redis: aioredis.Redis, workspace_id: str, webhook_id: str, *, cursor: str | None, limit: int | None
) -> PageOf:
    """A subscription's delivery attempts, newest first, in cursor pages."""
    count = check_limit(limit)
    upper = "+"
    if cursor:
        member = decode_cursor(cursor)
        if not member.startswith(_CURSOR_PREFIX):
            raise BadRequest("cursor is not a value returned by a previous page")
        upper = "(" + member.removeprefix(_CURSOR_PREFIX)
    try:
        entries = await redis.xrevrange(
            keys.webhook_attempts(workspace_id, webhook_id), upper, "-", count=count + 1
        )
    except ResponseError:
        raise BadRequest("cursor is not a value returned by a previous page") from None
    has_more = len(entries) > count
    entries = entries[:count]
    data = [{"id": entry_id} | json.loads(fields["attempt"]) for entry_id, fields in entries]
    next_cursor = encode_cursor(_CURSOR_PREFIX + entries[-1][0]) if has_more and entries else ""
    return PageOf(data=data, has_more=has_more, next_cursor=next_cursor)
