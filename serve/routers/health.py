"""Liveness and readiness, outside /api and without authentication."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from serve.deps import RedisDep

router = APIRouter(tags=["health"])


class Liveness(BaseModel):
    status: str


class Readiness(BaseModel):
    ready: bool
    checks: dict[str, bool]


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
    """Redis and Ray are reachable."""
    checks = {"redis": False, "ray": False}
    try:
        checks["redis"] = bool(await redis.ping())
    except Exception:
        checks["redis"] = False
    try:
        import ray

        checks["ray"] = ray.is_initialized()
    except Exception:
        checks["ray"] = False
    ready = all(checks.values())
    return JSONResponse({"ready": ready, "checks": checks}, status_code=200 if ready else 503)
