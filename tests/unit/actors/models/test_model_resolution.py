from typing import Any

import httpx
import pytest

from actors.models.base import ModelConfigError
from actors.models.openai import DEFAULT_BASE_URL, OpenAIProvider
from actors.models.resolve import resolve_provider
from actors.models.scripted import ScriptedProvider

pytestmark = pytest.mark.unit


def resolve(config: Any, default: str = "scripted", **kwargs: Any) -> Any:
    options = {"openai_api_key": "sk-test", "openai_base_url": None, **kwargs}
    return resolve_provider(config, default, **options)


def test_none_uses_the_settings_default() -> None:
    assert isinstance(resolve(None), ScriptedProvider)
    provider = resolve(None, "openai:gpt-4o-mini")
    assert isinstance(provider, OpenAIProvider)
    assert provider.model == "gpt-4o-mini"


def test_openai_string_form() -> None:
    provider = resolve("openai:gpt-4.1", openai_base_url="http://127.0.0.1:9/v1/")
    assert isinstance(provider, OpenAIProvider)
    assert provider.model == "gpt-4.1"
    assert provider.base_url == "http://127.0.0.1:9/v1"
    assert provider.temperature is None


def test_openai_object_form_with_own_base_url_and_temperature() -> None:
    client = httpx.AsyncClient()
    provider = resolve(
        {"provider": "openai", "name": "gpt-4o-mini", "base_url": "http://h:1/v1", "temperature": 0},
        openai_base_url="http://ignored/v1",
        http_client=client,
    )
    assert isinstance(provider, OpenAIProvider)
    assert (provider.model, provider.base_url, provider.temperature) == ("gpt-4o-mini", "http://h:1/v1", 0.0)


def test_openai_object_defaults_to_settings_then_openai_base_url() -> None:
    assert (
        resolve({"provider": "openai", "name": "m"}, openai_base_url="http://s/v1").base_url == "http://s/v1"
    )
    assert resolve({"provider": "openai", "name": "m"}).base_url == DEFAULT_BASE_URL


async def test_scripted_object_form_plays_its_turns() -> None:
    from actors.models.base import ModelRequest
    from actors.models.templates import TemplateContext

    provider = resolve({"provider": "scripted", "turns": [{"answer": "scripted answer"}]})
    assert isinstance(provider, ScriptedProvider)
    req = ModelRequest(messages=[], tools=[], call_index=0, context=TemplateContext(query="q"))
    assert (await provider.complete(req)).text == "scripted answer"
    echo = resolve({"provider": "scripted"})
    assert (await echo.complete(req)).text == "q"


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        ("gpt-4o", "unknown model 'gpt-4o'"),
        ("openai:", "unknown model"),
        ("anthropic:claude", "unknown model"),
        ({"provider": "anthropic"}, "unknown model provider 'anthropic'"),
        ({"name": "gpt-4o"}, "unknown model provider None"),
        ({"provider": "openai"}, "needs a `name`"),
        ({"provider": "openai", "name": "m", "temperature": 3}, "temperature"),
        ({"provider": "openai", "name": "m", "temperature": True}, "temperature"),
        ({"provider": "openai", "name": "m", "base_url": "ftp://x"}, "base_url"),
        ({"provider": "scripted", "turns": [{"bogus": 1}]}, "turns[0]"),
        (42, "must be a string or an object"),
    ],
)
def test_bad_model_settings_are_clear_errors(config: Any, fragment: str) -> None:
    with pytest.raises(ModelConfigError) as info:
        resolve(config)
    assert fragment in str(info.value)
