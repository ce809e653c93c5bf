"""The task as the API shows it: a list item (task lists, children) and the full record
(docs/contract.md section 3)."""

from __future__ import annotations

from typing import Any

from core.stores.mcp_servers import mcp_calls
from core.tasks import Task, all_priced, tree_usage, usage_by_purpose


def usage(task: Task) -> dict[str, Any]:
    return {
        "input_tokens": task.input_tokens,
        "output_tokens": task.output_tokens,
        # A model with no known price adds nothing to `cost_usd`: `cost_known` says so.
        "cost_usd": round(task.cost_usd, 6),
        "cost_known": all_priced(task.raw),
        "steps": task.decision_steps,
        "by_purpose": usage_by_purpose(task.raw),
        **({"tree": tree_usage(task.raw)} if "tree_cost_usd" in task.raw else {}),
        **({"mcp_calls": calls} if (calls := mcp_calls(task.raw)) else {}),
    }


def list_item(task: Task) -> dict[str, Any]:
    s = task.spec
    return {
        "task_id": s.task_id,
        "agent_id": s.agent_id,
        "status": task.status,
        "title": s.title,
        "agent_name": s.agent_name,
        "created_at": s.created_at,
        "updated_at": task.updated_at,
        "source": s.source,
        "parent_task_id": s.parent_task_id,
        "parent_step_id": s.parent_step_id,
        "spawn_depth": s.spawn_depth,
    }


def record(task: Task) -> dict[str, Any]:
    """The full record of `GET /api/v1/tasks/{task_id}` (docs/contract.md section 3)."""
    s = task.spec
    return list_item(task) | {
        "agent_group_id": s.agent_group_id,
        "version_number": s.version_number,
        "query": s.query,
        "files": s.files,
        "item_key": s.item_key,
        "pause": task.pause,
        "usage": usage(task),
        "error": task.error,
    }
