"""Provider SDK errors mapped onto the runtime's failure policy.

The SDKs already retried transient failures (honouring Retry-After) before raising. What is left:
a rate limit, an overloaded or failing server, a timeout or a broken connection may succeed later
(retryable, after the provider's Retry-After when it sent one); any other 4xx is a request the
provider will never accept (not retryable). Only the status and the provider's error type (a short
identifier such as `rate_limit_error`) are kept: a server's error text may echo the prompt, the
document or part of the key, and it ends up in the task's `error`, so it is dropped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from actors.models.base import ModelError

#: What a provider's error type may look like to be kept: an identifier, never free text.
_ERROR_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")
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


def error_type(body: Any) -> str | None:
    """The provider's error type from an error body (OpenAI: `{error: {type, code}}`, the OpenAI SDK
    passes the inner object; Anthropic: `{type: error, error: {type}}`), when it is an identifier."""
    if not isinstance(body, dict):
        return None
    inner = body.get("error")
    error = inner if isinstance(inner, dict) else body
    for key in ("type", "code"):
        value = error.get(key)
        if isinstance(value, str) and value != "error" and _ERROR_TYPE.fullmatch(value):
            return value
    return None


def status_error(status: int, headers: Mapping[str, str], body: Any) -> ModelError:
    """The ModelError for an HTTP error answer of a provider: its status and error type only."""
    kind = error_type(body)
    described = f"HTTP {status} ({kind})" if kind else f"HTTP {status}"
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
        return status_error(status, response.headers, getattr(exc, "body", None))
    name = type(exc).__name__
    if "Timeout" in name:
        return ModelError("the model server did not answer in time", True)
    if "Connection" in name:
        return ModelError("could not reach the model server", True)
    return ModelError(f"the model call failed ({name})", True)
