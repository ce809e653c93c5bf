"""/api/v1/audit: the workspace audit log."""

from __future__ import annotations

from fastapi import APIRouter

from core import audit
from core.models import PageOf
from serve.deps import PrincipalDep, RedisDep
from serve.openapi_responses import CursorQuery, LimitQuery

router = APIRouter(prefix="/api/v1/audit", tags=["audit"])


@router.get("", response_model=PageOf)
async def list_audit(
    principal: PrincipalDep, redis: RedisDep, cursor: CursorQuery = None, limit: LimitQuery = None
) -> PageOf:
    """List audit entries, newest first."""
    return await audit.list_entries(redis, principal.workspace_id, cursor=cursor, limit=limit)
