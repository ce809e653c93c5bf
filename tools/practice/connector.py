"""The workspace's practice-management connector (docs/spec.md "Practice-management connector", docs/contract.md section 8).

Connecting proves the client credentials with the client-credentials grant and stores them with the
access token; nothing is stored when the grant fails, so an earlier connection stays as it was. The
client secret and the access token are sealed at rest (core.infra.secretbox) and are never returned, logged
or shown to a model: the practice tools load the connector themselves.

The platform keeps the token fresh: a call made when the token expires within
`TOKEN_REFRESH_MARGIN_SECONDS` mints a new one first. Minting happens under a per-workspace Redis lock
and re-reads the stored token once the lock is held, so many concurrent calls mint once. An API call
that still answers `invalid_token` gets one reactive re-mint (tools.practice.session.call_with_token).
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal, TypeVar
from urllib.parse import urlsplit

import httpx
import redis.asyncio as aioredis
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from core.infra import keys
from core.infra.errors import BadRequest
from core.infra.ids import iso, now_iso
from core.infra.locks import LockTimeout, RedisLock
from core.infra.secretbox import SealedValueError, SecretBox
from core.infra.settings import Settings
from core.infra.url_guard import BlockedURL, GuardedTransport
from core.stores import audit
from tools.practice.client import (
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_RETRY_BACKOFF_SECONDS,
    DEFAULT_TIMEOUT_SECONDS,
    PracticeClient,
    Token,
)
from tools.practice.errors import (
    ConnectorChanged,
    ConnectorUnreadable,
    PracticeError,
    PracticeHostRefused,
    PracticeUnavailableError,
)
from tools.practice.session import call_with_token

T = TypeVar("T")

Environment = Literal["staging", "production"]
#: docs/spec.md "Practice-management connector" rule 1: `environment` defaults to staging when unset.
DEFAULT_ENVIRONMENT: Environment = "staging"

#: A token that expires within this many seconds is replaced before a call uses it (issue 6: refreshed
#: by the platform ahead of expiry). A token that lives shorter than twice this is replaced in the
#: second half of its life instead, so a short-lived token is not re-minted on every call.
TOKEN_REFRESH_MARGIN_SECONDS = 60.0
#: The longest a token mint can take: every attempt of the client timing out, plus its back-offs.
MAX_MINT_SECONDS = DEFAULT_MAX_ATTEMPTS * DEFAULT_TIMEOUT_SECONDS + DEFAULT_RETRY_BACKOFF_SECONDS * (
    2**DEFAULT_MAX_ATTEMPTS
)
#: Lifetime of the token lock between renewals; a holder that dies frees it after this long.
TOKEN_LOCK_TTL_SECONDS = 10.0
#: How long a call waits for another call's mint before giving up (retryably).
TOKEN_LOCK_WAIT_SECONDS = MAX_MINT_SECONDS + 5.0
#: Longest accepted client id, client secret, account list or base URL; real ones are far shorter.
MAX_CONNECTOR_FIELD_CHARS = 2000

#: Purpose of the connector's encryption key (one key per purpose, core.infra.secretbox).
_SEAL_PURPOSE = "practice-connector"
_STORE_TOKEN = """
if redis.call('HGET', KEYS[1], 'connection_id') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'access_token', ARGV[2], 'token_expires_at', ARGV[3], 'token_minted_at', ARGV[4])
  return 1
end
return 0
"""

CONNECTED_ACTION = "practice.connected"
DISCONNECTED_ACTION = "practice.disconnected"


class ConnectRequest(BaseModel):
    """Body of `PUT /api/v1/integrations/practice` (docs/contract.md section 8)."""

    model_config = ConfigDict(extra="forbid")

    client_id: str = Field(min_length=1, max_length=MAX_CONNECTOR_FIELD_CHARS)
    client_secret: SecretStr = Field(description="Write-only: never returned.")
    environment: Environment | None = Field(None, description="`staging` (default) or `production`.")
    allowed_account_ids: str | list[str] | None = Field(
        None, description="Comma-separated account ids (or a list); blank allows every account."
    )
    base_url: str | None = Field(
        None, max_length=MAX_CONNECTOR_FIELD_CHARS, description="Default: the environment's setting."
    )

    @field_validator("client_id")
    @classmethod
    def _client_id_present(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("client_id must not be blank")
        return value.strip()

    @field_validator("client_secret")
    @classmethod
    def _secret_present(cls, value: SecretStr) -> SecretStr:
        secret = value.get_secret_value()
        if not secret.strip():
            raise ValueError("client_secret must not be blank")
        if len(secret) > MAX_CONNECTOR_FIELD_CHARS:
            raise ValueError(f"client_secret is longer than {MAX_CONNECTOR_FIELD_CHARS} characters")
        return value

    @field_validator("allowed_account_ids")
    @classmethod
    def _accounts_text(cls, value: str | list[str] | None) -> str:
        text = ",".join(part.strip() for part in value) if isinstance(value, list) else (value or "").strip()
        if len(text) > MAX_CONNECTOR_FIELD_CHARS:
            raise ValueError(f"allowed_account_ids is longer than {MAX_CONNECTOR_FIELD_CHARS} characters")
        return text


class ConnectionStatus(BaseModel):
    """What the API shows of the connector: never a secret or a token."""

    connected: bool
    environment: Environment | None = None
    allowed_account_ids: str | None = None
    token_expires_at: str | None = None


@dataclass(frozen=True)
class PracticeConnection:
    """A stored connector with its secrets opened, for the tools of one call; never shown to anyone."""

    workspace_id: str
    connection_id: str
    client_id: str
    client_secret: str = field(repr=False)
    environment: Environment
    allowed_account_ids: str
    practice_url: str
    token: Token | None
    token_minted_at: dt.datetime | None = None

    def refresh_margin(self) -> float:
        """Seconds before expiry at which the token is replaced (see TOKEN_REFRESH_MARGIN_SECONDS)."""
        if self.token is None or self.token_minted_at is None:
            return TOKEN_REFRESH_MARGIN_SECONDS
        lifetime = (self.token.expires_at - self.token_minted_at).total_seconds()
        return max(0.0, min(TOKEN_REFRESH_MARGIN_SECONDS, lifetime / 2))


def _box(settings: Settings) -> SecretBox:
    return SecretBox(settings.resolved_secret(), _SEAL_PURPOSE)


def resolve_practice_url(settings: Settings, environment: Environment, base_url: str | None) -> str:
    """The host calls go to: `base_url` when given, else the environment's setting (docs/contract.md section 8).

    BadRequest when neither is set or the URL is not an http(s) URL without query or fragment.
    """
    if base_url and base_url.strip():
        url, origin = base_url.strip(), "base_url"
    else:
        configured = (
            settings.practice_production_url if environment == "production" else settings.practice_staging_url
        )
        if not configured:
            variable = f"AGENTRY_PRACTICE_{environment.upper()}_URL"
            raise BadRequest(
                f"no practice-management URL is known for the {environment} environment: "
                f"pass base_url, or have the operator set {variable}"
            )
        url, origin = configured.strip(), f"the {environment} practice URL setting"
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadRequest(f"{origin} must be an http or https URL with a host")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise BadRequest(f"{origin} must not carry credentials, a query or a fragment")
    return url.rstrip("/")


def _operator_url(settings: Settings, environment: Environment) -> str | None:
    configured = (
        settings.practice_production_url if environment == "production" else settings.practice_staging_url
    )
    return configured.strip().rstrip("/") if configured and configured.strip() else None


def practice_transport(
    settings: Settings, practice_url: str, environment: Environment
) -> httpx.AsyncBaseTransport | None:
    """The transport of requests to the connector's host: the SSRF guard, unless the operator set that host.

    A `base_url` is chosen by a caller, and the service sends it credentials and patient data, so every
    request to it (the connect grant and each later call) resolves the host again, refuses private,
    loopback, link-local and metadata addresses, and connects to the address it checked. A host the
    operator configured for the environment may be an internal one.
    """
    if practice_url == _operator_url(settings, environment):
        return None
    return GuardedTransport(allow_private=settings.allow_private_urls, what="base_url")


def _status(raw: dict[str, str]) -> ConnectionStatus:
    if not raw:
        return ConnectionStatus(connected=False)
    environment = raw.get("environment")
    return ConnectionStatus(
        connected=True,
        environment="production" if environment == "production" else "staging",
        allowed_account_ids=raw.get("allowed_account_ids", ""),
        token_expires_at=raw.get("token_expires_at"),
    )


async def connect(
    redis: aioredis.Redis,
    settings: Settings,
    workspace_id: str,
    request: ConnectRequest,
    *,
    key_id: str | None,
) -> ConnectionStatus:
    """Prove the credentials with the grant, then store the connector (replacing any earlier one).

    BadRequest when there is no practice URL or the grant fails; then nothing is stored or changed.
    """
    environment = request.environment or DEFAULT_ENVIRONMENT
    url = resolve_practice_url(settings, environment, request.base_url)
    secret = request.client_secret.get_secret_value()
    try:
        async with PracticeClient(url, transport=practice_transport(settings, url, environment)) as client:
            token = await client.mint_token(request.client_id, secret)
        minted_at = now_iso()
    except PracticeError as error:
        raise BadRequest(f"the practice integration could not connect: {error.message}") from None
    box = _box(settings)
    record: dict[str, str] = {
        "connection_id": str(uuid.uuid4()),
        "client_id": request.client_id,
        "client_secret": box.seal(secret),
        "environment": environment,
        "allowed_account_ids": str(request.allowed_account_ids or ""),
        "practice_url": url,
        "access_token": box.seal(token.access_token),
        "token_expires_at": iso(token.expires_at),
        "token_minted_at": minted_at,
        "connected_at": minted_at,
    }
    key = keys.practice_connection(workspace_id)
    async with redis.pipeline(transaction=True) as pipe:
        pipe.delete(key)
        pipe.hset(key, mapping=dict(record.items()))
        await pipe.execute()
    await audit.record(
        redis, workspace_id, CONNECTED_ACTION, key_id=key_id, details={"environment": environment}
    )
    return _status(record)


async def connection_status(redis: aioredis.Redis, workspace_id: str) -> ConnectionStatus:
    """Whether the workspace is connected, to which environment, and until when its token runs."""
    return _status(await redis.hgetall(keys.practice_connection(workspace_id)))


async def disconnect(redis: aioredis.Redis, workspace_id: str, *, key_id: str | None) -> ConnectionStatus:
    """Remove the connector and its secrets; idempotent."""
    removed = await redis.delete(keys.practice_connection(workspace_id))
    if removed:
        await audit.record(redis, workspace_id, DISCONNECTED_ACTION, key_id=key_id)
    return ConnectionStatus(connected=False)


def _parse_moment(value: str | None) -> dt.datetime | None:
    if not value:
        return None
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


async def load_connection(
    redis: aioredis.Redis, settings: Settings, workspace_id: str
) -> PracticeConnection | None:
    """The workspace's connector with its secrets opened, or None when it is not connected.

    ConnectorUnreadable when the sealed values cannot be opened (the service secret changed).
    """
    raw: dict[str, str] = await redis.hgetall(keys.practice_connection(workspace_id))
    if not raw:
        return None
    box = _box(settings)
    try:
        secret = box.open(raw["client_secret"])
        sealed_token = raw.get("access_token")
        access_token = box.open(sealed_token) if sealed_token else None
    except (SealedValueError, KeyError):
        raise ConnectorUnreadable(
            "the practice integration's stored credentials cannot be read; reconnect the integration"
        ) from None
    expires_at = _parse_moment(raw.get("token_expires_at"))
    token = Token(access_token, expires_at) if access_token and expires_at else None
    return PracticeConnection(
        workspace_id=workspace_id,
        connection_id=raw.get("connection_id", ""),
        client_id=raw.get("client_id", ""),
        client_secret=secret,
        environment="production" if raw.get("environment") == "production" else "staging",
        allowed_account_ids=raw.get("allowed_account_ids", ""),
        practice_url=raw.get("practice_url", ""),
        token=token,
        token_minted_at=_parse_moment(raw.get("token_minted_at")),
    )


def _fresh(connection: PracticeConnection, rejected: str | None) -> str | None:
    """The stored token when it is neither `rejected` nor due for refresh."""
    token = connection.token
    if token is None or token.access_token == rejected or token.expires_within(connection.refresh_margin()):
        return None
    return token.access_token


async def _token(
    redis: aioredis.Redis,
    settings: Settings,
    connection: PracticeConnection,
    client: PracticeClient,
    *,
    rejected: str | None,
) -> str:
    """A token to call with: the stored one while it is fresh and not `rejected`, else a new one."""
    if fresh := _fresh(connection, rejected):
        return fresh
    seen = connection.token.access_token if connection.token else None
    lock = RedisLock(
        redis,
        keys.practice_token_lock(connection.workspace_id),
        ttl_seconds=TOKEN_LOCK_TTL_SECONDS,
        wait_seconds=TOKEN_LOCK_WAIT_SECONDS,
    )
    try:
        await lock.acquire()
    except LockTimeout:
        raise PracticeUnavailableError("timed out waiting for the practice access token") from None
    try:
        current = await load_connection(redis, settings, connection.workspace_id)
        if current is None or current.connection_id != connection.connection_id:
            raise ConnectorChanged("the practice integration was changed or removed during the call")
        token = current.token
        # A token another call minted while this one waited is used as it is: minting again would
        # only replace one new token with another.
        if token is not None and token.access_token not in (seen, rejected) and not token.expires_within(0):
            return token.access_token
        if fresh := _fresh(current, rejected):
            return fresh
        minted = await client.mint_token(current.client_id, current.client_secret)
        stored = await redis.eval(
            _STORE_TOKEN,
            1,
            keys.practice_connection(connection.workspace_id),
            connection.connection_id,
            _box(settings).seal(minted.access_token),
            iso(minted.expires_at),
            now_iso(),
        )
        if not stored:
            raise ConnectorChanged("the practice integration was changed or removed during the call")
        return minted.access_token
    finally:
        await lock.release()


async def call_practice(
    redis: aioredis.Redis,
    settings: Settings,
    connection: PracticeConnection,
    call: Callable[[PracticeClient, str], Awaitable[T]],
) -> T:
    """Run `call(client, access_token)` against the connector's host with a fresh token.

    The token is refreshed first when it is about to expire; an `invalid_token` answer gets one re-mint
    and one retry. Raises the practice errors of the call (tools.practice.errors).
    """
    transport = practice_transport(settings, connection.practice_url, connection.environment)
    async with PracticeClient(connection.practice_url, transport=transport) as client:
        used: str | None = None

        async def current() -> str:
            nonlocal used
            used = await _token(redis, settings, connection, client, rejected=None)
            return used

        async def remint() -> str:
            return await _token(redis, settings, connection, client, rejected=used)

        try:
            return await call_with_token(current, remint, lambda token: call(client, token))
        except BlockedURL as refused:
            raise PracticeHostRefused(f"the practice integration's {refused.message}") from None
