"""Remote MCP tools as a task's tools: named, described, validated, reviewed and recorded.

A task whose agent config names MCP servers (core.stores.mcp_config) gets, beside the native tools, one
`ToolSpec` per allowed tool of each server, under the stable name `mcp__<server>__<tool>` (a tool
name the model may not use as is gets a short digest instead of its odd characters) with the
server's own JSON Schema as its parameters, so the registry validates the model's arguments before
anything is sent. The tools are listed when the task's runner starts; a server that cannot be
listed then offers the tools it offered last time (kept per server), and its calls fail as the
server does.

Every call is recorded in the task's feed as an `mcp_call` item (server, tool, SHA-256 of the
arguments, duration, outcome) and counted per server in the task's `usage.mcp_calls`. A server
that is down is a retryable tool failure whose feed item says which server; the server's own tool
error, a schema mismatch or a result over the platform's size cap is a tool error the model reads.
A call paused for review is bound to the server's id, URL and revision: approving it after the
server was changed is refused, and the approved call runs only against what was shown, sent once
with its approval's idempotency key (actors.mcp_client).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import jsonschema
import redis.asyncio as aioredis
from jsonschema.exceptions import SchemaError
from mcp.types import CallToolResult, TextContent, Tool

from actors import mcp_client
from actors.policy import AgentPolicy
from core import tasks
from core.infra import keys
from core.infra.errors import BadRequest
from core.infra.settings import Settings
from core.stores import mcp_servers
from core.stores.mcp_config import ServerUse, server_uses
from core.stores.mcp_servers import McpServerRecord
from core.tasks import Task
from tools.context import ToolContext
from tools.errors import ToolError
from tools.registry import TOOL_NAME_PATTERN, ToolSpec

log = logging.getLogger(__name__)

PREFIX = "mcp__"
SEPARATOR = "__"
#: Longest tool description the model is shown; a server's may be long.
MAX_DESCRIPTION_CHARS = 1000
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def tool_name(server: str, tool: str) -> str:
    """The name the model sees for `tool` of `server`; the same every time for the same pair."""
    name = f"{PREFIX}{server}{SEPARATOR}{tool}"
    if TOOL_NAME_PATTERN.fullmatch(name):
        return name
    digest = hashlib.sha256(tool.encode("utf-8")).hexdigest()[:8]
    head = _UNSAFE.sub("_", tool)[: 64 - len(PREFIX) - len(server) - len(SEPARATOR) - 9]
    return f"{PREFIX}{server}{SEPARATOR}{head}_{digest}"


def is_mcp_tool(name: str) -> bool:
    return name.startswith(PREFIX)


def server_of(name: str) -> str:
    """The server name in a prefixed tool name (server names hold no `__`)."""
    return name[len(PREFIX) :].split(SEPARATOR, 1)[0]


def not_offered(name: str, unavailable: Mapping[str, str]) -> str:
    """What a call of tool `name`, which the task does not offer, tells the model."""
    if is_mcp_tool(name) and server_of(name) in unavailable:
        return unavailable[server_of(name)]
    return f"tool {name!r} is not available to this agent"


def tool_view(server: str, tool: Tool) -> dict[str, Any]:
    return {
        "name": tool.name,
        "tool_name": tool_name(server, tool.name),
        "description": tool.description or "",
        "input_schema": tool.inputSchema,
    }


async def list_server_tools(
    settings: Settings, record: McpServerRecord, redis: aioredis.Redis | None = None
) -> list[Tool]:
    """The server's tools, listed now; kept (with `redis`) for when the server is next unreachable."""
    tools = await mcp_client.list_tools(
        mcp_servers.opened(settings, record),
        allow_private=settings.allow_private_urls,
        limit_seconds=settings.mcp_call_timeout_seconds,
        max_bytes=settings.mcp_max_result_bytes,
    )
    if redis is not None:
        kept = {"revision": record.updated_at, "tools": [t.model_dump(mode="json") for t in tools]}
        await redis.set(keys.mcp_server_tools(record.workspace_id, record.id), json.dumps(kept))
    return tools


async def _known_tools(redis: aioredis.Redis, settings: Settings, record: McpServerRecord) -> list[Tool]:
    """The server's tools now, or those it offered last time when it cannot be listed; a listing
    over the read bound (`McpTooLarge`) raises: the server answers, so its old list is not its own."""
    try:
        return await list_server_tools(settings, record, redis)
    except mcp_client.McpTooLarge:
        raise
    except (mcp_client.McpFailure, mcp_servers.ServerUnreadable) as exc:
        raw = await redis.get(keys.mcp_server_tools(record.workspace_id, record.id))
        kept = json.loads(raw) if raw else {}
        if kept.get("revision") != record.updated_at:
            log.warning("MCP server %s: its tools cannot be listed (%s)", record.name, type(exc).__name__)
            return []
        return [Tool.model_validate(t) for t in kept.get("tools") or []]


@dataclass(frozen=True)
class Toolset:
    """The MCP tools of one task: their specs, names, which of them pause for review, and why the
    servers that offer none to this task do not (server name: the error a call of their tools gets)."""

    specs: tuple[ToolSpec, ...] = ()
    review_names: frozenset[str] = frozenset()
    unavailable: Mapping[str, str] = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in self.specs)

    def policy(self, policy: AgentPolicy) -> AgentPolicy:
        """`policy` with the tools that need approval added to its review tools."""
        if not self.review_names:
            return policy
        return replace(policy, review_tools=policy.review_tools | self.review_names)


async def toolset_for(
    redis: aioredis.Redis, settings: Settings, task: Task, config: Mapping[str, Any]
) -> Toolset:
    """The MCP tools an agent with `config` offers in `task` (servers of the task's own
    workspace, also for another workspace's public agent: docs/contract.md section 6)."""
    try:
        uses = server_uses(config)
    except BadRequest:
        # Checked when the agent is saved; only a version saved before the key was checked fails here.
        log.warning("task %s: its agent's mcp_servers is malformed; no MCP tools are offered", task.id)
        return Toolset()
    specs: list[ToolSpec] = []
    review: set[str] = set()
    unavailable: dict[str, str] = {}
    for use in uses:
        record = await mcp_servers.find_by_name(redis, task.workspace_id, use.server)
        if record is None:
            log.warning("task %s: its agent names MCP server %r, which does not exist", task.id, use.server)
            continue
        try:
            tools = await _known_tools(redis, settings, record)
        except mcp_client.McpTooLarge as exc:
            log.warning("task %s: MCP server %s listed more tools than it may", task.id, record.name)
            unavailable[use.server] = f"{exc.message}: none of its tools is available to this task"
            continue
        for tool in tools:
            spec = _spec(record, use, tool)
            if spec is None or any(s.name == spec.name for s in specs):
                continue
            specs.append(spec)
            if use.needs_approval(tool.name):
                review.add(spec.name)
    return Toolset(tuple(specs), frozenset(review), unavailable)


def _parameters(tool: Tool) -> dict[str, Any] | None:
    schema = dict(tool.inputSchema or {})
    schema.setdefault("type", "object")
    if schema.get("type") != "object":
        return None
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except SchemaError:
        return None
    return schema


def _spec(record: McpServerRecord, use: ServerUse, tool: Tool) -> ToolSpec | None:
    if not use.allows(tool.name):
        return None
    parameters = _parameters(tool)
    if parameters is None:
        log.warning(
            "MCP server %s: tool %s has an input schema that is not an object schema", record.name, tool.name
        )
        return None
    name = tool_name(record.name, tool.name)
    server_name, server_tool = record.name, tool.name

    async def handler(arguments: dict[str, Any], ctx: ToolContext) -> Any:
        return await _call(server_name, server_tool, arguments, ctx)

    async def preview(arguments: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        return {"server": server_name, "url": record.url, "tool": server_tool, "arguments": arguments}

    description = f"[MCP server {record.name}] {tool.description or tool.name}"[:MAX_DESCRIPTION_CHARS]
    return ToolSpec(
        name=name,
        description=description,
        parameters=parameters,
        handler=handler,
        mutating=True,
        display_name=f"{record.name}: {tool.title or tool.name}",
        review_preview=preview,
    )


async def _task_and_server(ctx: ToolContext, server: str) -> tuple[Task | None, McpServerRecord | None]:
    task = await tasks.find_task(ctx.redis, ctx.workspace_id, ctx.task_id)
    if task is None:
        return None, None
    return task, await mcp_servers.find_by_name(ctx.redis, task.workspace_id, server)


def _target(record: McpServerRecord | None, server: str) -> dict[str, Any]:
    if record is None:
        return {"error": f"the MCP server {server!r} no longer exists"}
    return {"mcp_server_id": record.id, "url": record.url, "revision": record.updated_at}


async def binding(name: str, ctx: ToolContext) -> dict[str, Any]:
    """What a call of MCP tool `name` would reach now: the server's id, URL and revision
    (`actors.review_binding` asks this for every MCP tool, which the native registry does not hold)."""
    server = server_of(name)
    _, record = await _task_and_server(ctx, server)
    return _target(record, server)


async def _call(server: str, tool: str, arguments: dict[str, Any], ctx: ToolContext) -> Any:
    settings: Settings = ctx.settings
    task, record = await _task_and_server(ctx, server)
    if task is None:
        raise ToolError("the task no longer exists")
    if record is None:
        raise ToolError(f"the MCP server {server!r} no longer exists")
    if ctx.approved_target is not None and dict(ctx.approved_target) != _target(record, server):
        raise ToolError(
            f"the MCP server {server!r} changed after this call was approved (its URL or credentials); "
            "it was not called"
        )
    started = time.monotonic()
    outcome, error, output = "ok", None, None
    try:
        result = await mcp_client.call_tool(
            mcp_servers.opened(settings, record),
            tool,
            arguments,
            allow_private=settings.allow_private_urls,
            limit_seconds=settings.mcp_call_timeout_seconds,
            max_bytes=settings.mcp_max_result_bytes,
            idempotency_key=ctx.idempotency_key,
        )
        output = _output(result)
        size = len(json.dumps(output, default=str).encode("utf-8"))
        if result.isError:
            outcome, error = (
                "tool_error",
                ToolError(_text(result) or f"{tool} failed on the MCP server {server!r}"),
            )
        elif size > settings.mcp_max_result_bytes:
            outcome = "too_large"
            error = ToolError(
                f"the result of {tool} is {size} bytes, over the platform's cap of "
                f"{settings.mcp_max_result_bytes} bytes for an MCP result"
            )
    except mcp_client.McpUnreachable as exc:
        outcome, error = "unreachable", ToolError(exc.message, retryable=True)
    except mcp_client.McpTooLarge as exc:
        outcome, error = "too_large", ToolError(exc.message)
    except mcp_client.McpFailure as exc:
        outcome = "refused" if isinstance(exc, mcp_client.McpRefused) else "protocol_error"
        error = ToolError(exc.message)
    except mcp_servers.ServerUnreadable as exc:
        outcome, error = "refused", ToolError(str(exc))
    item: dict[str, Any] = {
        "type": "mcp_call",
        "call_id": ctx.call_id,
        "server": server,
        "mcp_server_id": record.id,
        "tool": tool,
        "arguments_sha256": _digest(arguments),
        "duration_ms": round((time.monotonic() - started) * 1000),
        "outcome": outcome,
        "step": _step(ctx),
    }
    if error is not None:
        item["error"] = error.message
    await tasks.record(
        ctx.redis,
        task,
        # One marker per attempt: a retried call is a new call, and each is recorded.
        f"mcp:{ctx.call_id}:{uuid.uuid4().hex}",
        {"outcome": outcome},
        items=[item],
        increments={f"{mcp_servers.CALLS_PREFIX}{server}": 1},
    )
    if error is not None:
        raise error
    return output


def _digest(arguments: Any) -> str:
    # The canonical JSON of actors.review_binding.arguments_digest (which imports this module), so
    # a reviewed call's feed item and its review binding carry the same digest.
    text = json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _step(ctx: ToolContext) -> int:
    return int(ctx.step_id.rsplit(":", 1)[-1] or 0)


def _text(result: CallToolResult) -> str:
    parts = []
    for block in result.content:
        parts.append(block.text if isinstance(block, TextContent) else f"[{block.type} content]")
    return "\n".join(parts)


def _output(result: CallToolResult) -> dict[str, Any]:
    """The tool result the model and the feed get: the server's text, and its structured content."""
    output: dict[str, Any] = {"content": _text(result)}
    if result.structuredContent is not None:
        output["structured"] = result.structuredContent
    return output
