"""The `mcp_servers` key of an agent config: which remote MCP servers, tools and approvals it uses.

    "mcp_servers": [
      {"server": "orders", "allowed_tools": ["lookup_order", "refund_order"],
       "require_approval": ["refund_order"]}
    ]

`server` is the name of one of the workspace's MCP servers (core.stores.mcp_servers). `allowed_tools`
lists the server's own tool names the agent may call (absent or null: every tool it offers).
`require_approval` is `all` (the default: a remote tool may do anything), `none`, or a list of the
server's tool names whose calls pause the task in `awaiting_review` until someone approves them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.infra.errors import BadRequest
from core.stores.mcp_servers import NAME_PATTERN

#: Servers one agent may name.
MAX_SERVERS_PER_AGENT = 10
_KEYS = frozenset({"server", "allowed_tools", "require_approval"})


@dataclass(frozen=True)
class ServerUse:
    server: str
    #: The server's tool names the agent may call; None: all of them.
    allowed_tools: frozenset[str] | None
    #: True: every call needs approval; a set: calls of those tools do.
    require_approval: bool | frozenset[str]

    def allows(self, tool: str) -> bool:
        return self.allowed_tools is None or tool in self.allowed_tools

    def needs_approval(self, tool: str) -> bool:
        if isinstance(self.require_approval, bool):
            return self.require_approval
        return tool in self.require_approval


def _names(value: Any, what: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise BadRequest(f"{what} must be a list of tool names")
    return frozenset(value)


def server_uses(config: Mapping[str, Any]) -> list[ServerUse]:
    """The config's `mcp_servers`, checked; BadRequest saying what is wrong."""
    listed = config.get("mcp_servers")
    if listed is None:
        return []
    if not isinstance(listed, list) or len(listed) > MAX_SERVERS_PER_AGENT:
        raise BadRequest(f"mcp_servers must be a list of at most {MAX_SERVERS_PER_AGENT} entries")
    uses: list[ServerUse] = []
    for index, entry in enumerate(listed):
        where = f"mcp_servers[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("server"), str):
            raise BadRequest(f"{where} must be an object naming a `server`")
        unknown = sorted(set(entry) - _KEYS)
        if unknown:
            raise BadRequest(f"{where} has unknown keys {unknown}; known: {sorted(_KEYS)}")
        if not NAME_PATTERN.match(entry["server"]):
            raise BadRequest(f"{where}.server {entry['server'][:40]!r} is not an MCP server name")
        if any(use.server == entry["server"] for use in uses):
            raise BadRequest(f"{where}.server {entry['server']!r} is listed twice")
        allowed = entry.get("allowed_tools")
        approval = entry.get("require_approval", "all")
        if approval in ("all", "none"):
            required: bool | frozenset[str] = approval == "all"
        else:
            required = _names(approval, f"{where}.require_approval (or `all` / `none`)")
        uses.append(
            ServerUse(
                server=entry["server"],
                allowed_tools=None if allowed is None else _names(allowed, f"{where}.allowed_tools"),
                require_approval=required,
            )
        )
    return uses
