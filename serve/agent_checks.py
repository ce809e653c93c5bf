"""What an agent's config must hold before it is saved or run (docs/contract.md section 2): an
`output_schema` that is valid JSON Schema, and no spend cap on a model nobody prices; and, to run,
the model connection and MCP servers it names in the caller's workspace (core.agent_needs)."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from actors import spend_caps
from actors.models.schema_check import schema_problem
from core.agent_needs import missing_needs
from core.errors import BadRequest
from core.settings import Settings


def check_output_schema(schema: Any, where: str) -> None:
    """400 naming the path inside the schema (`<where>.<path>`) when `schema` is not a valid JSON
    Schema object; a missing schema (None) is fine."""
    if schema is None:
        return
    problem = schema_problem(schema)
    if problem is not None:
        path, message = problem
        raise BadRequest(
            f"{where}.{path} is not valid JSON Schema: {message}" if path else f"{where}: {message}"
        )


async def check_config(
    redis: aioredis.Redis, settings: Settings, workspace_id: str, config: dict[str, Any] | None
) -> None:
    """400 when the agent `config` cannot run as written: its output schema is not valid JSON
    Schema, or it sets a spend cap on a model with no known price."""
    if config is None:
        return
    check_output_schema(config.get("output_schema"), "config.output_schema")
    caps = spend_caps.caps_set(config)
    if not caps:
        return
    label = await spend_caps.unpriced_model(config.get("model"), settings, redis, workspace_id)
    if label is not None:
        raise BadRequest(spend_caps.unpriced_text(label, caps))


async def check_run(
    redis: aioredis.Redis,
    settings: Settings,
    workspace_id: str,
    config: dict[str, Any],
    output_config: dict[str, Any] | None,
    *,
    agent_name: str,
) -> None:
    """400 when a run of the agent version with `config` cannot keep its promises: the workspace
    lacks a model connection or MCP server it names, the output schema it would use (the run's
    `output_config.output_schema`, else the agent's) is not valid JSON Schema, or a spend cap
    applies to a model with no known price (say, its connection's price was removed after the
    agent was saved)."""
    missing = await missing_needs(redis, workspace_id, config, agent_name=agent_name)
    if missing is not None:
        raise BadRequest(missing)
    run_schema = (output_config or {}).get("output_schema")
    if run_schema is not None:
        check_output_schema(run_schema, "output_config.output_schema")
    await check_config(
        redis, settings, workspace_id, config if run_schema is None else config | {"output_schema": None}
    )
