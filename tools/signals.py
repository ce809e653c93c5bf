"""Control flow from a tool to the runtime.

Signals derive from BaseException, not Exception, so an `except Exception` in tool code (or in a
library it calls) cannot swallow them: a pause always reaches the runtime, which records it and
moves the task's status.

A review pause is not a signal: the runtime checks the agent's `review_tools` before it runs a
call, so the tool itself never runs until the call is approved.
"""

from __future__ import annotations


class ToolSignal(BaseException):
    """A tool asks the runtime to change the course of the task."""


class PauseForInput(ToolSignal):
    """Pause the task in `waiting_for_input` until the user answers `question`."""

    def __init__(self, question: str) -> None:
        super().__init__(question)
        self.question = question


class PauseForChildren(ToolSignal):
    """Pause the task in `waiting_for_input` until every child of the await group is terminal."""

    def __init__(self, group_id: str) -> None:
        super().__init__(group_id)
        self.group_id = group_id
