"""A new task stored in a real Redis by the code that creates one, for the store's tests."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from core import tasks
from core.infra.ids import new_id


async def new_task(store: aioredis.Redis, ws: str, parent: str | None = None) -> tasks.Task:
    """A `pending` task of a new agent in workspace `ws`; a delegated child of `parent` if given."""
    fields: dict[str, Any] = {
        "task_id": new_id(),
        "workspace_id": ws,
        "agent_id": new_id(),
        "agent_group_id": new_id(),
        "version_number": 1,
        "agent_name": "A",
        "query": "hi",
        "parent_task_id": parent,
    }
    return await tasks.create_task(store, fields)
