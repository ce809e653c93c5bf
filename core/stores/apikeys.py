"""Workspaces and their API keys.

A key is `agk_<key_id>_<secret>`. Only a SHA-256 of the secret is stored: the secret is 256 random
bits, so a slow password hash would add latency to every request without adding safety. Lookups are
by `key_id`, and the hash comparison is constant-time.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

import redis.asyncio as aioredis

from core.infra import keys, slots
from core.infra.errors import NotFound, Unauthorized
from core.infra.ids import new_id, now_iso
from core.infra.models import ApiKeyRecord, Workspace
from core.infra.store import async_client

KEY_PREFIX = "agk"
_KEY_RE = re.compile(r"^agk_([0-9a-f]{16})_([A-Za-z0-9_-]{32,128})$")


@dataclass(frozen=True)
class Principal:
    """Who is calling: the workspace a request acts in and the key it used."""

    workspace_id: str
    key_id: str
    rate_limit: str | None = None


@dataclass(frozen=True)
class IssuedKey:
    key: str
    record: ApiKeyRecord


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


async def get_or_create_workspace(redis: aioredis.Redis, name: str) -> Workspace:
    existing = await redis.hget(keys.workspace_by_name(), name)
    if existing:
        raw = await redis.get(keys.workspace(existing))
        if raw:
            return Workspace.model_validate_json(raw)
    workspace = Workspace(id=new_id(), name=name, created_at=now_iso())
    # HSETNX decides the race between two creators; the loser reads the winner's workspace.
    if not await redis.hsetnx(keys.workspace_by_name(), name, workspace.id):
        return await get_or_create_workspace(redis, name)
    await redis.set(keys.workspace(workspace.id), workspace.model_dump_json())
    return workspace


async def find_workspace(redis: aioredis.Redis, name: str) -> Workspace:
    workspace_id = await redis.hget(keys.workspace_by_name(), name)
    raw = await redis.get(keys.workspace(workspace_id)) if workspace_id else None
    if not raw:
        raise NotFound(f"no workspace named {name!r}")
    return Workspace.model_validate_json(raw)


async def create_key(
    redis: aioredis.Redis, workspace_id: str, *, label: str = "", rate_limit: str | None = None
) -> IssuedKey:
    key_id = secrets.token_hex(8)
    secret = secrets.token_urlsafe(32)
    record = ApiKeyRecord(
        key_id=key_id,
        workspace_id=workspace_id,
        secret_hash=_hash(secret),
        label=label,
        created_at=now_iso(),
        rate_limit=rate_limit,
    )
    # On a cluster the key's record (global) commits before the workspace's index of it (core.infra.slots).
    async with slots.transaction(redis, global_first=True) as pipe:
        pipe.set(keys.api_key(key_id), record.model_dump_json())
        pipe.zadd(keys.workspace_keys(workspace_id), {key_id: 0})
        await pipe.execute()
    return IssuedKey(key=f"{KEY_PREFIX}_{key_id}_{secret}", record=record)


async def issue_key(
    redis: aioredis.Redis, workspace_name: str, *, label: str = "", rate_limit: str | None = None
) -> IssuedKey:
    """A new key of the workspace named `workspace_name`, created with it when it is new."""
    workspace = await get_or_create_workspace(redis, workspace_name)
    return await create_key(redis, workspace.id, label=label, rate_limit=rate_limit)


def issue_key_at(redis_url: str, workspace_name: str, *, label: str = "") -> IssuedKey:
    """`issue_key` from a script outside any event loop (a benchmark that starts its own service)."""

    async def issue() -> IssuedKey:
        client = async_client(redis_url)
        try:
            return await issue_key(client, workspace_name, label=label)
        finally:
            await client.aclose()

    return asyncio.run(issue())


async def list_keys(redis: aioredis.Redis, workspace_id: str) -> list[ApiKeyRecord]:
    ids: list[str] = await redis.zrange(keys.workspace_keys(workspace_id), 0, -1)
    raws = await redis.mget([keys.api_key(i) for i in ids]) if ids else []
    records = [ApiKeyRecord.model_validate_json(r) for r in raws if r]
    return sorted(records, key=lambda r: r.created_at)


async def revoke_key(redis: aioredis.Redis, key_id: str) -> ApiKeyRecord:
    raw = await redis.get(keys.api_key(key_id))
    if not raw:
        raise NotFound(f"no API key with id {key_id!r}")
    record = ApiKeyRecord.model_validate_json(raw)
    if record.revoked_at is None:
        record.revoked_at = now_iso()
        await redis.set(keys.api_key(key_id), record.model_dump_json())
    # Replicas that cached the key drop it now (after the write, so a re-read sees the revocation).
    await redis.publish(keys.KEY_REVOCATIONS_CHANNEL, key_id)
    return record


def parse_bearer(authorization: str | None) -> tuple[str, str]:
    """`(key_id, secret)` of an `Authorization: Bearer agk_...` header, or 401."""
    if not authorization:
        raise Unauthorized("missing API key: send 'Authorization: Bearer <API_KEY>'")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("malformed Authorization header: expected 'Bearer <API_KEY>'")
    match = _KEY_RE.match(token.strip())
    if not match:
        raise Unauthorized("malformed API key")
    key_id, secret = match.groups()
    return key_id, secret


async def load_key(redis: aioredis.Redis, key_id: str) -> ApiKeyRecord:
    raw = await redis.get(keys.api_key(key_id))
    if not raw:
        raise Unauthorized("unknown API key")
    return ApiKeyRecord.model_validate_json(raw)


def verify(record: ApiKeyRecord, secret: str) -> Principal:
    """The principal of a stored key whose secret the caller proved, or 401."""
    if not hmac.compare_digest(record.secret_hash, _hash(secret)):
        raise Unauthorized("unknown API key")
    if record.revoked_at is not None:
        raise Unauthorized("this API key has been revoked")
    return Principal(workspace_id=record.workspace_id, key_id=record.key_id, rate_limit=record.rate_limit)


async def authenticate(redis: aioredis.Redis, authorization: str | None) -> Principal:
    """The principal behind an `Authorization: Bearer agk_...` header, or 401, read from Redis.

    The HTTP edge keeps verified keys briefly in `serve.key_cache` instead; this is the uncached path.
    """
    key_id, secret = parse_bearer(authorization)
    return verify(await load_key(redis, key_id), secret)
