"""An agent's `model` setting resolved to a provider, and which key goes to which host."""

from typing import Any

import pytest

from actors.models.anthropic import AnthropicProvider
from actors.models.base import ModelConfigError, ModelRequest
from actors.models.openai import OpenAIProvider
from actors.models.resolve import resolve_model
from actors.models.scripted import ScriptedProvider
from actors.models.targets import connection_target
from actors.models.templates import TemplateContext
from core.infra.settings import Settings
from core.stores.model_connections import ModelConnection

pytestmark = pytest.mark.unit

OPERATOR_KEY = "sk-operator-secret"
ANTHROPIC_KEY = "sk-ant-operator-secret"


def settings(**overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "openai_api_key": OPERATOR_KEY,
        "anthropic_api_key": ANTHROPIC_KEY,
        "allow_private_urls": True,
        **overrides,
    }
    return Settings.model_validate(values)


async def resolve(config: Any, **overrides: Any) -> Any:
    # Forms that name no connection never touch the store.
    return (await resolve_model(config, settings(**overrides), redis=None, workspace_id="ws")).provider  # type: ignore[arg-type]


async def test_none_uses_the_settings_default() -> None:
    assert isinstance(await resolve(None), ScriptedProvider)
    provider = await resolve(None, default_model="openai:gpt-4o-mini")
    assert isinstance(provider, OpenAIProvider)
    assert provider.model == "gpt-4o-mini"


async def test_string_forms_use_the_operator_endpoint_and_key() -> None:
    provider = await resolve("openai:gpt-4.1", openai_base_url="http://127.0.0.1:9/v1/")
    assert isinstance(provider, OpenAIProvider)
    assert (provider.target.base_url, provider.target.api_key) == ("http://127.0.0.1:9/v1", OPERATOR_KEY)
    claude = await resolve("anthropic:claude-3-5-haiku-latest")
    assert isinstance(claude, AnthropicProvider)
    assert (claude.target.base_url, claude.target.api_key) == ("https://api.anthropic.com", ANTHROPIC_KEY)


async def test_an_agents_own_base_url_never_gets_the_operator_key() -> None:
    provider = await resolve(
        {"provider": "openai", "name": "m", "base_url": "http://127.0.0.1:1/v1", "temperature": 0}
    )
    assert isinstance(provider, OpenAIProvider)
    assert provider.target.api_key is None and provider.target.guarded
    assert provider.target.temperature == 0.0
    claude = await resolve({"provider": "anthropic", "name": "c", "base_url": "http://127.0.0.1:2"})
    assert claude.target.api_key is None


async def test_an_agent_naming_the_operators_own_endpoint_gets_its_key() -> None:
    provider = await resolve({"provider": "openai", "name": "m", "base_url": "https://api.openai.com/v1"})
    assert provider.target.api_key == OPERATOR_KEY and not provider.target.guarded


async def test_a_guarded_base_url_must_pass_the_url_guard() -> None:
    with pytest.raises(ModelConfigError, match="loopback"):
        await resolve(
            {"provider": "openai", "name": "m", "base_url": "http://127.0.0.1:1/v1"}, allow_private_urls=False
        )
    with pytest.raises(ModelConfigError, match="metadata"):
        await resolve({"provider": "openai", "name": "m", "base_url": "http://169.254.169.254/v1"})


def test_a_connection_uses_its_own_key_and_the_operators_only_on_the_operators_host() -> None:
    own = ModelConnection("c", "openai", "http://10.0.0.5:8000/v1", "llama", "sk-conn", None, 8192)
    target = connection_target(settings(), own, None, temperature=None)
    assert (target.model, target.api_key, target.guarded, target.context_window) == (
        "llama",
        "sk-conn",
        True,
        8192,
    )
    keyless = ModelConnection("c", "openai", "http://10.0.0.5:8000/v1", "llama", None, None, None)
    assert connection_target(settings(), keyless, "other", temperature=None).api_key is None
    home = ModelConnection("c", "anthropic", "https://api.anthropic.com", "claude", None, None, None)
    assert connection_target(settings(), home, None, temperature=None).api_key == ANTHROPIC_KEY


async def test_scripted_object_form_plays_its_turns() -> None:
    provider = await resolve({"provider": "scripted", "turns": [{"answer": "scripted answer"}]})
    assert isinstance(provider, ScriptedProvider)
    req = ModelRequest(messages=[], tools=[], call_index=0, context=TemplateContext(query="q"))
    assert (await provider.complete(req)).text == "scripted answer"
    echo = await resolve({"provider": "scripted"})
    assert (await echo.complete(req)).text == "q"


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        ("gpt-4o", "unknown model 'gpt-4o'"),
        ("openai:", "unknown model"),
        ({"provider": "mistral"}, "unknown model provider 'mistral'"),
        ({"name": "gpt-4o"}, "unknown model provider None"),
        ({"provider": "openai"}, "needs a `name`"),
        ({"provider": "anthropic"}, "needs a `name`"),
        ({"provider": "openai", "name": "m", "temperature": 3}, "temperature"),
        ({"provider": "openai", "name": "m", "temperature": True}, "temperature"),
        ({"provider": "openai", "name": "m", "base_url": "ftp://x"}, "base_url"),
        ({"provider": "scripted", "turns": [{"bogus": 1}]}, "turns[0]"),
        ({"connection": ""}, "connection"),
        (42, "must be a string or an object"),
    ],
)
async def test_bad_model_settings_are_clear_errors(config: Any, fragment: str) -> None:
    with pytest.raises(ModelConfigError) as info:
        await resolve(config)
    assert fragment in str(info.value)
