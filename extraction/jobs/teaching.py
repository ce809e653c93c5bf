"""Examples of saved extract configs, as the API and the jobs use them (storage: core.examples).

- `teach_example`: parse a stored file (on the worker pool, through the coordinator's parsed-document
  cache), find the given values on it (`extraction.examples.teach`) and store the example; 422
  naming the values it cannot find, and then nothing is stored;

An extract job run with a config id carries the config's examples in its params (`examples:
[{example_id, taught}]`, `extraction.jobs.service.resolve_params`).
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from core import configs, examples
from core.configs import ConfigRecord, ExtractParams
from core.errors import BadRequest, Unprocessable
from core.models import PageOf
from extraction.jobs.service import ExtractionContext, ask_coordinator, resolve_input


async def extract_config(redis: aioredis.Redis, workspace_id: str, config_id: str) -> ConfigRecord:
    """The workspace's saved config (403/404 as the other config routes); 400 unless it extracts."""
    record = await configs.get_config(redis, workspace_id, config_id)
    if record.type != "extract":
        raise BadRequest(
            f"config {record.config_id} is a {record.type} config; examples teach extract configs"
        )
    return record


def check_fields(params: ExtractParams, values: dict[str, Any]) -> None:
    """422 naming the values whose field the config does not extract; 422 when none is given."""
    if not values:
        raise Unprocessable("values: name at least one field of the config")
    known = set(params.json_options)
    unknown = [name for name in values if name not in known]
    if unknown:
        raise Unprocessable(
            "values: not fields of this config: " + ", ".join(unknown) + " (its fields are its json_options)"
        )


async def teach_example(
    ctx: ExtractionContext, workspace_id: str, config_id: str, input: str, values: dict[str, Any]
) -> examples.Example:
    """Teach the config an example from the document `input` names, and store it."""
    config = await extract_config(ctx.redis, workspace_id, config_id)
    params = config.typed_params()
    assert isinstance(params, ExtractParams)
    check_fields(params, values)
    file = await resolve_input(ctx, workspace_id, input)
    answer = await ask_coordinator(
        ctx.settings,
        ctx.model_factory,
        "teach",
        (workspace_id, file.file_id, values),
        timeout_seconds=ctx.settings.document_timeout_seconds * 2,
        what=f"teaching an example from file {file.file_id}",
    )
    if answer.get("missing"):
        raise Unprocessable("values not found on the document: " + ", ".join(answer["missing"]))
    record = examples.seal_example(
        ctx.settings,
        config_uuid=config.id,
        config_id=config.config_id,
        file_id=file.file_id,
        fields=answer["fields"],
        taught=answer["taught"],
    )
    await examples.store_example(ctx.redis, workspace_id, record)
    return examples.open_example(ctx.settings, record)


async def list_config_examples(
    ctx: ExtractionContext, workspace_id: str, config_id: str, *, cursor: str | None, limit: int | None
) -> PageOf:
    config = await extract_config(ctx.redis, workspace_id, config_id)
    return await examples.list_examples(
        ctx.redis, ctx.settings, workspace_id, config.id, cursor=cursor, limit=limit
    )


async def get_config_example(
    ctx: ExtractionContext, workspace_id: str, config_id: str, example_id: str
) -> examples.Example:
    config = await extract_config(ctx.redis, workspace_id, config_id)
    record = await examples.load_record(ctx.redis, workspace_id, config.id, example_id)
    return examples.open_example(ctx.settings, record)


async def delete_config_example(
    ctx: ExtractionContext, workspace_id: str, config_id: str, example_id: str
) -> examples.ExampleRecord:
    """Forget the example and the layout taught from it; the file it came from is left alone."""
    config = await extract_config(ctx.redis, workspace_id, config_id)
    record = await examples.load_record(ctx.redis, workspace_id, config.id, example_id)
    await examples.delete_example(ctx.redis, workspace_id, record)
    return record
