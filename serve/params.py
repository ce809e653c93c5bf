"""Strict parsing of query parameters that FastAPI would coerce too generously."""

from __future__ import annotations

from fastapi import Request

from core.infra.errors import BadRequest

_TRUE = {"true", "1"}
_FALSE = {"false", "0"}


def strict_bool(request: Request, name: str, default: bool) -> bool:
    """`true`/`false` (or 1/0); anything else, a bare `?name` included, is a 400."""
    if name not in request.query_params:
        return default
    raw = request.query_params[name].strip().lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise BadRequest(f"{name} must be a boolean (true or false), got {request.query_params[name]!r}")
