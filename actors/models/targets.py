"""Where a model call goes and with which key: an agent's `model` setting made concrete.

The operator's keys (OPENAI_API_KEY, ANTHROPIC_API_KEY) go only to the operator's own endpoint for
that provider (OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else the provider's API). A base URL named by an
agent or by a workspace's connection is someone else's host: it gets the connection's own key or no
key at all, and must pass the URL guard (private addresses only where AGENTRY_ALLOW_PRIVATE_URLS
allows them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import httpx

from core.infra.errors import BadRequest
from core.infra.settings import Settings
from core.infra.url_guard import checked_address, parse_url
from core.stores.model_connections import PROVIDER_HOME, ModelConnection, Price

Provider = Literal["openai", "anthropic"]


@dataclass(frozen=True)
class ModelTarget:
    """One provider endpoint and model. `guarded`: the base URL came from a workspace, so every call
    checks it against the URL guard first and connects only to the checked address; `allow_private`
    is AGENTRY_ALLOW_PRIVATE_URLS for that check."""

    provider: Provider
    model: str
    base_url: str
    api_key: str | None = field(repr=False)
    guarded: bool
    temperature: float | None = None
    price: Price | None = None
    context_window: int | None = None
    connection: str | None = None
    allow_private: bool = False

    @property
    def label(self) -> str:
        """The model's name in metrics and usage: `<provider>:<model>`, never a URL or key."""
        return f"{self.provider}:{self.model}"


def operator_endpoint(settings: Settings, provider: Provider) -> tuple[str, str | None]:
    """The operator's base URL for `provider` and the operator's key for it."""
    if provider == "anthropic":
        return (settings.anthropic_base_url or PROVIDER_HOME["anthropic"]), settings.anthropic_api_key
    return (settings.openai_base_url or PROVIDER_HOME["openai"]), settings.openai_api_key


def _origin(url: str) -> tuple[str, str, int | None]:
    parsed = httpx.URL(url.strip())
    return parsed.scheme, parsed.host.lower(), parsed.port


def same_origin(a: str, b: str) -> bool:
    try:
        return _origin(a) == _origin(b)
    except (httpx.InvalidURL, TypeError):
        return False


def operator_target(
    settings: Settings, provider: Provider, model: str, *, temperature: float | None = None
) -> ModelTarget:
    """A model served by the operator's own endpoint, with the operator's key."""
    base_url, api_key = operator_endpoint(settings, provider)
    return ModelTarget(provider, model, base_url.rstrip("/"), api_key, False, temperature)


def agent_target(
    settings: Settings, provider: Provider, model: str, base_url: str, *, temperature: float | None
) -> ModelTarget:
    """A model at a base URL an agent named: the operator's key only when it is the operator's endpoint."""
    operator_url, operator_key = operator_endpoint(settings, provider)
    if same_origin(base_url, operator_url):
        return ModelTarget(provider, model, operator_url.rstrip("/"), operator_key, False, temperature)
    return ModelTarget(
        provider,
        model,
        base_url.rstrip("/"),
        None,
        True,
        temperature,
        allow_private=settings.allow_private_urls,
    )


def connection_target(
    settings: Settings, connection: ModelConnection, model: str | None, *, temperature: float | None
) -> ModelTarget:
    """A model behind a workspace's connection: its own key; the operator's only on the operator's endpoint."""
    operator_url, operator_key = operator_endpoint(settings, connection.provider)
    own_endpoint = same_origin(connection.base_url, operator_url)
    api_key = connection.api_key or (operator_key if own_endpoint else None)
    return ModelTarget(
        provider=connection.provider,
        model=model or connection.default_model,
        base_url=connection.base_url.rstrip("/"),
        api_key=api_key,
        guarded=not own_endpoint,
        temperature=temperature,
        price=connection.price,
        context_window=connection.context_window,
        connection=connection.name,
        allow_private=settings.allow_private_urls,
    )


async def check_base_url(url: str, settings: Settings) -> str:
    """`url` when its host passes the URL guard; BadRequest (BlockedURL) saying why otherwise."""
    parsed = parse_url(url, what="model base URL")
    if parsed.query or parsed.fragment:
        raise BadRequest("the model base URL must not carry a query or a fragment")
    await checked_address(parsed, allow_private=settings.allow_private_urls, what="model base URL")
    return url.strip().rstrip("/")
