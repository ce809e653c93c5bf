"""Turn an agent's `model` setting into a provider (docs/contract.md section 2, "Model providers").

Forms: `scripted`; `openai:<name>` and `anthropic:<name>` (the operator's endpoint and key);
`{"provider": "scripted", "turns"?}`; `{"provider": "openai" | "anthropic", "name", "base_url"?,
"temperature"?}`; `{"connection": "<name>", "name"?, "temperature"?}` (a workspace's model
connection, `name` defaulting to the connection's `default_model`). Which key goes where is decided
in `actors.models.targets`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis

from actors.models.base import ModelConfigError, ModelProvider
from actors.models.scripted import ScriptedProvider
from actors.models.targets import (
    ModelTarget,
    Provider,
    agent_target,
    check_base_url,
    connection_target,
    operator_target,
)
from core.infra.errors import BadRequest
from core.infra.settings import Settings
from core.stores import model_connections

_PROVIDERS = ("openai", "anthropic")
_FORMS = (
    "`scripted`, `openai:<model-name>`, `anthropic:<model-name>`, an object with `provider` "
    '`scripted`, `openai` or `anthropic`, or `{"connection": <name>}`'
)


@dataclass(frozen=True)
class ResolvedModel:
    """The provider to call, its metrics label, and (for real models) where it goes."""

    provider: ModelProvider
    label: str
    target: ModelTarget | None = None


def provider_for(target: ModelTarget) -> ModelProvider:
    # The SDKs take most of a second to import: every task actor imports this module on start, and
    # one that runs the scripted model (or no real one yet) should not pay for them.
    if target.provider == "anthropic":
        from actors.models.anthropic import AnthropicProvider

        return AnthropicProvider(target)
    from actors.models.openai import OpenAIProvider

    return OpenAIProvider(target)


async def resolve_model(
    model_config: str | Mapping[str, Any] | None,
    settings: Settings,
    *,
    redis: aioredis.Redis,
    workspace_id: str,
) -> ResolvedModel:
    """The provider for an agent's `model` value; AGENTRY_DEFAULT_MODEL when None.

    Raises `ModelConfigError` saying what is wrong with the value, when a named connection does not
    exist, or when a base URL does not pass the URL guard.
    """
    if model_config is None:
        model_config = settings.default_model
    if isinstance(model_config, Mapping) and model_config.get("provider") == "scripted":
        return ResolvedModel(ScriptedProvider(model_config.get("turns")), "scripted")
    if model_config == "scripted":
        return ResolvedModel(ScriptedProvider(), "scripted")
    target = await _target(model_config, settings, redis, workspace_id)
    if target.guarded:
        try:
            await check_base_url(target.base_url, settings)
        except BadRequest as exc:
            raise ModelConfigError(exc.message) from None
    return ResolvedModel(provider_for(target), target.label, target)


async def target_of(
    model_config: str | Mapping[str, Any] | None,
    settings: Settings,
    *,
    redis: aioredis.Redis,
    workspace_id: str,
) -> ModelTarget | None:
    """Where an agent's `model` value sends its calls (None: the scripted model), without the URL
    guard's check of the host: for reading the model's price, not for calling it. Raises
    `ModelConfigError` as `resolve_model` does."""
    if model_config is None:
        model_config = settings.default_model
    if model_config == "scripted" or (
        isinstance(model_config, Mapping) and model_config.get("provider") == "scripted"
    ):
        return None
    return await _target(model_config, settings, redis, workspace_id)


async def _target(
    model_config: str | Mapping[str, Any], settings: Settings, redis: aioredis.Redis, workspace_id: str
) -> ModelTarget:
    if isinstance(model_config, str):
        provider, _, name = model_config.partition(":")
        if provider in _PROVIDERS and name.strip():
            return operator_target(settings, _provider(provider), name.strip())
        raise ModelConfigError(f"unknown model {model_config!r}; expected {_FORMS}")
    if not isinstance(model_config, Mapping):
        raise ModelConfigError(f"the model setting must be a string or an object: {_FORMS}")
    temperature = _temperature(model_config.get("temperature"))
    connection_name = model_config.get("connection")
    if connection_name is not None:
        if not isinstance(connection_name, str) or not connection_name.strip():
            raise ModelConfigError("the model's `connection` must be the name of a model connection")
        try:
            connection = await model_connections.load(redis, settings, workspace_id, connection_name.strip())
        except model_connections.ConnectionUnreadable as exc:
            raise ModelConfigError(str(exc)) from None
        if connection is None:
            raise ModelConfigError(
                f"the workspace has no model connection {connection_name!r}; "
                "create it with PUT /api/v1/integrations/models/{name}"
            )
        chosen = model_config.get("name")
        if chosen is not None and (not isinstance(chosen, str) or not chosen.strip()):
            raise ModelConfigError("the model's `name` must be a model name")
        return connection_target(
            settings, connection, chosen.strip() if isinstance(chosen, str) else None, temperature=temperature
        )
    kind = model_config.get("provider")
    if kind not in _PROVIDERS:
        raise ModelConfigError(f"unknown model provider {kind!r}; expected {_FORMS}")
    provider = str(kind)
    model_name = model_config.get("name")
    if not isinstance(model_name, str) or not model_name.strip():
        raise ModelConfigError(f"the {provider} model needs a `name`, for example `gpt-4o-mini`")
    base_url = model_config.get("base_url")
    if base_url is None:
        return operator_target(settings, _provider(provider), model_name.strip(), temperature=temperature)
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise ModelConfigError(f"the {provider} model's `base_url` must be an http or https URL")
    return agent_target(settings, _provider(provider), model_name.strip(), base_url, temperature=temperature)


def _provider(name: str) -> Provider:
    return "anthropic" if name == "anthropic" else "openai"


def _temperature(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 2:
        raise ModelConfigError("the model's `temperature` must be a number from 0 to 2")
    return float(value)
