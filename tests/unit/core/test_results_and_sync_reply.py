from __future__ import annotations

import pytest

from core.infra.errors import BadRequest
from core.tasks import Task
from core.tasks.queries import TaskFilter
from core.tasks.results import last_tool_output, structured_envelope, summary_envelope
from core.tasks.sync_reply import build_reply, wait_outcome
from tests.support.task_records import task_spec

pytestmark = pytest.mark.unit


def make(status: str, **state: object) -> Task:
    spec = task_spec()
    return Task(spec=spec, status=status, updated_at="2026-01-01T00:00:01.000Z", **state)  # type: ignore[arg-type]


def test_summary_envelope_sets_message_or_error() -> None:
    assert summary_envelope(make("running"))["message"]
    assert "error" in summary_envelope(make("failed", error="x"))
    done = summary_envelope(make("completed", summary="ok"))
    assert done == {"task_id": "t", "status": "completed", "summary": "ok"}


def test_structured_envelope_citations_and_internal_keys() -> None:
    cited = make(
        "completed",
        structured={"name": "Ada", "__debug": 1, "n": 2},
        has_structured=True,
        citations={
            "leaves": {"name": [{"citation_id": 1, "file": "a.pdf", "page": 1}]},
            "documents": [{"file": "a.pdf"}],
        },
    )
    off = structured_envelope(cited, {}, include_citations=False)
    assert off["structured_response"] == {"name": "Ada", "__debug": 1, "n": 2} and "documents" not in off
    on = structured_envelope(cited, {}, include_citations=True)
    assert on["structured_response"] == {
        "name": {"value": "Ada", "bounding_boxes": [{"citation_id": 1, "file": "a.pdf", "page": 1}]},
        "n": 2,
    }
    assert on["documents"] == [{"file": "a.pdf"}]
    missing = structured_envelope(
        make("completed"), {"output_schema": {"type": "object"}}, include_citations=False
    )
    assert "without writing" in missing["error"]


def test_sync_reply_statuses_and_cap() -> None:
    feed = [{"type": "tool_result", "tool_name": "x", "status": "ok", "output": {"v": 1}}]
    common = {"selector": "summary", "budget_seconds": 5, "include_citations": False, "cap_bytes": 100}
    assert build_reply(make("completed", summary="hi"), feed, outcome="terminal", **common)["result"] == "hi"
    assert build_reply(make("completed"), feed, outcome="terminal", **common)["result_status"] == "not_found"
    assert build_reply(make("stopped"), feed, outcome="terminal", **common)["result_status"] == "cancelled"
    assert (
        build_reply(make("running"), feed, outcome="budget_expired", **common)["result_status"]
        == "processing"
    )
    big = build_reply(make("completed", summary="x" * 200), feed, outcome="terminal", **common)
    assert big["result_status"] == "too_large" and big["result_bytes"] == 202 and "result" not in big
    tool = build_reply(make("completed"), feed, outcome="terminal", **(common | {"selector": "tool:x"}))
    assert tool["result"] == {"v": 1}
    assert last_tool_output(feed, "y") == (False, None)


def test_task_filter_parsing() -> None:
    flt = TaskFilter.parse(
        agent_group_id=None,
        agent_id=None,
        status="running, completed",
        created_after="2026-01-01",
        created_before=None,
        title="Intake",
        bucket=None,
    )
    assert (
        flt.statuses == frozenset({"running", "completed"})
        and flt.bucket == "production"
        and flt.title == "intake"
    )
    for kwargs in ({"status": "done"}, {"bucket": "prod"}, {"created_after": "nope"}):
        base = dict(
            agent_group_id=None,
            agent_id=None,
            status=None,
            created_after=None,
            created_before=None,
            title=None,
            bucket=None,
        )
        with pytest.raises(BadRequest):
            TaskFilter.parse(**(base | kwargs))
    assert not TaskFilter(bucket="production").matches(_test_task())
    assert TaskFilter(bucket="test").matches(_test_task())


def _test_task() -> Task:
    task = make("completed")
    task.spec.source = "test"
    return task


@pytest.mark.parametrize(
    ("status", "pause", "outcome"),
    [
        ("completed", None, "terminal"),
        ("running", None, None),
        ("waiting_for_input", {"kind": "ask_user", "question": "?"}, "result_unavailable"),
        ("waiting_for_input", {"kind": "failure_pause"}, "result_unavailable"),
        ("awaiting_review", {"kind": "review"}, "result_unavailable"),
        # docs/contract.md section 4: a parent waiting on its children needs no action; the hold goes on.
        ("waiting_for_input", {"kind": "delegation", "group_id": "g"}, None),
        # The children's results were recorded (the pause dropped) and the parent is about to run.
        ("waiting_for_input", None, None),
    ],
)
def test_what_a_held_request_answers(status: str, pause: dict | None, outcome: str | None) -> None:
    assert wait_outcome(make(status, pause=pause), drained=False, expired=False) == outcome


def test_a_delegating_parent_still_answers_draining_and_budget_expired() -> None:
    parent = make("waiting_for_input", pause={"kind": "delegation", "group_id": "g"})
    assert wait_outcome(parent, drained=True, expired=False) == "draining"
    assert wait_outcome(parent, drained=False, expired=True) == "budget_expired"
    assert wait_outcome(make("completed"), drained=True, expired=True) == "terminal"
