"""Tool failures the model sees.

A `ToolError` raised by a tool becomes a `tool_result` with status `error` and the error's message,
so the model can read it and act. Anything else a tool raises is a bug and is handled as a failed
step by the runtime.
"""

from __future__ import annotations

from typing import Any


class ToolError(Exception):
    """A tool call that failed in a way the model should be told about.

    `retryable` says whether running the same call again may succeed (a timeout, a busy remote),
    so the runtime may retry it within the agent's `settings.max_retries`. `payload` carries
    structured details that go with the message into the tool result (for example the
    practice system's `response_code` and `response_msg`).
    """

    def __init__(
        self, message: str, *, retryable: bool = False, payload: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.payload: dict[str, Any] = dict(payload or {})


class ToolArgumentError(ToolError):
    """The model's arguments do not fit the tool's parameters; the message says how to fix them."""


class UnknownToolError(ToolError):
    """The model called a tool that is not registered."""
