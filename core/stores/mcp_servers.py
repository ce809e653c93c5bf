"""A workspace's remote MCP servers (`/api/v1/mcp-servers`): where they are and how to authenticate.

A server is a name (unique in the workspace, used in agent configs and in the prefixed tool names
the model sees), a Streamable HTTP URL, and optionally request headers and a bearer token. The
headers and token are sealed at rest (core.infra.secretbox) under a purpose of their own and are never
returned, logged or shown to a model: the runtime opens them only to call the server. The URL passes
the one SSRF guard when it is saved, and again on every request the client sends (actors.mcp_client).

Another workspace's server id answers 404, as an unknown one does: nothing says it exists.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from core.infra import keys
from core.infra.errors import BadRequest, Conflict, NotFound
from core.infra.ids import new_id, now_iso, parse_uuid, sort_key, utcnow
from core.infra.models import PageOf, Record
from core.infra.pagination import check_limit, member_id, newest_first
from core.infra.secretbox import SealedValueError, SecretBox
from core.infra.settings import Settings
from core.infra.url_guard import checked_address, parse_url
from core.stores import audit

#: Lower-case letters, digits and single hyphens: a server name is part of every tool name it
#: offers (`mcp__<name>__<tool>`), which must stay within 64 characters of `[A-Za-z0-9_-]`.
NAME_PATTERN = re.compile(r"^[a-z0-9](?:[a-z0-9]|-(?!-)){0,23}$")
MAX_URL_CHARS = 2048
MAX_DESCRIPTION_CHARS = 500
MAX_HEADERS = 20
MAX_HEADER_VALUE_CHARS = 4096
#: Servers one workspace may hold.
MAX_SERVERS_PER_WORKSPACE = 50
_HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$")
#: Headers the MCP transport sets itself; a stored value would break or hijack the protocol.
_RESERVED_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "content-type",
        "accept",
        # The client asks for uncompressed answers, so what it reads can be bounded as it arrives.
        "accept-encoding",
        "transfer-encoding",
        "connection",
        "mcp-session-id",
        "mcp-protocol-version",
        "last-event-id",
    }
)
URL_NAME = "MCP server URL"
SAVED_ACTION = "mcp_server.saved"
DELETED_ACTION = "mcp_server.deleted"
_SEAL_PURPOSE = "mcp-server-credentials"
#: Prefix of a task hash's per-server MCP call counters: `mcp_calls:<server name>`.
CALLS_PREFIX = "mcp_calls:"

# Create or rename atomically: the name must be free (or already this server's), and the old name
# is released in the same step. KEYS: record, names, index. ARGV: id, name, record JSON, old name,
# index member, max servers (0: not a create).
_SAVE = """
local owner = redis.call('HGET', KEYS[2], ARGV[2])
if owner and owner ~= ARGV[1] then return 0 end
if tonumber(ARGV[6]) > 0 and redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return -1 end
if ARGV[4] ~= '' and ARGV[4] ~= ARGV[2] then redis.call('HDEL', KEYS[2], ARGV[4]) end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
redis.call('SET', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[3], 0, ARGV[5])
return 1
"""


def check_name(name: str) -> str:
    if not NAME_PATTERN.match(name):
        raise BadRequest(
            "an MCP server name is 1-24 lower-case letters, digits or single hyphens, "
            "starting with a letter or digit"
        )
    return name


def check_headers(headers: dict[str, str]) -> dict[str, str]:
    if len(headers) > MAX_HEADERS:
        raise BadRequest(f"an MCP server takes at most {MAX_HEADERS} headers")
    for name, value in headers.items():
        if not _HEADER_NAME.match(name):
            raise BadRequest(f"header name {name[:100]!r} is not a valid HTTP header name")
        if name.lower() in _RESERVED_HEADERS:
            raise BadRequest(f"header {name!r} is set by the MCP transport and cannot be stored")
        if len(value) > MAX_HEADER_VALUE_CHARS or any(c in value for c in "\r\n\0"):
            raise BadRequest(f"header {name!r} has a value that is too long or holds a line break")
    return headers


class McpServerCreate(BaseModel):
    """Body of `POST /api/v1/mcp-servers`."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Unique in the workspace; agent configs and tool names use it.")
    url: str = Field(max_length=MAX_URL_CHARS, description="The server's Streamable HTTP endpoint.")
    description: str | None = Field(None, max_length=MAX_DESCRIPTION_CHARS)
    headers: dict[str, SecretStr] | None = Field(
        None, description="Write-only: sent with every request, sealed at rest, never returned."
    )
    bearer_token: SecretStr | None = Field(
        None, description="Write-only: sent as `Authorization: Bearer ...`, sealed at rest, never returned."
    )

    @field_validator("bearer_token")
    @classmethod
    def _token_size(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and len(value.get_secret_value()) > MAX_HEADER_VALUE_CHARS:
            raise ValueError(f"bearer_token is longer than {MAX_HEADER_VALUE_CHARS} characters")
        return value


class McpServerPatch(BaseModel):
    """Body of `PATCH /api/v1/mcp-servers/{id}`: what is given replaces what was stored."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    url: str | None = Field(None, max_length=MAX_URL_CHARS)
    description: str | None = Field(None, max_length=MAX_DESCRIPTION_CHARS)
    headers: dict[str, SecretStr] | None = Field(None, description="Replaces every stored header.")
    bearer_token: SecretStr | None = Field(
        None, description="Replaces the token; an empty string removes it."
    )


class McpServerView(BaseModel):
    """What the API shows of a server: never a header value or the token."""

    id: str
    name: str
    url: str
    description: str | None = None
    header_names: list[str]
    has_bearer_token: bool
    created_at: str
    updated_at: str


class McpServerRecord(Record):
    id: str
    workspace_id: str
    name: str
    url: str
    description: str | None = None
    header_names: list[str] = []
    has_bearer_token: bool = False
    #: Sealed JSON `{headers, bearer_token}`; empty when there are none.
    credentials_sealed: str = ""
    created_at: str
    updated_at: str
    index_member: str

    def resource(self) -> dict[str, Any]:
        """What the API shows: never a header value or the token."""
        return {
            "id": self.id,
            "name": self.name,
            "url": self.url,
            "description": self.description,
            "header_names": self.header_names,
            "has_bearer_token": self.has_bearer_token,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


@dataclass(frozen=True)
class McpServer:
    """A stored server with its credentials opened, for one connection; never shown to anyone."""

    id: str
    name: str
    url: str
    #: What a reviewed call is bound to: a change of URL or credentials since the preview shows here.
    revision: str
    headers: dict[str, str] = field(repr=False)


class ServerUnreadable(Exception):
    """The sealed credentials cannot be opened (the service secret changed); saving them again fixes it."""


def _box(settings: Settings) -> SecretBox:
    return SecretBox(settings.resolved_secret(), _SEAL_PURPOSE)


async def check_url(url: str, settings: Settings) -> str:
    """`url` when its host passes the URL guard; BadRequest (BlockedURL) saying why otherwise."""
    parsed = parse_url(url, what=URL_NAME)
    if parsed.fragment:
        raise BadRequest("an MCP server URL must not carry a fragment")
    await checked_address(parsed, allow_private=settings.allow_private_urls, what=URL_NAME)
    return url.strip()


def _seal(
    settings: Settings, headers: dict[str, SecretStr] | None, token: SecretStr | None
) -> tuple[str, list[str], bool]:
    plain = check_headers({k: v.get_secret_value() for k, v in (headers or {}).items()})
    bearer = token.get_secret_value() if token is not None else ""
    if not plain and not bearer:
        return "", [], False
    sealed = _box(settings).seal(json.dumps({"headers": plain, "bearer_token": bearer}))
    return sealed, sorted(plain), bool(bearer)


async def _store(redis: aioredis.Redis, record: McpServerRecord, old_name: str, *, creating: bool) -> None:
    ws = record.workspace_id
    result = await redis.eval(
        _SAVE,
        3,
        keys.mcp_server(ws, record.id),
        keys.mcp_server_names(ws),
        keys.mcp_servers_index(ws),
        record.id,
        record.name,
        record.model_dump_json(),
        old_name,
        record.index_member,
        MAX_SERVERS_PER_WORKSPACE if creating else 0,
    )
    if int(result) == 0:
        raise Conflict(f"the workspace already has an MCP server named {record.name!r}")
    if int(result) < 0:
        raise BadRequest(
            f"a workspace holds at most {MAX_SERVERS_PER_WORKSPACE} MCP servers; delete one first"
        )


async def create(
    redis: aioredis.Redis,
    settings: Settings,
    workspace_id: str,
    body: McpServerCreate,
    url: str,
    *,
    key_id: str | None,
) -> McpServerRecord:
    """Store a new server; `url` has passed the URL guard."""
    server_id, stamp = new_id(), now_iso()
    sealed, header_names, has_token = _seal(settings, body.headers, body.bearer_token)
    record = McpServerRecord(
        id=server_id,
        workspace_id=workspace_id,
        name=check_name(body.name),
        url=url,
        description=body.description,
        header_names=header_names,
        has_bearer_token=has_token,
        credentials_sealed=sealed,
        created_at=stamp,
        updated_at=stamp,
        index_member=sort_key(utcnow(), server_id),
    )
    await _store(redis, record, "", creating=True)
    await audit.record(redis, workspace_id, SAVED_ACTION, key_id=key_id, details={"name": record.name})
    return record


async def update(
    redis: aioredis.Redis,
    settings: Settings,
    record: McpServerRecord,
    body: McpServerPatch,
    url: str | None,
    *,
    key_id: str | None,
) -> McpServerRecord:
    """Apply a patch; `url` (when given) has passed the URL guard."""
    changes: dict[str, Any] = {"updated_at": now_iso()}
    if body.name is not None:
        changes["name"] = check_name(body.name)
    if url is not None:
        changes["url"] = url
    if "description" in body.model_fields_set:
        changes["description"] = body.description
    if body.headers is not None or body.bearer_token is not None:
        current = open_credentials(settings, record)
        headers = (
            body.headers
            if body.headers is not None
            else {k: SecretStr(v) for k, v in current["headers"].items()}
        )
        token = body.bearer_token if body.bearer_token is not None else SecretStr(current["bearer_token"])
        sealed, names, has_token = _seal(settings, headers, token)
        changes |= {"credentials_sealed": sealed, "header_names": names, "has_bearer_token": has_token}
    updated = record.model_copy(update=changes)
    await _store(redis, updated, record.name, creating=False)
    await audit.record(
        redis, record.workspace_id, SAVED_ACTION, key_id=key_id, details={"name": updated.name}
    )
    return updated


async def find(redis: aioredis.Redis, workspace_id: str, server_id: str) -> McpServerRecord | None:
    raw = await redis.get(keys.mcp_server(workspace_id, server_id))
    return McpServerRecord.model_validate_json(raw) if raw else None


async def get(redis: aioredis.Redis, workspace_id: str, server_id: str) -> McpServerRecord:
    """The caller's server: 400 for a malformed id, 404 for an unknown one or another workspace's."""
    server_id = parse_uuid(server_id, what="mcp_server_id")
    record = await find(redis, workspace_id, server_id)
    if record is None:
        raise NotFound(f"MCP server {server_id} not found")
    return record


async def find_by_name(redis: aioredis.Redis, workspace_id: str, name: str) -> McpServerRecord | None:
    server_id = await redis.hget(keys.mcp_server_names(workspace_id), name)
    return await find(redis, workspace_id, server_id) if server_id else None


async def list_servers(
    redis: aioredis.Redis, workspace_id: str, *, cursor: str | None, limit: int | None
) -> PageOf:
    page = await newest_first(
        redis, keys.mcp_servers_index(workspace_id), cursor=cursor, limit=check_limit(limit)
    )
    found = [await find(redis, workspace_id, member_id(m)) for m in page.members]
    data = [record.resource() for record in found if record is not None]
    return PageOf(data=data, has_more=page.has_more, next_cursor=page.next_cursor)


async def delete(redis: aioredis.Redis, record: McpServerRecord, *, key_id: str | None) -> None:
    ws = record.workspace_id
    async with redis.pipeline(transaction=True) as pipe:
        pipe.delete(keys.mcp_server(ws, record.id), keys.mcp_server_tools(ws, record.id))
        pipe.hdel(keys.mcp_server_names(ws), record.name)
        pipe.zrem(keys.mcp_servers_index(ws), record.index_member)
        await pipe.execute()
    await audit.record(redis, ws, DELETED_ACTION, key_id=key_id, details={"name": record.name})


def mcp_calls(raw: dict[str, str]) -> dict[str, int]:
    """`usage.mcp_calls`: per server name, the MCP calls a task made (its hash's counters)."""
    return {
        name[len(CALLS_PREFIX) :]: int(float(value))
        for name, value in raw.items()
        if name.startswith(CALLS_PREFIX)
    }


def open_credentials(settings: Settings, record: McpServerRecord) -> dict[str, Any]:
    """`{headers, bearer_token}` opened; ServerUnreadable when the seal cannot be opened."""
    if not record.credentials_sealed:
        return {"headers": {}, "bearer_token": ""}
    try:
        opened: dict[str, Any] = json.loads(_box(settings).open(record.credentials_sealed))
    except SealedValueError:
        raise ServerUnreadable(
            f"the MCP server {record.name!r}'s stored credentials cannot be read; save them again"
        ) from None
    return opened


def opened(settings: Settings, record: McpServerRecord) -> McpServer:
    """The server with its credentials opened, for one connection."""
    credentials = open_credentials(settings, record)
    headers = dict(credentials.get("headers") or {})
    if credentials.get("bearer_token"):
        headers["Authorization"] = f"Bearer {credentials['bearer_token']}"
    return McpServer(
        id=record.id, name=record.name, url=record.url, revision=record.updated_at, headers=headers
    )
