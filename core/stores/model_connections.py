"""A workspace's named model connections (`/api/v1/integrations/models/{name}`).

A connection says which provider serves a model (`openai`: any OpenAI-compatible endpoint;
`anthropic`: the Messages API), where (`base_url`), with which key, and optionally what it costs and
how large its context window is. The API key is sealed at rest (core.infra.secretbox) and is never
returned, logged or shown to a model: the runtime opens it only to call the provider.

Whether a base URL may be reached at all is decided by the layer that calls it (the URL guard lives
above `core/`); this module only stores and loads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import redis.asyncio as aioredis
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from core.infra import keys
from core.infra.errors import BadRequest
from core.infra.ids import now_iso
from core.infra.settings import Settings

if TYPE_CHECKING:
    from core.infra.secretbox import SecretBox

Provider = Literal["openai", "anthropic"]

#: Where each provider's own API lives; a connection without `base_url` calls it.
PROVIDER_HOME: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}

#: Connection names: short, URL-safe, so they read well in agent configs and paths.
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: Longest accepted base URL, key or model name; real ones are far shorter.
MAX_FIELD_CHARS = 2000

CONNECTED_ACTION = "model_connection.saved"
DELETED_ACTION = "model_connection.deleted"

_SEAL_PURPOSE = "model-connection"


class Price(BaseModel):
    """USD per million tokens. Cached input tokens cost `cache_read` (read from the provider's prompt
    cache) and `cache_write` (written to it), each `input` when not given."""

    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0, le=1_000_000)
    output: float = Field(ge=0, le=1_000_000)
    cache_read: float | None = Field(None, ge=0, le=1_000_000)
    cache_write: float | None = Field(None, ge=0, le=1_000_000)


class ConnectionRequest(BaseModel):
    """Body of `PUT /api/v1/integrations/models/{name}`."""

    model_config = ConfigDict(extra="forbid")

    provider: Provider
    base_url: str | None = Field(
        None, max_length=MAX_FIELD_CHARS, description="Default: the provider's own API."
    )
    api_key: SecretStr | None = Field(None, description="Write-only: sealed at rest, never returned.")
    default_model: str = Field(min_length=1, max_length=200)
    price: Price | None = Field(None, description="USD per million input and output tokens.")
    context_window: int | None = Field(None, ge=1024, le=10_000_000, description="In tokens.")

    @field_validator("default_model")
    @classmethod
    def _model_present(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("default_model must not be blank")
        return value.strip()

    @field_validator("api_key")
    @classmethod
    def _key_size(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and len(value.get_secret_value()) > MAX_FIELD_CHARS:
            raise ValueError(f"api_key is longer than {MAX_FIELD_CHARS} characters")
        return value


class ConnectionView(BaseModel):
    """What the API shows of a connection: never its key."""

    name: str
    provider: Provider
    base_url: str
    default_model: str
    has_api_key: bool
    price: Price | None = None
    context_window: int | None = None
    updated_at: str


@dataclass(frozen=True)
class ModelConnection:
    """A stored connection with its key opened, for one model call; never shown to anyone."""

    name: str
    provider: Provider
    base_url: str
    default_model: str
    api_key: str | None = field(repr=False)
    price: Price | None
    context_window: int | None


class ConnectionUnreadable(Exception):
    """The sealed key cannot be opened (the service secret changed); reconnecting fixes it."""


def check_name(name: str) -> str:
    if not NAME_PATTERN.match(name):
        raise BadRequest(
            "a model connection name is 1-64 letters, digits, `_`, `.` or `-`, starting with a letter or digit"
        )
    return name


def _box(settings: Settings) -> SecretBox:
    # Sealing (cryptography) loads on the first key opened, not with every importer of this module:
    # a task actor imports it to resolve models before it knows it needs a connection (issue 29).
    from core.infra.secretbox import SecretBox

    return SecretBox(settings.resolved_secret(), _SEAL_PURPOSE)


def _view(name: str, raw: dict[str, str]) -> ConnectionView:
    return ConnectionView(
        name=name,
        provider="anthropic" if raw.get("provider") == "anthropic" else "openai",
        base_url=raw.get("base_url", ""),
        default_model=raw.get("default_model", ""),
        has_api_key=bool(raw.get("api_key")),
        price=Price.model_validate_json(raw["price"]) if raw.get("price") else None,
        context_window=int(raw["context_window"]) if raw.get("context_window") else None,
        updated_at=raw.get("updated_at", ""),
    )


async def save(
    redis: aioredis.Redis,
    settings: Settings,
    workspace_id: str,
    name: str,
    request: ConnectionRequest,
    base_url: str,
    *,
    key_id: str | None,
) -> ConnectionView:
    """Store (or replace) connection `name`; `base_url` is the already checked URL calls go to."""
    record: dict[str, str] = {
        "provider": request.provider,
        "base_url": base_url,
        "default_model": request.default_model,
        "updated_at": now_iso(),
    }
    if request.api_key is not None and request.api_key.get_secret_value():
        record["api_key"] = _box(settings).seal(request.api_key.get_secret_value())
    if request.price is not None:
        record["price"] = request.price.model_dump_json()
    if request.context_window is not None:
        record["context_window"] = str(request.context_window)
    key = keys.model_connection(workspace_id, name)
    async with redis.pipeline(transaction=True) as pipe:
        pipe.delete(key)
        pipe.hset(key, mapping=record)
        await pipe.execute()
    from core.stores import audit

    await audit.record(
        redis,
        workspace_id,
        CONNECTED_ACTION,
        key_id=key_id,
        details={"name": name, "provider": request.provider},
    )
    return _view(name, record)


async def view(redis: aioredis.Redis, workspace_id: str, name: str) -> ConnectionView | None:
    raw: dict[str, str] = await redis.hgetall(keys.model_connection(workspace_id, name))
    return _view(name, raw) if raw else None


async def delete(redis: aioredis.Redis, workspace_id: str, name: str, *, key_id: str | None) -> bool:
    """Forget connection `name` and its key; False when there was none."""
    removed = await redis.delete(keys.model_connection(workspace_id, name))
    if removed:
        from core.stores import audit

        await audit.record(redis, workspace_id, DELETED_ACTION, key_id=key_id, details={"name": name})
    return bool(removed)


async def load(
    redis: aioredis.Redis, settings: Settings, workspace_id: str, name: str
) -> ModelConnection | None:
    """Connection `name` with its key opened, or None when the workspace has none by that name."""
    raw: dict[str, str] = await redis.hgetall(keys.model_connection(workspace_id, name))
    if not raw:
        return None
    from core.infra.secretbox import SealedValueError

    try:
        api_key = _box(settings).open(raw["api_key"]) if raw.get("api_key") else None
    except SealedValueError:
        raise ConnectionUnreadable(
            f"the model connection {name!r}'s stored key cannot be read; save the connection again"
        ) from None
    shown = _view(name, raw)
    return ModelConnection(
        name=name,
        provider=shown.provider,
        base_url=shown.base_url,
        default_model=shown.default_model,
        api_key=api_key,
        price=shown.price,
        context_window=shown.context_window,
    )
