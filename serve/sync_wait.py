"""Holding an `async=false` run open until it ends, pauses, the budget runs out or the server drains."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import redis.asyncio as aioredis

from core import tasks
from core.infra.settings import Settings
from core.tasks import Task
from core.tasks.document_links import with_document_links
from core.tasks.sync_reply import build_reply, wait_outcome
from serve.waiters import Waiters


async def hold(
    redis: aioredis.Redis,
    waiters: Waiters,
    settings: Settings,
    task: Task,
    *,
    selector: str,
    include_citations: bool,
) -> tuple[int, dict[str, Any]]:
    """(HTTP status, reply): 200 at a terminal state, 202 with the outcome otherwise."""
    budget = settings.sync_budget_seconds
    deadline = time.monotonic() + budget
    async with waiters.watch(task.id) as watch:
        while True:
            watch.changed.clear()
            current = await tasks.load_task(redis, task.workspace_id, task.id, include_deleted=True)
            outcome = wait_outcome(current, drained=watch.drained, expired=time.monotonic() >= deadline)
            if outcome is not None:
                feed = await tasks.read_feed(redis, current.workspace_id, current.id)
                if include_citations and selector == "structured":
                    current = await with_document_links(redis, settings, current)
                reply = build_reply(
                    current,
                    feed,
                    outcome=outcome,
                    selector=selector,
                    budget_seconds=budget,
                    include_citations=include_citations,
                    cap_bytes=settings.sync_result_cap_bytes,
                )
                return (200 if outcome == "terminal" else 202), reply
            try:
                await asyncio.wait_for(watch.changed.wait(), timeout=max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                continue
