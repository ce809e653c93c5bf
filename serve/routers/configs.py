"""/api/v2/configs: saved parse, extract and classify configs."""

from __future__ import annotations

from fastapi import APIRouter

from core import configs
from core.examples import Example
from core.models import PageOf
from extraction.jobs import teaching
from serve.deps import RedisDep
from serve.extraction_deps import ExtractionDep, ExtractionPrincipalDep
from serve.extraction_schemas import (
    ConfigCreate,
    DeletedConfig,
    DeletedExample,
    ExampleCreate,
    SavedConfig,
    SavedExample,
)
from serve.openapi_params import ConfigIdPath, ExampleIdPath
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


def _example(example: Example) -> SavedExample:
    return SavedExample(success=True, **example.resource())


# Declared before the config routes: `{config_id:path}` alone would also match `.../examples`.
@router.post(
    "/{config_id:path}/examples", status_code=201, response_model=SavedExample, responses=v2_errors(400, 422)
)
async def create_example(
    config_id: ConfigIdPath, body: ExampleCreate, principal: ExtractionPrincipalDep, ctx: ExtractionDep
) -> SavedExample:
    """Teach an extract config a corrected document: 422 naming the values not found on it."""
    return _example(
        await teaching.teach_example(ctx, principal.workspace_id, config_id, body.input, body.values)
    )


@router.get("/{config_id:path}/examples", response_model=PageOf, responses=v2_errors(400, 422))
async def list_examples(
    config_id: ConfigIdPath, principal: ExtractionPrincipalDep, ctx: ExtractionDep, paging: PagingDep
) -> PageOf:
    """The config's examples, newest first."""
    return paging.signed(
        await teaching.list_config_examples(
            ctx, principal.workspace_id, config_id, cursor=paging.cursor, limit=paging.limit
        )
    )


@router.get("/{config_id:path}/examples/{example_id}", response_model=SavedExample, responses=v2_errors(400))
async def get_example(
    config_id: ConfigIdPath, example_id: ExampleIdPath, principal: ExtractionPrincipalDep, ctx: ExtractionDep
) -> SavedExample:
    """One example of the config."""
    return _example(await teaching.get_config_example(ctx, principal.workspace_id, config_id, example_id))


@router.delete(
    "/{config_id:path}/examples/{example_id}", response_model=DeletedExample, responses=v2_errors(400)
)
async def delete_example(
    config_id: ConfigIdPath, example_id: ExampleIdPath, principal: ExtractionPrincipalDep, ctx: ExtractionDep
) -> DeletedExample:
    """Delete an example and the layout taught from it."""
    record = await teaching.delete_config_example(ctx, principal.workspace_id, config_id, example_id)
    return DeletedExample(
        success=True, example_id=record.id, config_id=record.config_id, message="example deleted"
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
    """Delete a saved config and its examples; jobs that used it keep their results."""
    record = await configs.delete_config(redis, principal.workspace_id, config_id)
    return DeletedConfig(success=True, config_id=record.config_id, message="config deleted")
