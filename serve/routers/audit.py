"""/api/v1/audit: the workspace audit log."""

from __future__ import annotations

from fastapi import APIRouter

from core.infra.models import PageOf
from core.stores import audit
from serve.deps import PrincipalDep, RedisDep
from serve.paging import PagingDep

router = APIRouter(prefix="/api/v1/audit", tags=["audit"])


@router.get("", response_model=PageOf)
async def list_audit(principal: PrincipalDep, redis: RedisDep, paging: PagingDep) -> PageOf:
    """List audit entries, newest first."""
    return paging.signed(
        await audit.list_entries(redis, principal.workspace_id, cursor=paging.cursor, limit=paging.limit)
    )
