"""The error hierarchy: each error carries the HTTP status it maps to at the edge.

Routers never build error bodies themselves; the edge turns an `AgentryError` into the envelope of
its API (`{error}` on /api/v1, `{detail}` on /api/v2).
"""

from __future__ import annotations


class AgentryError(Exception):
    """Base of every error the service reports to a caller."""

    status_code: int = 500

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if status_code is not None:
            self.status_code = status_code


class SettingsError(AgentryError):
    """An environment variable holds a value the service cannot run with."""


class BadRequest(AgentryError):
    status_code = 400


class Unauthorized(AgentryError):
    status_code = 401


class Forbidden(AgentryError):
    status_code = 403


class NotFound(AgentryError):
    status_code = 404


class Conflict(AgentryError):
    """The action is not allowed in the resource's current state."""

    status_code = 409


class PayloadTooLarge(AgentryError):
    status_code = 413


class UnsupportedMediaType(AgentryError):
    status_code = 415


class Unprocessable(AgentryError):
    status_code = 422


class RateLimited(AgentryError):
    status_code = 429

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        #: Whole seconds, never 0 (docs/spec.md, Errors: 429).
        self.retry_after = max(1, retry_after)


class BadGateway(AgentryError):
    """A remote server the request reached answered in a way the service will not take."""

    status_code = 502


class ServiceUnavailable(AgentryError):
    """A dependency (Redis, Ray) cannot be reached right now; retrying later can help."""

    status_code = 503


class IllegalTransition(Conflict):
    """A task status change that the state machine does not allow; the change is never written."""

    def __init__(self, src: str, dst: str) -> None:
        super().__init__(f"a task cannot move from {src} to {dst}")
        self.src = src
        self.dst = dst
