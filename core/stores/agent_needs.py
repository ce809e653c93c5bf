"""What an agent needs from the workspace its task runs in (docs/contract.md section 6, "Public
agents"): the model connection its `model` names and the MCP servers its `mcp_servers` name.

A task always uses the connections and servers of its own workspace, also when it runs another
workspace's public agent: only the agent's definition crosses over, so the names in that definition
are looked up where the task runs. Each door that starts a task asks `missing_needs` before the
task is written, so a run that could never call its model or its servers is refused (400, or a
`delegate_tasks` tool error) instead of failing later.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis

from core.infra import keys


@dataclass(frozen=True)
class AgentNeeds:
    """The names an agent config relies on finding in the task's workspace."""

    #: The model connection its `model` names; None for a provider model or the scripted one.
    connection: str | None
    #: The MCP servers its `mcp_servers` name, in config order.
    mcp_servers: tuple[str, ...]


def needs_of(config: Mapping[str, Any]) -> AgentNeeds:
    """The names `config` relies on. Malformed values are left to the checks that own them (the
    model's resolution, `core.stores.mcp_config`): this only reads names that are well formed."""
    model = config.get("model")
    connection = None
    if isinstance(model, Mapping) and model.get("provider") != "scripted":
        named = model.get("connection")
        if isinstance(named, str) and named.strip():
            connection = named.strip()
    listed = config.get("mcp_servers")
    servers = (
        tuple(
            entry["server"]
            for entry in listed
            if isinstance(entry, Mapping) and isinstance(entry.get("server"), str)
        )
        if isinstance(listed, list)
        else ()
    )
    return AgentNeeds(connection, servers)


def missing_text(
    agent_name: str, connection: str | None, servers: list[str], *, public: bool = False
) -> str | None:
    """Why the agent cannot run here, naming each missing connection and server; None when nothing
    is missing."""
    missing = []
    if connection is not None:
        missing.append(
            f"model connection {connection!r} (create it with PUT /api/v1/integrations/models/{connection})"
        )
    missing += [f"MCP server {name!r} (create it with POST /api/v1/mcp-servers)" for name in servers]
    if not missing:
        return None
    text = f"agent {agent_name!r} needs what this workspace does not have: {', '.join(missing)}"
    if public:
        text += (
            "; a public agent runs on the model connection and MCP servers of the workspace that runs "
            "it, under the names its definition gives"
        )
    return text


async def missing_needs(
    redis: aioredis.Redis,
    workspace_id: str,
    config: Mapping[str, Any],
    *,
    agent_name: str,
    public: bool = False,
) -> str | None:
    """The error text when workspace `workspace_id` lacks a connection or server the agent with
    `config` names (see `missing_text`); None when it has them all. One round trip."""
    needs = needs_of(config)
    if needs.connection is None and not needs.mcp_servers:
        return None
    async with redis.pipeline(transaction=False) as pipe:
        if needs.connection is not None:
            pipe.exists(keys.model_connection(workspace_id, needs.connection))
        if needs.mcp_servers:
            pipe.hmget(keys.mcp_server_names(workspace_id), list(needs.mcp_servers))
        results = await pipe.execute()
    connection = needs.connection if needs.connection is not None and not results.pop(0) else None
    ids = results.pop(0) if needs.mcp_servers else []
    servers = [name for name, found in zip(needs.mcp_servers, ids, strict=True) if not found]
    return missing_text(agent_name, connection, servers, public=public)
