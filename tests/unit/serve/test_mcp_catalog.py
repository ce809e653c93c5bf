"""What /mcp tells a client of agents and tasks (serve.mcp_catalog), without a service."""

from __future__ import annotations

import json
import uuid

from core.infra.models import Agent
from core.tasks import Task, parse_task
from serve.mcp_catalog import agent_tool_name, task_result

GROUP = "5f9cac92-0000-4000-8000-000000000000"


def agent(name: str) -> Agent:
    return Agent(
        id=str(uuid.uuid4()),
        agent_group_id=GROUP,
        version_number=1,
        status="published",
        name=name,
        config={},
        is_active=True,
        is_public=False,
        created_at="2026-01-01T00:00:00.000Z",
        updated_at="2026-01-01T00:00:00.000Z",
    )


def task(status: str, **fields: str) -> Task:
    spec = {
        "task_id": str(uuid.uuid4()),
        "workspace_id": "ws",
        "agent_id": str(uuid.uuid4()),
        "agent_group_id": GROUP,
        "version_number": 1,
        "agent_name": "A",
        "created_at": "2026-01-01T00:00:00.000Z",
        "index_member": "x",
    }
    return parse_task({"spec": json.dumps(spec), "status": status} | fields)


def test_an_agent_tool_name_is_a_slug_of_its_name_and_group() -> None:
    assert agent_tool_name(agent("Echo Bot!")) == "agent_echo_bot_5f9cac92"
    assert agent_tool_name(agent("Ünïcode ✓")) == "agent_n_code_5f9cac92"
    assert agent_tool_name(agent("!!!")) == "agent_agent_5f9cac92"
    assert len(agent_tool_name(agent("x" * 300))) <= 64


def test_a_task_is_answered_by_where_it_stands() -> None:
    done = task_result(task("completed", summary="hi", structured='{"a": 1}'))
    assert not done.isError and done.structuredContent is not None
    assert done.structuredContent["answer"] == "hi" and done.structuredContent["structured"] == {"a": 1}
    failed = task_result(task("failed", error="boom"))
    assert failed.isError and failed.structuredContent == {
        "task_id": failed.structuredContent["task_id"],  # type: ignore[index]
        "status": "failed",
        "error": "boom",
    }
    paused = task_result(task("awaiting_review", pause='{"kind": "review"}'))
    assert not paused.isError and paused.structuredContent["pause"] == {"kind": "review"}  # type: ignore[index]
    running = task_result(task("running"))
    assert "get_task" in running.content[0].text  # type: ignore[union-attr]
