"""The task as the API shows it, and as webhook events carry it (the task list's shape)."""

from __future__ import annotations

import json

from actors.webhook_dispatcher import task_data
from core import tasks
from core.tasks import Task, new_spec
from serve.task_views import list_item, record


def _task() -> Task:
    spec = new_spec(
        {
            "task_id": "t1",
            "workspace_id": "w1",
            "agent_id": "a1",
            "agent_group_id": "g1",
            "version_number": 3,
            "agent_name": "intake",
            "title": "packet",
            "query": "read it",
            "parent_task_id": "p1",
            "parent_step_id": "p1:2",
            "spawn_depth": 1,
            "item_key": "k",
        }
    )
    return Task(
        spec=spec,
        status="running",
        updated_at="2026-11-25T10:00:00Z",
        pause={"kind": "ask_user"},
        input_tokens=10,
        output_tokens=5,
        cost_usd=0.1234567,
        decision_steps=2,
        raw={"usage:steps:calls": "2", "tree_cost_usd": "0.5"},
    )


def test_the_record_keeps_its_fields_in_order() -> None:
    task = _task()
    shown = record(task)
    assert list(shown) == [
        "task_id",
        "agent_id",
        "status",
        "title",
        "agent_name",
        "created_at",
        "updated_at",
        "source",
        "parent_task_id",
        "parent_step_id",
        "spawn_depth",
        "agent_group_id",
        "version_number",
        "query",
        "files",
        "item_key",
        "pause",
        "usage",
        "error",
    ]
    assert shown["usage"]["cost_usd"] == 0.123457 and shown["usage"]["cost_known"] is True
    assert shown["usage"]["steps"] == 2
    assert "tree" in shown["usage"]
    assert list(list_item(task)) == list(shown)[:11]


def test_a_webhook_event_carries_the_list_item_at_its_transition() -> None:
    task = _task()
    fields = {"type": "task.waiting_for_input", "at": "2026-11-25T10:01:00Z", "pause": json.dumps({"q": 1})}
    data = task_data(task, fields)
    expected = list_item(task) | {
        "status": "waiting_for_input",
        "updated_at": "2026-11-25T10:01:00Z",
        "error": None,
        "pause": {"q": 1},
    }
    assert json.dumps(data) == json.dumps(expected)


def test_usage_says_the_cost_is_unknown_after_a_call_of_an_unpriced_model() -> None:
    task = _task()
    added = tasks.usage_increments("steps", 3, 1, 0.0, cost_known=False)
    task.raw |= {name: str(value) for name, value in added.items()} | {"tree_unpriced_calls": "1"}
    shown = record(task)["usage"]
    # The priced calls' cost stays a number; `cost_known` says it is not the whole cost.
    assert shown["cost_usd"] == 0.123457 and shown["cost_known"] is False
    assert shown["by_purpose"]["steps"]["unpriced_calls"] == 1
    assert shown["tree"]["cost_known"] is False
