"""A task as loaded from the store, built in memory for unit tests of what reads one."""

from __future__ import annotations

from core.tasks import TaskSpec


def task_spec(task_id: str = "t", created_at: str = "2026-01-01T00:00:00.000Z") -> TaskSpec:
    return TaskSpec(
        task_id=task_id,
        workspace_id="w",
        agent_id="a",
        agent_group_id="g",
        version_number=1,
        agent_name="A",
        created_at=created_at,
        index_member="m",
    )
