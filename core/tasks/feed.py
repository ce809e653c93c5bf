"""Reading a task's feed (its stream of items) and its recorded steps."""

from __future__ import annotations

import json
from typing import Any

import redis.asyncio as aioredis

from core.infra import keys


async def read_feed(redis: aioredis.Redis, workspace_id: str, task_id: str) -> list[dict[str, Any]]:
    """The task's own feed items in order; its children's mirrored entries (no `item` field) are skipped."""
    return feed_items(await redis.xrange(keys.task_feed(workspace_id, task_id)))


def feed_items(entries: list[tuple[str, dict[str, str]]]) -> list[dict[str, Any]]:
    return [json.loads(fields["item"]) for _, fields in entries if "item" in fields]


async def read_steps(redis: aioredis.Redis, workspace_id: str, task_id: str) -> dict[str, Any]:
    return step_records(await redis.hgetall(keys.task_steps(workspace_id, task_id)))


def step_records(raw: dict[str, str]) -> dict[str, Any]:
    return {k: json.loads(v) for k, v in raw.items()}
