"""Liveness and readiness, outside /api and without authentication."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from serve.deps import RedisDep

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


@router.get("/readyz")
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
