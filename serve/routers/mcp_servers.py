"""/api/v1/mcp-servers: the workspace's remote MCP servers, and a `test` action that lists their tools."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from actors import mcp_client, mcp_tools
from core.infra.errors import BadGateway
from core.infra.models import PageOf
from core.stores import mcp_servers
from core.stores.mcp_servers import McpServerCreate, McpServerPatch, McpServerView
from serve.deps import PrincipalDep, RedisDep, SettingsDep
from serve.openapi_params import McpServerIdPath
from serve.openapi_responses import v1_errors
from serve.paging import PagingDep

router = APIRouter(prefix="/api/v1/mcp-servers", tags=["mcp-servers"])


class McpServerTest(BaseModel):
    id: str
    name: str
    ok: bool
    tools: list[dict[str, Any]] = Field(
        description="`{name, tool_name, description, input_schema}`: `tool_name` is what a model calls."
    )
    error: str | None = None


@router.post("", status_code=201, response_model=McpServerView, responses=v1_errors(409))
async def create_mcp_server(
    body: McpServerCreate, principal: PrincipalDep, redis: RedisDep, settings: SettingsDep
) -> dict[str, Any]:
    """Add a server; its URL must pass the URL guard. Headers and token are sealed, never returned."""
    url = await mcp_servers.check_url(body.url, settings)
    record = await mcp_servers.create(
        redis, settings, principal.workspace_id, body, url, key_id=principal.key_id
    )
    return record.resource()


@router.get("", response_model=PageOf)
async def list_mcp_servers(principal: PrincipalDep, redis: RedisDep, paging: PagingDep) -> PageOf:
    """The workspace's servers, newest first."""
    return paging.signed(
        await mcp_servers.list_servers(
            redis, principal.workspace_id, cursor=paging.cursor, limit=paging.limit
        )
    )


@router.get("/{server_id}", response_model=McpServerView)
async def get_mcp_server(
    server_id: McpServerIdPath, principal: PrincipalDep, redis: RedisDep
) -> dict[str, Any]:
    """One server, without its headers' values or token."""
    return (await mcp_servers.get(redis, principal.workspace_id, server_id)).resource()


@router.patch("/{server_id}", response_model=McpServerView, responses=v1_errors(409))
async def update_mcp_server(
    server_id: McpServerIdPath,
    body: McpServerPatch,
    principal: PrincipalDep,
    redis: RedisDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    """Change a server's name, URL, description, headers or token; a call paused for review against
    it is then refused on approval (its binding changed)."""
    record = await mcp_servers.get(redis, principal.workspace_id, server_id)
    url = None if body.url is None else await mcp_servers.check_url(body.url, settings)
    updated = await mcp_servers.update(redis, settings, record, body, url, key_id=principal.key_id)
    return updated.resource()


@router.delete("/{server_id}")
async def delete_mcp_server(
    server_id: McpServerIdPath, principal: PrincipalDep, redis: RedisDep
) -> dict[str, Any]:
    """Forget a server and its credentials."""
    record = await mcp_servers.get(redis, principal.workspace_id, server_id)
    await mcp_servers.delete(redis, record, key_id=principal.key_id)
    return {"id": record.id, "deleted": True}


@router.post(
    "/{server_id}/test",
    response_model=McpServerTest,
    response_model_exclude_none=True,
    responses=v1_errors(502),
)
async def test_mcp_server(
    server_id: McpServerIdPath, principal: PrincipalDep, redis: RedisDep, settings: SettingsDep
) -> dict[str, Any]:
    """Connect and list the server's tools: `{id, name, ok, tools: [{name, tool_name, description,
    input_schema}]}`, or `ok: false` with the `error` that stopped it. A listing larger than
    `AGENTRY_MCP_MAX_RESULT_BYTES` is a 502 naming the bound, and nothing of it is kept."""
    record = await mcp_servers.get(redis, principal.workspace_id, server_id)
    reply: dict[str, Any] = {"id": record.id, "name": record.name}
    try:
        tools = await mcp_tools.list_server_tools(settings, record, redis)
    except mcp_client.McpTooLarge as exc:
        raise BadGateway(exc.message) from None
    except (mcp_client.McpFailure, mcp_servers.ServerUnreadable) as exc:
        return reply | {"ok": False, "tools": [], "error": str(exc)}
    return reply | {"ok": True, "tools": [mcp_tools.tool_view(record.name, tool) for tool in tools]}
