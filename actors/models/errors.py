"""Provider SDK errors mapped onto the runtime's failure policy.

The SDKs already retried transient failures (honouring Retry-After) before raising. What is left:
a rate limit, an overloaded or failing server, a timeout or a broken connection may succeed later
(retryable, after the provider's Retry-After when it sent one); any other 4xx is a request the
provider will never accept (not retryable). Only the status and the provider's own short message are
kept: a server's error text never quotes the key, and the request body is never logged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from actors.models.base import ModelError

#: How much of a provider's error text is kept in the error message.
_ERROR_DETAIL_CHARS = 300
#: A provider's Retry-After is honoured up to this long; longer waits are capped.
MAX_RETRY_AFTER_SECONDS = 60.0


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The server's requested wait: `retry-after-ms`, or `Retry-After` in seconds or as a date."""
    milliseconds = _seconds(headers.get("retry-after-ms"))
    if milliseconds is not None:
        return milliseconds / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _seconds(value)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)


def _seconds(text: str | None) -> float | None:
    """A non-negative finite number from header text, or None when it is not one."""
    try:
        number = float(text) if text is not None else math.nan
    except ValueError:
        return None
    return max(number, 0.0) if math.isfinite(number) else None


def _detail(body: Any, fallback: str) -> str:
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    return str(message or fallback or "").strip()[:_ERROR_DETAIL_CHARS]


def status_error(status: int, headers: Mapping[str, str], body: Any, text: str) -> ModelError:
    """The ModelError for an HTTP error answer of a provider."""
    detail = _detail(body, text)
    described = f"HTTP {status}: {detail}" if detail else f"HTTP {status}"
    # 408 and 409 are what the SDKs themselves retry; 529 is Anthropic's "overloaded".
    if status in (408, 409, 429) or status >= 500:
        wait = retry_after_seconds(headers)
        if wait is not None:
            wait = min(wait, MAX_RETRY_AFTER_SECONDS)
        return ModelError(f"the model server failed: {described}", True, wait)
    return ModelError(f"the model server refused the request: {described}", False)


def sdk_error(exc: Exception) -> ModelError:
    """The ModelError for an exception either SDK raised (they share their error classes' shape)."""
    response = getattr(exc, "response", None)
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and response is not None:
        try:
            text = response.text
        except Exception:
            text = ""
        return status_error(status, response.headers, getattr(exc, "body", None), text)
    name = type(exc).__name__
    if "Timeout" in name:
        return ModelError("the model server did not answer in time", True)
    if "Connection" in name:
        return ModelError("could not reach the model server", True)
    return ModelError(f"the model call failed ({name})", True)
