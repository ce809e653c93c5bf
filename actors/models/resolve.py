"""Turn an agent's `model` setting into a provider (docs/contract.md section 2, "Model providers")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from actors.models.base import ModelConfigError, ModelProvider
from actors.models.openai import DEFAULT_BASE_URL, OpenAIProvider
from actors.models.scripted import ScriptedProvider

_OPENAI_PREFIX = "openai:"

_FORMS = "`scripted`, `openai:<model-name>`, or an object with `provider` `scripted` or `openai`"


def resolve_provider(
    model_config: str | Mapping[str, Any] | None,
    settings_default: str,
    *,
    openai_api_key: str | None,
    openai_base_url: str | None,
    http_client: httpx.AsyncClient | None = None,
) -> ModelProvider:
    """The provider for an agent's `model` value; `settings_default` (AGENTRY_DEFAULT_MODEL) when None.

    Accepts `scripted`, `openai:<name>`, `{"provider": "scripted", "turns"?: [...]}` (no turns: it
    echoes the query like the bare string) and `{"provider": "openai", "name", "base_url"?,
    "temperature"?}`; other keys of the object are ignored. The openai base URL is the object's
    `base_url`, else `openai_base_url` (OPENAI_BASE_URL), else OpenAI's. `http_client` is shared by
    openai calls when given. Raises `ModelConfigError` saying what is wrong with the value.
    """
    if model_config is None:
        model_config = settings_default
    base_url = openai_base_url or DEFAULT_BASE_URL
    if isinstance(model_config, str):
        if model_config == "scripted":
            return ScriptedProvider()
        if model_config.startswith(_OPENAI_PREFIX) and model_config[len(_OPENAI_PREFIX) :].strip():
            name = model_config[len(_OPENAI_PREFIX) :].strip()
            return OpenAIProvider(name, api_key=openai_api_key, base_url=base_url, client=http_client)
        raise ModelConfigError(f"unknown model {model_config!r}; expected {_FORMS}")
    if not isinstance(model_config, Mapping):
        raise ModelConfigError(f"the model setting must be a string or an object: {_FORMS}")
    provider = model_config.get("provider")
    if provider == "scripted":
        return ScriptedProvider(model_config.get("turns"))
    if provider == "openai":
        return _openai_from_object(
            model_config, api_key=openai_api_key, base_url=base_url, client=http_client
        )
    raise ModelConfigError(f"unknown model provider {provider!r}; expected {_FORMS}")


def _openai_from_object(
    config: Mapping[str, Any], *, api_key: str | None, base_url: str, client: httpx.AsyncClient | None
) -> OpenAIProvider:
    name = config.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ModelConfigError("the openai model needs a `name`, for example `gpt-4o-mini`")
    base_url = config.get("base_url") or base_url
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise ModelConfigError("the openai model's `base_url` must be an http or https URL")
    temperature = config.get("temperature")
    if temperature is not None and (
        isinstance(temperature, bool) or not isinstance(temperature, int | float) or not 0 <= temperature <= 2
    ):
        raise ModelConfigError("the openai model's `temperature` must be a number from 0 to 2")
    return OpenAIProvider(
        name.strip(),
        api_key=api_key,
        base_url=base_url,
        temperature=None if temperature is None else float(temperature),
        client=client,
    )


def model_label(model_config: str | Mapping[str, Any] | None, settings_default: str) -> str:
    """The model's name in metrics: `scripted`, `openai:<name>`, or `invalid` (never the whole setting)."""
    if model_config is None:
        model_config = settings_default
    if isinstance(model_config, str):
        name = model_config.strip()
        if name == "scripted" or (name.startswith(_OPENAI_PREFIX) and name[len(_OPENAI_PREFIX) :].strip()):
            return name
        return "invalid"
    if isinstance(model_config, Mapping):
        provider = model_config.get("provider")
        if provider == "scripted":
            return "scripted"
        openai_name = model_config.get("name")
        if provider == "openai" and isinstance(openai_name, str) and openai_name.strip():
            return _OPENAI_PREFIX + openai_name.strip()
    return "invalid"
