"""Errors of the shared kernel.

Every error the service raises on purpose derives from `AgentryError`, which carries the HTTP status
that the edge answers with, so routers map errors to the error envelope without knowing each kind.
"""

from __future__ import annotations


class AgentryError(Exception):
    """A failure with a human-readable message and the HTTP status the edge answers with."""

    status_code: int = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class IllegalTransition(AgentryError):
    """A task status change that the state machine does not allow; the change is never written.

    It answers 409 Conflict: CONTRACT.md section 3, "an action that the task's state does not allow".
    """

    status_code = 409

    def __init__(self, src: str, dst: str) -> None:
        super().__init__(f"a task cannot move from {src} to {dst}")
        self.src = src
        self.dst = dst
