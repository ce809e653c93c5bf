"""What every operation shares: the API roots, path segments, query flags and the polling sleep."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from ..errors import WaitTimeout
from ..protocol import Context, Sleep

V1 = "/api/v1"
V2 = "/api/v2"


def segment(value: str) -> str:
    """One path segment: `file://` and `config://` ids are sent URL-encoded (docs/contract.md section 7)."""
    return quote(value, safe="")


def bool_param(value: bool) -> str:
    return "true" if value else "false"


def poll_sleep(ctx: Context, delay: float, deadline: float | None, last: Any, what: str) -> Sleep:
    if deadline is None:
        return Sleep(delay)
    left = deadline - ctx.clock()
    if left <= 0:
        raise WaitTimeout(f"timed out: {what}", last=last)
    return Sleep(min(delay, left))
