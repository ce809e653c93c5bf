"""Charging a model call to the task that caused it: one recorded piece, and its tree's totals.

Every model call a task causes goes through here (its steps, data fields, document tools,
classification), so `usage`, `usage.by_purpose` and `usage.tree` count it once each.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from actors import tree_budget
from actors.models.base import Usage
from core import tasks
from core.tasks import Task


def model_call_increments(
    purpose: str, usage: Usage, increments: dict[str, float] | None = None
) -> dict[str, float]:
    """What recording one model call adds to its task's hash: `increments`, its usage (under
    `purpose`) and the task's own tree totals (`usage.tree`, actors.tree_budget)."""
    added = (increments or {}) | tasks.usage_increments(
        purpose, usage.input_tokens, usage.output_tokens, usage.cost_usd, cost_known=usage.cost_known
    )
    return added | tree_budget.tree_increments(
        usage.input_tokens, usage.output_tokens, usage.cost_usd, cost_known=usage.cost_known
    )


async def record_model_call(
    redis: aioredis.Redis,
    task: Task,
    marker: str,
    value: Any,
    purpose: str,
    usage: Usage,
    *,
    fields: dict[str, str] | None = None,
    items: list[dict[str, Any]] | None = None,
    increments: dict[str, float] | None = None,
) -> int:
    """Record `value` under `marker` with the call's usage added to the task's (under `purpose`) and
    to the tree totals of the task and its ancestors, all in one script, so a sibling reserving its
    budget never sees the cost on this task but not yet on its parent. Returns `tasks.record`'s code."""
    rolled_up = tree_budget.tree_increments(
        usage.input_tokens, usage.output_tokens, usage.cost_usd, cost_known=usage.cost_known
    )
    return await tasks.record(
        redis,
        task,
        marker,
        value,
        fields=fields,
        items=items,
        increments=model_call_increments(purpose, usage, increments),
        rollup=(await tree_budget.ancestor_keys(redis, task), rolled_up),
    )
