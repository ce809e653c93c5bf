"""The workspace audit log: who read or wrote what, never the values themselves."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import redis.asyncio as aioredis

from core.infra import keys
from core.infra.ids import new_id, now_iso, sort_key, utcnow
from core.infra.models import AuditEntry, PageOf
from core.infra.pagination import check_limit, member_id, newest_first

#: Purpose of the key (derived from the deployment's secret) that digests identifiers in audit details.
IDENTIFIER_DIGEST_PURPOSE = "audit/identifier-digest/v1"


def identifier_digest(secret: str, value: str) -> str:
    """An HMAC-SHA256 of an identifier, keyed with the deployment's secret.

    Entries about one record still match each other, but a reader of the log cannot confirm a guess:
    a key such as `patient_pcref` is made of names and a date of birth, few enough to try them all
    against a bare hash.
    """
    # Key derivation (cryptography) loads on the first digest, not with every importer of the log.
    from core.infra.secretbox import derive_key

    key = derive_key(secret, IDENTIFIER_DIGEST_PURPOSE)
    return hmac.new(key, value.encode("utf-8"), hashlib.sha256).hexdigest()


async def record(
    redis: aioredis.Redis,
    workspace_id: str,
    action: str,
    *,
    key_id: str | None,
    task_ids: list[str] | None = None,
    details: dict[str, Any] | None = None,
) -> AuditEntry:
    async with redis.pipeline(transaction=True) as pipe:
        entry = queue(pipe, workspace_id, action, key_id=key_id, task_ids=task_ids, details=details)
        await pipe.execute()
    return entry


def queue(
    pipe: Any,
    workspace_id: str,
    action: str,
    *,
    key_id: str | None,
    task_ids: list[str] | None = None,
    details: dict[str, Any] | None = None,
) -> AuditEntry:
    """Add an entry's writes to `pipe`, a MULTI of the workspace's keys: it commits with the change
    it records, or not at all."""
    entry = AuditEntry(
        id=new_id(),
        action=action,
        created_at=now_iso(),
        key_id=key_id,
        task_ids=task_ids or [],
        details=details or {},
    )
    pipe.set(keys.audit_entry(workspace_id, entry.id), entry.model_dump_json())
    pipe.zadd(keys.audit_log(workspace_id), {sort_key(utcnow(), entry.id): 0})
    return entry


async def list_entries(
    redis: aioredis.Redis, workspace_id: str, *, cursor: str | None, limit: int | None
) -> PageOf:
    page = await newest_first(redis, keys.audit_log(workspace_id), cursor=cursor, limit=check_limit(limit))
    ids = [member_id(m) for m in page.members]
    raws = await redis.mget([keys.audit_entry(workspace_id, i) for i in ids]) if ids else []
    data = [AuditEntry.model_validate_json(r).model_dump() for r in raws if r]
    return PageOf(data=data, has_more=page.has_more, next_cursor=page.next_cursor)
