"""/api/v1/integrations: the workspace's practice-management connector (docs/contract.md section 8)."""

from __future__ import annotations

from fastapi import APIRouter

from serve.deps import PrincipalDep, RedisDep, SettingsDep
from tools.practice import connector
from tools.practice.connector import ConnectionStatus, ConnectRequest

router = APIRouter(prefix="/api/v1/integrations", tags=["integrations"])


@router.put("/practice", response_model=ConnectionStatus)
async def connect_practice(
    body: ConnectRequest, principal: PrincipalDep, redis: RedisDep, settings: SettingsDep
) -> ConnectionStatus:
    """Connect the practice-management system: the credentials are proven with a token grant, then stored."""
    return await connector.connect(redis, settings, principal.workspace_id, body, key_id=principal.key_id)


@router.get("/practice", response_model=ConnectionStatus)
async def practice_status(principal: PrincipalDep, redis: RedisDep) -> ConnectionStatus:
    """Whether the practice-management system is connected; never shows a secret."""
    return await connector.connection_status(redis, principal.workspace_id)


@router.delete("/practice", response_model=ConnectionStatus, response_model_exclude_none=True)
async def disconnect_practice(principal: PrincipalDep, redis: RedisDep) -> ConnectionStatus:
    """Disconnect the practice-management system and forget its credentials."""
    return await connector.disconnect(redis, principal.workspace_id, key_id=principal.key_id)
