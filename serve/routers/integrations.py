"""/api/v1/integrations: the workspace's practice-management connector (docs/contract.md section 8) and
its model connections."""

from __future__ import annotations

from fastapi import APIRouter

from actors.models.targets import check_base_url
from core.infra.errors import NotFound
from core.stores import model_connections
from core.stores.model_connections import PROVIDER_HOME, ConnectionRequest, check_name
from core.stores.model_connections import ConnectionView as ModelConnectionView
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


@router.put("/models/{name}", response_model=ModelConnectionView)
async def save_model_connection(
    name: str, body: ConnectionRequest, principal: PrincipalDep, redis: RedisDep, settings: SettingsDep
) -> ModelConnectionView:
    """Create or replace model connection `name`; its base URL must pass the URL guard. The key is
    sealed at rest and never returned."""
    check_name(name)
    home = PROVIDER_HOME[body.provider]
    # The provider's own API is a known public host; any other base URL is the caller's choice.
    base_url = home if body.base_url is None else await check_base_url(body.base_url, settings)
    return await model_connections.save(
        redis, settings, principal.workspace_id, name, body, base_url, key_id=principal.key_id
    )


@router.get("/models/{name}", response_model=ModelConnectionView)
async def get_model_connection(name: str, principal: PrincipalDep, redis: RedisDep) -> ModelConnectionView:
    """Model connection `name` as stored, without its key."""
    found = await model_connections.view(redis, principal.workspace_id, check_name(name))
    if found is None:
        raise NotFound(f"no model connection named {name!r}")
    return found


@router.delete("/models/{name}")
async def delete_model_connection(name: str, principal: PrincipalDep, redis: RedisDep) -> dict[str, object]:
    """Forget model connection `name` and its key."""
    if not await model_connections.delete(
        redis, principal.workspace_id, check_name(name), key_id=principal.key_id
    ):
        raise NotFound(f"no model connection named {name!r}")
    return {"name": name, "deleted": True}
