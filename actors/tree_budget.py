"""A spend budget for a whole task tree: `settings.tree_spend_cap_usd` on the agent that starts it.

Every model call a task of the tree pays for is also added to the tree's root (`tree_*` fields of
the root's hash, shown as `usage.tree`), so the budget covers the root and every descendant however
deep. A task whose tree is over budget pauses before its next model call, as over its own spend cap
(reason `tree_spend_cap_exceeded`); per-task caps keep working beside it.
"""

from __future__ import annotations

import redis.asyncio as aioredis

from actors.policy import AgentPolicy
from core import agents, keys, tasks
from core.settings import Settings
from core.tasks import Task

#: Parents followed at most to find a tree's root (delegation depth is bounded far below this).
MAX_TREE_DEPTH = 64

TREE_FIELDS = ("input_tokens", "output_tokens", "cost_usd")


async def root_of(redis: aioredis.Redis, task: Task) -> Task:
    """The task that started `task`'s tree (`task` itself when it has no parent)."""
    current = task
    for _ in range(MAX_TREE_DEPTH):
        parent_id = current.spec.parent_task_id
        if not parent_id:
            return current
        parent = await tasks.find_task(redis, current.workspace_id, parent_id)
        if parent is None:
            return current
        current = parent
    return current


async def charge(
    redis: aioredis.Redis, task: Task, input_tokens: int, output_tokens: int, cost_usd: float
) -> None:
    """Add one model call of `task` to its tree's totals, kept on the root."""
    root = await root_of(redis, task)
    key = keys.task(root.workspace_id, root.id)
    async with redis.pipeline(transaction=True) as pipe:
        pipe.hincrbyfloat(key, "tree_input_tokens", input_tokens)
        pipe.hincrbyfloat(key, "tree_output_tokens", output_tokens)
        pipe.hincrbyfloat(key, "tree_cost_usd", cost_usd)
        await pipe.execute()


async def over_budget(redis: aioredis.Redis, settings: Settings, task: Task) -> bool:
    """Whether the tree `task` belongs to has spent more than its root agent's tree budget."""
    root = await root_of(redis, task)
    try:
        group = await agents.load_group(redis, root.agent_workspace_id, root.spec.agent_group_id)
        latest = await agents.latest(redis, root.agent_workspace_id, group)
    except Exception:
        return False
    cap = AgentPolicy.of(latest.config, None, settings).tree_spend_cap_usd
    if cap is None:
        return False
    spent = await redis.hget(keys.task(root.workspace_id, root.id), "tree_cost_usd")
    return float(spent or 0.0) > cap
