"""The client's exceptions: one class per answer a caller may want to branch on.

docs/spec.md says to branch on the status code, never on the text, so each status the API documents has
its own class; `ApiError` carries the status, the hint the server gave and the decoded body.
"""

from __future__ import annotations

import json
from typing import Any


class AgentryClientError(Exception):
    """Base of every error this client raises."""


class ApiError(AgentryClientError):
    """The service answered with a non-2xx status."""

    def __init__(self, status: int, message: str, body: Any = None, headers: dict[str, str] | None = None):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message
        self.body = body
        self.headers = headers or {}


class BadRequest(ApiError):
    """400: the request is malformed (bad id, bad parameter, missing field)."""


class Unauthorized(ApiError):
    """401: the API key is missing, malformed, unknown or revoked."""


class Forbidden(ApiError):
    """403: the resource belongs to another workspace, or the agent is inactive."""


class NotFound(ApiError):
    """404: no such agent, task, file, config or job (or it was deleted)."""


class Conflict(ApiError):
    """409: the task's state does not allow this action (a reply to a task not waiting for input)."""


class PayloadTooLarge(ApiError):
    """413: the upload is over the service's cap."""


class UnsupportedMediaType(ApiError):
    """415: the upload's format is not one the service reads."""


class ValidationFailed(ApiError):
    """422: the extraction API refused the body; `body["detail"]` lists each problem."""


class RateLimited(ApiError):
    """429 after the retries ran out (or a `Retry-After` longer than the policy will wait)."""

    def __init__(
        self,
        status: int,
        message: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        retry_after: float | None = None,
    ):
        super().__init__(status, message, body, headers)
        self.retry_after = retry_after


class ServerError(ApiError):
    """5xx after the retries ran out."""


class ConnectionFailed(AgentryClientError):
    """The service could not be reached, or the connection broke before an answer arrived.

    `maybe_applied` is true when the request may have reached the service before the break: the
    client then did not resend a request that is not idempotent (a run, a reply, an upload), and
    the caller decides (for a run: list the agent's tasks to see whether it was created).
    """

    def __init__(self, message: str, *, maybe_applied: bool):
        super().__init__(message)
        self.maybe_applied = maybe_applied


class WaitTimeout(AgentryClientError):
    """A wait ran past its `timeout`; the task or job goes on and can be waited for again."""

    def __init__(self, message: str, *, last: Any):
        super().__init__(message)
        #: The last state seen (a `Task` or a `Job`).
        self.last = last


_BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    415: UnsupportedMediaType,
    422: ValidationFailed,
}


def error_message(body: Any, text: str) -> str:
    """The hint of an error body: `{error}` on /api/v1, `{detail}` on /api/v2, else the raw text."""
    if isinstance(body, dict):
        for key in ("error", "detail"):
            value = body.get(key)
            if isinstance(value, str):
                return value
            if isinstance(value, list):
                return "; ".join(_validation_item(item) for item in value)
    return text.strip()[:500] or "no message"


def _validation_item(item: Any) -> str:
    if isinstance(item, dict):
        loc = ".".join(str(p) for p in item.get("loc", []) if p != "body")
        return f"{loc}: {item.get('msg')}" if loc else str(item.get("msg"))
    return str(item)


def api_error(
    status: int, headers: dict[str, str], content: bytes, *, retry_after: float | None = None
) -> ApiError:
    """The exception for a non-2xx answer (pure: status, headers and body in, exception out)."""
    text = content.decode("utf-8", "replace")
    try:
        body: Any = json.loads(text) if text else None
    except ValueError:
        # Serve's own 429 (proxy backpressure) and gateways answer plain text.
        body = text
    message = error_message(body, text)
    if status == 429:
        return RateLimited(status, message, body, headers, retry_after=retry_after)
    if status >= 500:
        return ServerError(status, message, body, headers)
    return _BY_STATUS.get(status, ApiError)(status, message, body, headers)
