"""Error envelopes: `{error: string}` on /api/v1, FastAPI's `{detail}` shapes elsewhere.

Every expected failure leaves through here, so no route builds an error body; a crash becomes a
500 in `serve.middleware`, so no stack trace or internal detail reaches a caller.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from starlette.exceptions import HTTPException as StarletteHTTPException

from core.infra.errors import AgentryError, RateLimited

log = logging.getLogger(__name__)

AGENTS_PREFIX = "/api/v1"


def _is_agents_api(request: Request) -> bool:
    return request.url.path.startswith(AGENTS_PREFIX)


def error_response(
    request: Request, status_code: int, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    body = {"error": message} if _is_agents_api(request) else {"detail": message}
    return JSONResponse(body, status_code=status_code, headers=headers)


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path", "header"))
        parts.append(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")))
    return "invalid request: " + "; ".join(parts)


#: What a request that needed the store gets while it is unreachable; clients retry after `Retry-After`.
STORE_UNAVAILABLE = "the state store is unreachable; retry shortly"
STORE_RETRY_AFTER = {"Retry-After": "2"}


def expected_failure(exc: Exception) -> tuple[int, str, dict[str, str] | None] | None:
    """(status, message, headers) of an expected failure: our own errors and an unreachable store.

    None for anything else, which is a crash (`serve.middleware` answers it). The handlers below and
    the polled route's own dispatch (`serve.task_poll`) answer through it, so both say the same.
    """
    if isinstance(exc, AgentryError):
        headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, RateLimited) else None
        return exc.status_code, exc.message, headers
    if isinstance(exc, (RedisConnectionError, RedisTimeoutError)):
        log.warning("state store unreachable: %s", type(exc).__name__)
        return 503, STORE_UNAVAILABLE, STORE_RETRY_AFTER
    return None


async def _expected_error(request: Request, exc: Exception) -> JSONResponse:
    answer = expected_failure(exc)
    assert answer is not None
    return error_response(request, *answer)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    if _is_agents_api(request):
        return error_response(request, 400, _validation_message(exc))
    return JSONResponse({"detail": _jsonable_errors(exc)}, status_code=422)


def _jsonable_errors(exc: RequestValidationError) -> list[dict[str, object]]:
    return [
        {
            "loc": [str(p) for p in err.get("loc", ())],
            "msg": str(err.get("msg")),
            "type": str(err.get("type")),
        }
        for err in exc.errors()
    ]


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    return error_response(request, exc.status_code, str(exc.detail), dict(exc.headers or {}))


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(AgentryError, _expected_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RedisConnectionError, _expected_error)
    app.add_exception_handler(RedisTimeoutError, _expected_error)
