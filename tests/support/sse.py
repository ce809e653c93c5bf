"""Reading a task's Server-Sent Events in tests, through httpx streaming."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass(frozen=True)
class Event:
    id: str
    type: str
    data: dict[str, Any]


def parse(lines: Iterator[str]) -> Iterator[Event | str]:
    """Events, and comment lines (such as `: ping`) as plain strings, in the order they arrive."""
    fields: dict[str, str] = {}
    for line in lines:
        if line == "":
            if fields:
                yield Event(fields.get("id", ""), fields.get("event", "message"), json.loads(fields["data"]))
                fields = {}
            continue
        if line.startswith(":"):
            yield line
            continue
        name, _, value = line.partition(":")
        fields[name] = value[1:] if value.startswith(" ") else value


def events(
    api: httpx.Client,
    task_id: str,
    *,
    last_event_id: str | None = None,
    stop: Callable[[Event], bool] | None = None,
    on_event: Callable[[Event], None] | None = None,
    read_timeout: float = 60.0,
) -> list[Event]:
    """The task's events until the server ends the response (or `stop` says so), resuming after
    `last_event_id` when given. `on_event` runs for each event as it arrives."""
    headers = {"Last-Event-ID": last_event_id} if last_event_id else {}
    received: list[Event] = []
    timeout = httpx.Timeout(10.0, read=read_timeout)
    with api.stream("GET", f"/api/v1/tasks/{task_id}/events", headers=headers, timeout=timeout) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        for event in parse(response.iter_lines()):
            if isinstance(event, str):
                continue
            received.append(event)
            if on_event is not None:
                on_event(event)
            if stop is not None and stop(event):
                break
    return received
