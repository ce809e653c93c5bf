"""The events of a task's stream: resume points, event shapes, SSE text."""

from __future__ import annotations

import json

import pytest

from core.infra.errors import BadRequest
from core.tasks.events import PING, after, end_event, entry_event, parse_event_id

pytestmark = pytest.mark.unit


def test_resume_points_are_stream_ids_and_start_just_after_them() -> None:
    assert after(None) == "-" and after("") == "-"
    assert after("1763734000000-0") == "1763734000000-1"
    assert parse_event_id(" 5-7 ") == (5, 7)
    for bad in ("yesterday", "12", "12-x", "-1-0", "1-2-3", "1.5-0", f"{2**64}-0", f"1-{2**64 - 1}"):
        with pytest.raises(BadRequest):
            after(bad)


def test_status_feed_and_child_entries_become_their_events() -> None:
    status = {"seq": 3, "type": "status_changed", "from": "pending", "to": "running", "created_at": "t"}
    event = entry_event("T", "9-0", {"seq": "3", "item": json.dumps(status)})
    assert event is not None and (event.id, event.type) == ("9-0", "status")
    assert event.data == {"task_id": "T", "from": "pending", "to": "running", "created_at": "t", "seq": 3}

    message = {"seq": 4, "type": "assistant_message", "text": "line one\nline two", "created_at": "t"}
    event = entry_event("T", "9-1", {"seq": "4", "item": json.dumps(message)})
    assert event is not None and event.type == "feed" and event.data == message
    text = event.encode()
    assert text.endswith("\n\n") and text.count("\n") == 4, "the JSON stays on one data line"
    assert (
        text.startswith("id: 9-1\nevent: feed\ndata: ") and json.loads(text.split("data: ", 1)[1]) == message
    )

    child = entry_event("T", "9-2", {"child": "C", "child_item": json.dumps(status)})
    assert child is not None and child.type == "child"
    child_status = {"task_id": "C", "from": "pending", "to": "running", "created_at": "t", "seq": 3}
    assert child.data == {"task_id": "C", "event": "status", "data": child_status}
    nested_feed = entry_event("T", "9-3", {"child": "C", "child_item": json.dumps(message)})
    assert nested_feed is not None and nested_feed.data == {"task_id": "C", "event": "feed", "data": message}
    assert entry_event("T", "9-4", {"something": "new"}) is None


def test_end_and_ping() -> None:
    assert end_event("T", "completed", "9-4").encode() == (
        'id: 9-4\nevent: end\ndata: {"task_id":"T","status":"completed"}\n\n'
    )
    assert PING == ": ping\n\n"
