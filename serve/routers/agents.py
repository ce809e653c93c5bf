"""/api/v1/agents: create, read, list, publish, delete."""

from __future__ import annotations

from fastapi import APIRouter, Request, status

from actors.run_checks import check_config
from core.infra.models import Agent, PageOf
from core.stores import agents, delegation_profiles
from serve.deps import PrincipalDep, RedisDep, SettingsDep
from serve.openapi_params import AgentIdPath
from serve.openapi_responses import bool_query
from serve.paging import PagingDep
from serve.params import strict_bool
from serve.schemas import AgentCreate, AgentPatch, BackfillReply, DeletedAgent

router = APIRouter(prefix="/api/v1/agents", tags=["agents"])


@router.post(
    "/delegation-profiles/backfill",
    response_model=BackfillReply,
    openapi_extra={"parameters": [bool_query("force", "Regenerate every profile.", default=False)]},
)
async def backfill_profiles(request: Request, principal: PrincipalDep, redis: RedisDep) -> BackfillReply:
    """Generate delegation profiles for the workspace's agents that have none (all with `force=true`)."""
    force = strict_bool(request, "force", False)
    return BackfillReply.model_validate(
        await delegation_profiles.backfill(redis, principal.workspace_id, force=force)
    )


@router.post("", status_code=status.HTTP_201_CREATED, response_model=Agent)
async def create_agent(
    body: AgentCreate, principal: PrincipalDep, redis: RedisDep, settings: SettingsDep
) -> Agent:
    """Create an agent, published as version 1."""
    await check_config(redis, settings, principal.workspace_id, body.config)
    return await agents.create_agent(
        redis,
        principal.workspace_id,
        name=body.name,
        config=body.config,
        is_active=body.is_active,
        is_public=body.is_public,
    )


@router.get("", response_model=PageOf)
async def list_agents(principal: PrincipalDep, redis: RedisDep, paging: PagingDep) -> PageOf:
    """List agents: one item per group, its latest published version, newest first."""
    return paging.signed(
        await agents.list_agents(redis, principal.workspace_id, cursor=paging.cursor, limit=paging.limit)
    )


@router.get("/{agent_id}", response_model=Agent)
async def get_agent(agent_id: AgentIdPath, principal: PrincipalDep, redis: RedisDep) -> Agent:
    """Get one version of an agent."""
    return await agents.get_agent(redis, principal.workspace_id, agent_id)


@router.patch("/{agent_id}", response_model=Agent)
async def update_agent(
    agent_id: AgentIdPath, body: AgentPatch, principal: PrincipalDep, redis: RedisDep, settings: SettingsDep
) -> Agent:
    """Rename, (de)activate or publish a new version (when `config` is given)."""
    await check_config(redis, settings, principal.workspace_id, body.config)
    return await agents.update_agent(
        redis,
        principal.workspace_id,
        agent_id,
        name=body.name,
        config=body.config,
        is_active=body.is_active,
        is_public=body.is_public,
    )


@router.delete("/{agent_id}", response_model=DeletedAgent)
async def delete_agent(agent_id: AgentIdPath, principal: PrincipalDep, redis: RedisDep) -> DeletedAgent:
    """Soft-delete the agent group; its versions answer 404 afterwards."""
    return DeletedAgent.model_validate(await agents.delete_agent(redis, principal.workspace_id, agent_id))


@router.post("/{agent_id}/delegation-profile", response_model=Agent)
async def generate_profile(agent_id: AgentIdPath, principal: PrincipalDep, redis: RedisDep) -> Agent:
    """Generate the agent's delegation profile from its config and publish it as a new version."""
    return await delegation_profiles.save_profile(redis, principal.workspace_id, agent_id)


@router.get("/{agent_id}/versions", response_model=PageOf)
async def list_versions(
    agent_id: AgentIdPath,
    principal: PrincipalDep,
    redis: RedisDep,
    paging: PagingDep,
) -> PageOf:
    """List the versions of an agent, newest first."""
    page = await agents.list_versions(
        redis, principal.workspace_id, agent_id, cursor=paging.cursor, limit=paging.limit
    )
    return paging.signed(page)
