"""Decoding a `text/event-stream` body (the WHATWG server-sent events format), chunk by chunk.

Pure: text in, events out. Chunks may split a line, or a CRLF, anywhere; lines end with CRLF, LF
or CR; a line starting with `:` is a comment (the server's `: ping` keep-alive); an event is
dispatched at a blank line, and one with no `data` line is dropped, as the format says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class ServerSentEvent:
    #: `message` when the event names no type.
    event: str
    #: The `data` lines joined with newlines.
    data: str
    #: The last event id seen on the stream when this event was dispatched (None before any).
    id: str | None
    #: The reconnection delay the server asked for, in milliseconds (None when it never did).
    retry: int | None


class SSEDecoder:
    """Feed it text as it arrives; it returns the events each chunk completes."""

    def __init__(self) -> None:
        self._partial = ""
        self._skip_lf = False
        self._started = False
        self._event = ""
        self._data: list[str] = []
        self._last_id: str | None = None
        self._retry: int | None = None

    @property
    def last_event_id(self) -> str | None:
        return self._last_id

    @property
    def retry(self) -> int | None:
        return self._retry

    def feed(self, text: str) -> list[ServerSentEvent]:
        if not text:
            return []
        if not self._started:
            self._started = True
            text = text.removeprefix("\ufeff")
        if self._skip_lf and text.startswith("\n"):
            # The CR that ended the previous chunk and this LF are one CRLF line end.
            text = text[1:]
        self._skip_lf = False
        events: list[ServerSentEvent] = []
        start = 0
        for match in _LINE_END.finditer(text):
            line = self._partial + text[start : match.start()]
            self._partial = ""
            if match.group() == "\r" and match.end() == len(text):
                self._skip_lf = True
            self._line(line, events)
            start = match.end()
        self._partial += text[start:]
        return events

    def _line(self, line: str, events: list[ServerSentEvent]) -> None:
        if line == "":
            self._dispatch(events)
            return
        if line.startswith(":"):
            return
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\x00" not in value:
            self._last_id = value
        elif name == "retry" and value.isdigit():
            self._retry = int(value)

    def _dispatch(self, events: list[ServerSentEvent]) -> None:
        if self._data:
            events.append(
                ServerSentEvent(
                    event=self._event or "message",
                    data="\n".join(self._data),
                    id=self._last_id,
                    retry=self._retry,
                )
            )
        self._event = ""
        self._data = []


def parse_events(text: str) -> list[ServerSentEvent]:
    """Every complete event of a whole stream body (an unterminated last event is dropped)."""
    return SSEDecoder().feed(text)
