"""A spend cap needs a price: an agent whose model nobody prices cannot be held to one.

A model neither a connection's `price` nor the `genai-prices` data prices costs an unknown amount
(actors.models.pricing), so `settings.spend_cap_usd` and `settings.tree_spend_cap_usd` could never
fire on it. Saving or running such an agent with a cap is refused (400, actors.run_checks), and a
task that finds itself on such a model under a cap anyway (its connection's price was removed, or
a tree budget from the agent that started its tree applies) pauses as over that cap before its next
model call, instead of running uncapped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import redis.asyncio as aioredis

from actors import tree_budget
from actors.models.base import ModelConfigError
from actors.models.pricing import is_priced
from actors.models.resolve import target_of
from actors.policy import AgentPolicy
from core.infra.settings import Settings
from core.tasks import Task

#: The agent settings that cap spending in USD.
CAP_SETTINGS = ("spend_cap_usd", "tree_spend_cap_usd")


def caps_set(config: Mapping[str, Any]) -> list[str]:
    """The spend caps an agent config sets, as `settings.<name>`."""
    agent_settings = config.get("settings")
    if not isinstance(agent_settings, Mapping):
        return []
    return [
        f"settings.{name}"
        for name in CAP_SETTINGS
        if isinstance(agent_settings.get(name), int | float)
        and not isinstance(agent_settings.get(name), bool)
    ]


async def unpriced_model(
    model_config: Any, settings: Settings, redis: aioredis.Redis, workspace_id: str
) -> str | None:
    """The label (`<provider>:<model>`) of the agent's model when it has no known price; None when it
    has one, or when the model setting is unusable (its call then fails with its own error)."""
    try:
        target = await target_of(model_config, settings, redis=redis, workspace_id=workspace_id)
    except ModelConfigError:
        return None
    return None if is_priced(target) else (target.label if target is not None else None)


def unpriced_text(label: str, caps: list[str]) -> str:
    """Why a cap cannot be kept on model `label`, and how to give the model a price."""
    named = " and ".join(caps) if caps else "the task tree's spend budget"
    return (
        f"the model {label} has no known price, so {named} cannot be enforced: give it a price with a "
        'model connection\'s `price` (PUT /api/v1/integrations/models/{name} with "price": '
        '{"input": <USD per million tokens>, "output": <USD per million tokens>}) and set the agent\'s '
        '`model` to {"connection": "<name>"}, or remove the cap'
    )


async def unpriced_under_cap(
    redis: aioredis.Redis, settings: Settings, task: Task, policy: AgentPolicy, latest: AgentPolicy
) -> tuple[str, str] | None:
    """The pause text and reason when `task` would call a model with no known price while a spend
    cap applies to it (its agent's latest `spend_cap_usd`, or its tree's budget); None otherwise."""
    label = await unpriced_model(policy.model, settings, redis, task.workspace_id)
    if label is None:
        return None
    if latest.spend_cap_usd is not None:
        return unpriced_text(label, ["settings.spend_cap_usd"]), "task_spend_cap_exceeded"
    if await tree_budget.budgeted(redis, settings, task):
        return unpriced_text(label, []), "tree_spend_cap_exceeded"
    return None
