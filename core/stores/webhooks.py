"""Webhook subscriptions of a workspace, and how their deliveries are signed.

A subscription names a URL and the events it wants. Its signing secret is shown once, when it is
created; the service must keep the secret itself (not a hash) to sign every delivery with it, so it
is stored sealed with `core.infra.secretbox` under a key of its own purpose: a copy of Redis alone signs
nothing.

Deliveries carry `X-Agentry-Signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>` with
the `X-Agentry-Timestamp` of the attempt, so a receiver can refuse old or replayed requests.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

import redis.asyncio as aioredis

from core.infra import keys, slots
from core.infra.errors import BadRequest, Forbidden, NotFound
from core.infra.ids import new_id, now_iso, parse_uuid, sort_key, utcnow
from core.infra.models import PageOf, Record
from core.infra.pagination import check_limit, member_id, newest_first
from core.infra.secretbox import SecretBox
from core.infra.settings import Settings

#: Every event a subscription may name.
EVENTS: tuple[str, ...] = (
    "task.completed",
    "task.failed",
    "task.waiting_for_input",
    "task.awaiting_review",
    "extraction.job.completed",
)
#: Subscriptions one workspace may hold.
MAX_WEBHOOKS_PER_WORKSPACE = 25
MAX_URL_CHARS = 2048
MAX_DESCRIPTION_CHARS = 500
#: The sealing key's purpose (see `core.infra.secretbox`).
SECRET_PURPOSE = "webhook-signing-secret"
SECRET_PREFIX = "whsec_"
SIGNATURE_VERSION = "v1"
#: How a subscription's URL is named in error messages.
URL_NAME = "webhook URL"


class WebhookRecord(Record):
    id: str
    workspace_id: str
    url: str
    events: list[str]
    description: str | None = None
    created_at: str
    #: Its member in the workspace's webhook index.
    index_member: str
    secret_sealed: str

    def resource(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "url": self.url,
            "events": self.events,
            "description": self.description,
            "created_at": self.created_at,
        }


def sign(secret: str, timestamp: int, body: str) -> str:
    """The signature header's value for `body` sent at `timestamp` (Unix seconds)."""
    digest = hmac.new(secret.encode(), f"{timestamp}.{body}".encode(), hashlib.sha256).hexdigest()
    return f"{SIGNATURE_VERSION}={digest}"


def secret_box(settings: Settings) -> SecretBox:
    return SecretBox(settings.resolved_secret(), SECRET_PURPOSE)


def check_events(events: list[str]) -> list[str]:
    """The events, without repeats and in the order given; 400 when empty or one is unknown."""
    if not events:
        raise BadRequest(f"events must name at least one of {', '.join(EVENTS)}")
    unknown = [e for e in events if e not in EVENTS]
    if unknown:
        raise BadRequest(f"unknown webhook events {unknown}; known events: {', '.join(EVENTS)}")
    return list(dict.fromkeys(events))


async def create_webhook(
    redis: aioredis.Redis,
    settings: Settings,
    workspace_id: str,
    *,
    url: str,
    events: list[str],
    description: str | None,
) -> tuple[WebhookRecord, str]:
    """Store a subscription; returns it with its signing secret, which is never shown again.

    `url` has passed the URL guard already (`serve.webhooks`: core imports nothing of ours).
    """
    events = check_events(events)
    if description is not None and len(description) > MAX_DESCRIPTION_CHARS:
        raise BadRequest(f"description must be at most {MAX_DESCRIPTION_CHARS} characters")
    if await redis.zcard(keys.webhooks_index(workspace_id)) >= MAX_WEBHOOKS_PER_WORKSPACE:
        raise BadRequest(f"a workspace holds at most {MAX_WEBHOOKS_PER_WORKSPACE} webhooks; delete one first")
    secret = SECRET_PREFIX + secrets.token_urlsafe(32)
    webhook_id = new_id()
    record = WebhookRecord(
        id=webhook_id,
        workspace_id=workspace_id,
        url=url,
        events=events,
        description=description,
        created_at=now_iso(),
        index_member=sort_key(utcnow(), webhook_id),
        secret_sealed=secret_box(settings).seal(secret),
    )
    # On a cluster the global pointers (owner, indexes) commit first: a crash before the rest leaves a
    # pointer to nothing, read as 404 or dropped, never a record nobody can find (core.infra.slots).
    async with slots.transaction(redis, global_first=True) as pipe:
        pipe.set(keys.owner(webhook_id), workspace_id)
        pipe.set(keys.webhook(workspace_id, webhook_id), record.model_dump_json())
        pipe.zadd(keys.webhooks_index(workspace_id), {record.index_member: 0})
        await pipe.execute()
    return record, secret


async def find_webhook(redis: aioredis.Redis, workspace_id: str, webhook_id: str) -> WebhookRecord | None:
    raw = await redis.get(keys.webhook(workspace_id, webhook_id))
    return WebhookRecord.model_validate_json(raw) if raw else None


async def get_webhook(redis: aioredis.Redis, workspace_id: str, webhook_id: str) -> WebhookRecord:
    """The caller's subscription: 400 for a malformed id, 403 for another workspace's, 404 otherwise."""
    webhook_id = parse_uuid(webhook_id, what="webhook_id")
    record = await find_webhook(redis, workspace_id, webhook_id)
    if record is None:
        owner = await redis.get(keys.owner(webhook_id))
        if owner and owner != workspace_id:
            raise Forbidden(f"webhook {webhook_id} belongs to another workspace")
        raise NotFound(f"webhook {webhook_id} not found")
    return record


async def list_webhooks(
    redis: aioredis.Redis, workspace_id: str, *, cursor: str | None, limit: int | None
) -> PageOf:
    page = await newest_first(
        redis, keys.webhooks_index(workspace_id), cursor=cursor, limit=check_limit(limit)
    )
    found = [await find_webhook(redis, workspace_id, member_id(m)) for m in page.members]
    data = [record.resource() for record in found if record is not None]
    return PageOf(data=data, has_more=page.has_more, next_cursor=page.next_cursor)


async def subscribers(redis: aioredis.Redis, workspace_id: str, event: str) -> list[WebhookRecord]:
    """Every subscription of the workspace that wants `event` (a workspace holds only a few)."""
    members: list[str] = await redis.zrange(keys.webhooks_index(workspace_id), 0, -1)
    found = [await find_webhook(redis, workspace_id, member_id(m)) for m in members]
    return [record for record in found if record is not None and event in record.events]


async def delete_webhook(redis: aioredis.Redis, record: WebhookRecord) -> None:
    """Forget the subscription and its attempts; its pending deliveries are dropped when next due.

    The owner key stays, so the id keeps answering 403 to other workspaces rather than 404.
    """
    ws = record.workspace_id
    async with redis.pipeline(transaction=True) as pipe:
        pipe.delete(keys.webhook(ws, record.id), keys.webhook_attempts(ws, record.id))
        pipe.zrem(keys.webhooks_index(ws), record.index_member)
        await pipe.execute()
