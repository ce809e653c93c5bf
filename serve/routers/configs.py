"""/api/v2/configs: saved parse, extract and classify configs."""

from __future__ import annotations

from fastapi import APIRouter

from core.infra.models import PageOf
from core.stores import configs
from serve.deps import RedisDep
from serve.extraction_deps import ExtractionPrincipalDep
from serve.extraction_schemas import ConfigCreate, DeletedConfig, SavedConfig
from serve.openapi_params import ConfigIdPath
from serve.openapi_responses import v2_errors
from serve.paging import PagingDep

router = APIRouter(prefix="/api/v2/configs", tags=["configs"])


def _saved(record: configs.ConfigRecord) -> SavedConfig:
    return SavedConfig(success=True, **record.resource())


@router.post("", response_model=SavedConfig, responses=v2_errors(400, 422))
async def create_config(
    body: ConfigCreate, principal: ExtractionPrincipalDep, redis: RedisDep
) -> SavedConfig:
    """Save a config; its params are validated for its type."""
    record = await configs.create_config(
        redis, principal.workspace_id, name=body.name, type=body.type, params=body.params
    )
    return _saved(record)


@router.get("", response_model=PageOf, responses=v2_errors(400, 422))
async def list_configs(principal: ExtractionPrincipalDep, redis: RedisDep, paging: PagingDep) -> PageOf:
    """List saved configs, newest first."""
    return paging.signed(
        await configs.list_configs(redis, principal.workspace_id, cursor=paging.cursor, limit=paging.limit)
    )


@router.get("/{config_id:path}", response_model=SavedConfig, responses=v2_errors(400))
async def get_config(
    config_id: ConfigIdPath, principal: ExtractionPrincipalDep, redis: RedisDep
) -> SavedConfig:
    """A saved config."""
    return _saved(await configs.get_config(redis, principal.workspace_id, config_id))


@router.delete("/{config_id:path}", response_model=DeletedConfig, responses=v2_errors(400))
async def delete_config(
    config_id: ConfigIdPath, principal: ExtractionPrincipalDep, redis: RedisDep
) -> DeletedConfig:
    """Delete a saved config; jobs that used it keep their results."""
    record = await configs.delete_config(redis, principal.workspace_id, config_id)
    return DeletedConfig(success=True, config_id=record.config_id, message="config deleted")
