"""Every check a run of an agent makes before its task is written, whichever door it comes through
(docs/contract.md section 4, "Run checks"): `POST /api/v1/agents/{id}/run` (and the Python client,
which calls it), an agent tool of `/mcp`, and `delegate_tasks` (source mode's batches included).

The edge doors ask through `actors.submit.start_run`, which raises the problem as a 400; delegation
cannot import the runtime (tools sit below actors), so its runner hands it `for_tools(...)` in its
`ToolContext`, and the problem becomes the tool's error. Saving an agent (create, update) asks
`check_config`: the checks of a run that do not depend on the workspace it runs in.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis

from actors import spend_caps
from actors.models.schema_check import schema_problem
from core.infra.errors import BadRequest
from core.infra.settings import Settings
from core.stores.agent_needs import missing_needs
from core.stores.agent_settings import settings_problem
from tools.context import RunCheck


@dataclass(frozen=True)
class RunOf:
    """What the checks look at: the agent version's config, where its task would run, and the
    run's own `output_config` (None for a delegated child)."""

    workspace_id: str
    config: Mapping[str, Any]
    agent_name: str
    #: A published public agent of another workspace (its needs are looked up in `workspace_id`).
    public: bool = False
    output_config: Mapping[str, Any] | None = None


Check = Callable[[aioredis.Redis, Settings, RunOf], Awaitable[str | None]]


def output_schema_problem(schema: Any, where: str) -> str | None:
    """Why `schema` is not a valid JSON Schema object, naming the path inside it
    (`<where>.<path>`); None for a valid or missing one."""
    if schema is None:
        return None
    problem = schema_problem(schema)
    if problem is None:
        return None
    path, message = problem
    return f"{where}.{path} is not valid JSON Schema: {message}" if path else f"{where}: {message}"


async def _needs(redis: aioredis.Redis, settings: Settings, run: RunOf) -> str | None:
    """The model connection and MCP servers the agent names exist where its task runs."""
    return await missing_needs(
        redis, run.workspace_id, run.config, agent_name=run.agent_name, public=run.public
    )


async def _settings_types(redis: aioredis.Redis, settings: Settings, run: RunOf) -> str | None:
    """Its caps and every other named setting have their types (core.stores.agent_settings)."""
    return settings_problem(run.config)


async def _output_schema(redis: aioredis.Redis, settings: Settings, run: RunOf) -> str | None:
    """The output schema the task would use (the run's, else the agent's) is valid JSON Schema."""
    run_schema = (run.output_config or {}).get("output_schema")
    if run_schema is not None:
        return output_schema_problem(run_schema, "output_config.output_schema")
    return output_schema_problem(run.config.get("output_schema"), "config.output_schema")


async def _priced_under_cap(redis: aioredis.Redis, settings: Settings, run: RunOf) -> str | None:
    """A spend cap is set only on a model with a known price (actors.spend_caps)."""
    caps = spend_caps.caps_set(run.config)
    if not caps:
        return None
    label = await spend_caps.unpriced_model(run.config.get("model"), settings, redis, run.workspace_id)
    return None if label is None else spend_caps.unpriced_text(label, caps)


#: Every check of a run, in the order they are asked; the first problem refuses the run. A new
#: check of a run goes here, and every door makes it.
RUN_CHECKS: tuple[Check, ...] = (_needs, _settings_types, _output_schema, _priced_under_cap)
#: What saving an agent checks: the run checks that do not depend on the workspace it runs in.
CONFIG_CHECKS: tuple[Check, ...] = (_settings_types, _output_schema, _priced_under_cap)


async def _first_problem(
    checks: tuple[Check, ...], redis: aioredis.Redis, settings: Settings, run: RunOf
) -> str | None:
    for check in checks:
        problem = await check(redis, settings, run)
        if problem is not None:
            return problem
    return None


async def run_problem(redis: aioredis.Redis, settings: Settings, run: RunOf) -> str | None:
    """Why the run cannot start as asked; None when every check of `RUN_CHECKS` passes."""
    return await _first_problem(RUN_CHECKS, redis, settings, run)


async def check_config(
    redis: aioredis.Redis, settings: Settings, workspace_id: str, config: Mapping[str, Any] | None
) -> None:
    """400 when an agent `config` cannot be saved as written (a missing one, None, is fine)."""
    if config is None:
        return
    problem = await _first_problem(CONFIG_CHECKS, redis, settings, RunOf(workspace_id, config, agent_name=""))
    if problem is not None:
        raise BadRequest(problem)


def for_tools(redis: aioredis.Redis, settings: Settings) -> RunCheck:
    """`run_problem` as a tool calls it (`ToolContext.run_check`): a delegated child's checks."""

    async def check(
        workspace_id: str, config: Mapping[str, Any], *, agent_name: str, public: bool
    ) -> str | None:
        return await run_problem(redis, settings, RunOf(workspace_id, config, agent_name, public=public))

    return check
