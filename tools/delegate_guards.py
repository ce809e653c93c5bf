"""The guards of `delegate_tasks`, shared by its two modes (`tools.delegate` for task entries,
`tools.delegate_source` for source mode): the target, the count, the depth, the timeout and the
switches (docs/spec.md, delegate_tasks rules 2, 3, 4 and 6, and source mode rule 2).
"""

from __future__ import annotations

from typing import Any

from core import tasks
from core.tasks import Task, delegation
from core.tasks.delegation import MAX_DEPTH, Target, children_limit
from tools.context import ToolContext
from tools.errors import ToolError

NAME = "delegate_tasks"
#: docs/contract.md section 6: a child's title defaults to the first 80 characters of its prompt.
TITLE_CHARS = 80


def source_mode_enabled(ctx: ToolContext) -> bool:
    """Source mode needs the agent's `settings.delegate_source_mode` and the fleet-wide kill switch."""
    agent_settings = ctx.agent_config.get("settings") or {}
    return bool(agent_settings.get("delegate_source_mode")) and bool(ctx.settings.batch_fanout_enabled)


def allowed_group_ids(ctx: ToolContext) -> list[str]:
    """The binding allowlist of this tool instance; empty means any workspace agent."""
    tool_settings = (ctx.agent_config.get("tool_settings") or {}).get(NAME) or {}
    raw = str(tool_settings.get("allowed_agent_group_ids") or "")
    return [g.strip() for g in raw.split(",") if g.strip()]


async def check_target(ctx: ToolContext, parent: Task, group_id: str) -> Target:
    """Every guard of docs/spec.md rules 2, 3, 4 and 6, then every check a run makes
    (`ctx.run_check`, actors.run_checks: the model connection and MCP servers the agent names exist
    in this workspace, where the child runs, a public agent's included; its settings have their
    types; a spend cap is on a priced model); the error tells the model what it may do instead."""
    if group_id == parent.spec.agent_group_id:
        raise ToolError("an agent cannot delegate to itself")
    allowed = allowed_group_ids(ctx)
    if allowed and group_id not in allowed:
        names = []
        for allowed_id in allowed:
            target = await delegation.resolve_target(ctx.redis, ctx.workspace_id, allowed_id)
            names.append(f"{target.group.name} ({allowed_id})" if target else allowed_id)
        raise ToolError(
            f"agent {group_id} is not in this tool's allowed agents: {', '.join(names)}. "
            "Delegate to one of those, or use the unrestricted delegate_tasks tool of an agent without an allowlist."
        )
    target = await delegation.resolve_target(ctx.redis, ctx.workspace_id, group_id)
    if target is None:
        raise ToolError(f"agent {group_id} is not an agent of this workspace or a published public agent")
    if target.version.config.get("delegation_enabled") is False:
        raise ToolError(f"agent {target.group.name} does not accept delegated tasks")
    if ctx.run_check is None:
        raise ToolError("delegation runs only inside a task's run")
    problem = await ctx.run_check(
        ctx.workspace_id, target.version.config, agent_name=target.group.name, public=target.public
    )
    if problem is not None:
        raise ToolError(problem)
    return target


def check_count(count: int, ctx: ToolContext) -> None:
    limit = children_limit(ctx.settings.max_children_per_call)
    if count > limit:
        raise ToolError(f"{count} children requested; one call may start at most {limit}")


def timeout_seconds(arguments: dict[str, Any]) -> int:
    minutes = arguments.get("timeout_minutes") or delegation.DEFAULT_TIMEOUT_MINUTES
    return int(min(minutes, delegation.MAX_TIMEOUT_MINUTES)) * 60


async def load_parent(ctx: ToolContext) -> Task:
    parent = await tasks.find_task(ctx.redis, ctx.workspace_id, ctx.task_id)
    if parent is None:
        raise ToolError("the calling task no longer exists")
    if parent.spec.spawn_depth + 1 > MAX_DEPTH:
        raise ToolError(
            f"delegation is limited to a depth of {MAX_DEPTH}; this task is already at depth {parent.spec.spawn_depth}"
        )
    return parent


def step_of(ctx: ToolContext) -> int:
    return int(ctx.step_id.rsplit(":", 1)[1])
