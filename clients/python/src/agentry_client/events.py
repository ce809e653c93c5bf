"""Following a task's live events (`GET /api/v1/tasks/{task_id}/events`), without the I/O.

The stream carries `id: <redis stream id>`, `event: status|feed|child|end` and one line of JSON
`data`; `end` is the last event. When the connection drops, the next one sends `Last-Event-ID`
so the service resumes after the last event seen, and an event that arrives twice anyway (a
resume point older than what was delivered) is skipped, so the caller sees each event once.
`end` carries the id of the last entry before it (a resume from there yields `end` again).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from .errors import ConnectionFailed, api_error
from .models import Event
from .protocol import Context
from .retry import parse_retry_after
from .sse import SSEDecoder

END = "end"


def stream_id_after(candidate: str, last: str) -> bool:
    """Whether event id `candidate` comes after `last`. Redis stream ids (`<ms>-<seq>`) are ordered;
    ids of another shape can only be told apart, so then any different id counts as new."""
    a, b = _stream_id(candidate), _stream_id(last)
    if a is None or b is None:
        return candidate != last
    return a > b


def _stream_id(value: str) -> tuple[int, int] | None:
    ms, sep, seq = value.partition("-")
    if not (ms.isdigit() and (not sep or seq.isdigit())):
        return None
    return int(ms), int(seq or 0)


def _decode(data: str) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return data


class EventStream:
    """The state of one `events(...)` iteration across reconnections."""

    def __init__(self, ctx: Context, task_id: str, last_event_id: str | None) -> None:
        self.path = f"/api/v1/tasks/{quote(task_id, safe='')}/events"
        self.last_event_id = last_event_id
        self.done = False
        self._ctx = ctx
        self._failures = 0
        self._decoder = SSEDecoder()
        self._retry_ms: int | None = None

    def headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
        if self.last_event_id:
            headers["Last-Event-ID"] = self.last_event_id
        return headers

    def connected(self) -> None:
        """A new connection answered 200: its body is a new stream."""
        self._decoder = SSEDecoder()

    def receive(self, text: str) -> list[Event]:
        """The new events in a chunk of the body, duplicates skipped, nothing after `end`."""
        events: list[Event] = []
        for sse in self._decoder.feed(text):
            if self.done:
                break
            if sse.retry is not None:
                self._retry_ms = sse.retry
            # `end` carries the id of the task's last entry, so it is the one event whose id may
            # equal one already delivered; it comes once, as the iteration stops after it.
            duplicate = sse.id and self.last_event_id and not stream_id_after(sse.id, self.last_event_id)
            if duplicate and sse.event != END:
                continue
            if sse.id:
                self.last_event_id = sse.id
            self._failures = 0
            events.append(Event(id=sse.id, type=sse.event, data=_decode(sse.data)))
            if sse.event == END:
                self.done = True
        return events

    def refused(self, status: int, headers: Mapping[str, str], content: bytes) -> float:
        """A connection answered non-200: seconds to wait before trying again, or the `ApiError`."""
        self._failures += 1
        retry_after = parse_retry_after(headers.get("retry-after"))
        delay = self._ctx.retry.after_status(
            status, self._failures, idempotent=True, retry_after=retry_after, rng=self._ctx.rng
        )
        if delay is None:
            raise api_error(status, dict(headers), content, retry_after=retry_after)
        return delay

    def dropped(self, reason: str) -> float:
        """The connection ended before `end`: seconds to wait before reconnecting.

        The attempts are counted from the last event received, so a stream that keeps delivering
        reconnects for as long as it lives, and one that breaks at once every time gives up.
        """
        self._failures += 1
        delay = self._ctx.retry.after_transport_error(
            self._failures, sent=False, idempotent=True, rng=self._ctx.rng
        )
        if delay is None:
            raise ConnectionFailed(f"events of {self.path}: {reason}", maybe_applied=False)
        return self._retry_ms / 1000 if self._retry_ms is not None else delay
