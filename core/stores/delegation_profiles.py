"""Delegation profiles: how an agent is described to other agents that may delegate to it.

Generated from the agent's own config, without a model, so a profile says only what the agent's
author wrote: the first sentences of its system prompt, and an example input from its outputs.
"""

from __future__ import annotations

import re
from typing import Any

import redis.asyncio as aioredis

from core.infra import keys
from core.infra.models import Agent
from core.stores import agents

#: Longest generated description.
MAX_DESCRIPTION_CHARS = 300
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def generate_profile(name: str, config: dict[str, Any]) -> dict[str, str]:
    prompt = " ".join(str(config.get("system_prompt") or "").split())
    description = ""
    for sentence in _SENTENCE.split(prompt):
        if len(description) + len(sentence) + 1 > MAX_DESCRIPTION_CHARS:
            break
        description = f"{description} {sentence}".strip()
    if not description:
        description = prompt[:MAX_DESCRIPTION_CHARS] or f"{name}."
    wanted: list[str] = []
    schema = config.get("output_schema")
    if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
        wanted = list(schema["properties"])
    wanted += [str(f["key"]) for f in config.get("data_fields") or [] if isinstance(f, dict) and f.get("key")]
    example = (
        f"A request whose answer gives: {', '.join(dict.fromkeys(wanted))}"
        if wanted
        else f"A task for {name}"
    )
    return {"description": description, "example_input": example}


def has_profile(config: dict[str, Any]) -> bool:
    profile = config.get("delegation_profile")
    return isinstance(profile, dict) and bool(profile.get("description"))


async def save_profile(redis: aioredis.Redis, workspace_id: str, agent_id: str) -> Agent:
    """Generate the profile and publish it as a new version of the agent."""
    agent = await agents.get_agent(redis, workspace_id, agent_id)
    latest = await agents.latest(
        redis, workspace_id, await agents.load_group(redis, workspace_id, agent.agent_group_id)
    )
    config = dict(latest.config) | {"delegation_profile": generate_profile(agent.name, latest.config)}
    return await agents.update_agent(redis, workspace_id, latest.id, config=config)


async def backfill(redis: aioredis.Redis, workspace_id: str, *, force: bool) -> dict[str, list[str]]:
    """Profiles for every agent of the workspace that has none (or for all, with `force`)."""
    updated: list[str] = []
    skipped: list[str] = []
    members: list[str] = await redis.zrange(keys.agent_groups_index(workspace_id), 0, -1)
    for member in members:
        group_id = member.split(":", 1)[1]
        group = await agents.load_group(redis, workspace_id, group_id)
        latest = await agents.latest(redis, workspace_id, group)
        if has_profile(latest.config) and not force:
            skipped.append(group_id)
            continue
        await save_profile(redis, workspace_id, latest.id)
        updated.append(group_id)
    return {"updated": updated, "skipped": skipped}
