"""Liveness and readiness, outside /api and without authentication."""

from __future__ import annotations

import contextlib
import time

from fastapi import APIRouter
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel

from core.infra import gauges
from core.infra.persistence import store_persistence
from serve.deps import RedisDep

router = APIRouter(tags=["health"])


class Liveness(BaseModel):
    status: str


class Readiness(BaseModel):
    ready: bool
    checks: dict[str, bool]
    #: The store's AOF and RDB settings (null where it does not tell); `durable` false means a
    #: restart of Redis loses everything. Reported, not a readiness condition.
    store: dict[str, bool | str | None] | None = None


@router.get("/healthz", response_model=Liveness)
async def healthz() -> Liveness:
    """The process is up."""
    return Liveness(status="ok")


@router.get(
    "/readyz",
    response_model=None,
    responses={
        200: {"model": Readiness, "description": "Redis and Ray answer"},
        503: {"model": Readiness, "description": "Redis or Ray does not answer"},
    },
)
async def readyz(redis: RedisDep) -> JSONResponse:
    """Redis and Ray are reachable; also reports the store's persistence."""
    checks = {"redis": False, "ray": False}
    store: dict[str, bool | str | None] | None = None
    try:
        checks["redis"] = bool(await redis.ping())
    except Exception:
        checks["redis"] = False
    if checks["redis"]:
        # Reported even where INFO or CONFIG is refused (then null): readiness does not depend on it.
        with contextlib.suppress(Exception):
            persistence = await store_persistence(redis)
            store = persistence.model_dump() | {"durable": persistence.durable}
    try:
        import ray

        checks["ray"] = ray.is_initialized()
    except Exception:
        checks["ray"] = False
    ready = all(checks.values())
    return JSONResponse({"ready": ready, "checks": checks, "store": store}, status_code=200 if ready else 503)


@router.get("/metrics", response_class=PlainTextResponse)
async def metrics(redis: RedisDep) -> PlainTextResponse:
    """The gauges operators alert on, from the store (Prometheus text): the same from every node."""
    snapshot = await gauges.load(redis)
    return PlainTextResponse(gauges.render(snapshot, time.time()), media_type=gauges.CONTENT_TYPE)
