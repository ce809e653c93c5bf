"""A task's live events, read from its stream (`keys.task_feed`) and written as Server-Sent Events.

Every entry of the stream is one event whose SSE `id` is the entry's stream id, so a client that
resumes with `Last-Event-ID` gets exactly the entries after it, from any replica:

- `status`: a `status_changed` feed item, as `{task_id, from, to, created_at, seq}`;
- `feed`: any other feed item, exactly as `GET /tasks/{id}/result` returns it;
- `child`: an entry a delegated child mirrored into its parent's stream, as
  `{task_id: <child id>, event: "status" | "feed", data: <the same shapes>}`;
- `end`: `{task_id, status}` once the task is terminal, after all its entries, with the id of the
  last entry (a resume from there yields `end` again).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from core.infra.errors import BadRequest

_STREAM_ID = re.compile(r"^(\d{1,20})-(\d{1,20})$")
#: Redis stream ids are two unsigned 64-bit numbers.
_MAX_PART = 2**64 - 1


@dataclass(frozen=True)
class TaskEvent:
    id: str
    type: str
    data: dict[str, Any]

    def encode(self) -> str:
        """The event as SSE text; the JSON is on one line (json.dumps escapes newlines in strings)."""
        payload = json.dumps(self.data, separators=(",", ":"), ensure_ascii=False, default=str)
        return f"id: {self.id}\nevent: {self.type}\ndata: {payload}\n\n"


#: An SSE comment line: keeps proxies and clients from closing an idle stream.
PING = ": ping\n\n"


def parse_event_id(value: str, *, what: str = "Last-Event-ID") -> tuple[int, int]:
    """A stream id `<ms>-<seq>` as numbers; 400 for anything else."""
    match = _STREAM_ID.match(value.strip())
    if match is None:
        raise BadRequest(f"{what} must be an event id such as 1763734000000-0, got {value!r}")
    ms, seq = int(match.group(1)), int(match.group(2))
    if ms > _MAX_PART or seq >= _MAX_PART:
        raise BadRequest(f"{what} is out of range: {value!r}")
    return ms, seq


def after(event_id: str | None) -> str:
    """The XRANGE start that excludes `event_id` (the first id after it), or `-` from the start.

    Computed rather than written `(id`, so it holds on every Redis version the store may run.
    """
    if not event_id:
        return "-"
    ms, seq = parse_event_id(event_id)
    return f"{ms}-{seq + 1}"


def _item_event(task_id: str, item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    if item.get("type") == "status_changed":
        data = {
            "task_id": task_id,
            "from": item.get("from"),
            "to": item.get("to"),
            "created_at": item.get("created_at"),
            "seq": item.get("seq"),
        }
        return "status", data
    return "feed", item


def entry_event(task_id: str, entry_id: str, fields: dict[str, str]) -> TaskEvent | None:
    """The event of one stream entry (None for an entry of a kind this version does not know)."""
    if "item" in fields:
        kind, data = _item_event(task_id, json.loads(fields["item"]))
        return TaskEvent(entry_id, kind, data)
    if "child_item" in fields and "child" in fields:
        child_id = fields["child"]
        kind, data = _item_event(child_id, json.loads(fields["child_item"]))
        return TaskEvent(entry_id, "child", {"task_id": child_id, "event": kind, "data": data})
    return None


def end_event(task_id: str, status: str, last_id: str) -> TaskEvent:
    return TaskEvent(last_id, "end", {"task_id": task_id, "status": status})
