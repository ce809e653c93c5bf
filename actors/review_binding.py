"""What an approval binds to: the exact call that was previewed and the target it would reach.

A call paused for review records, with its preview, a digest of its arguments and the tool's
`review_binding` (for a practice write: the connector, its environment and URL). An approval is
refused while either differs from what the reviewer was shown, and the approved call then runs only
against the approved target, so a reconnect between preview and run cannot redirect it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from actors import mcp_tools
from actors.step_markers import Piece, step_marker
from tools.context import ToolContext
from tools.errors import ToolError
from tools.registry import ToolRegistry


def arguments_digest(arguments: Any) -> str:
    """SHA-256 of the arguments' canonical JSON (key order and spacing do not matter)."""
    text = json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


async def binding_of(registry: ToolRegistry, name: str, arguments: Any, ctx: ToolContext) -> dict[str, Any]:
    """The binding of a call of tool `name` as things stand now."""
    target: dict[str, Any] | None
    try:
        if mcp_tools.is_mcp_tool(name):
            # A remote MCP tool is not in the native registry: its binding is its server's now.
            target = await mcp_tools.binding(name, ctx)
        else:
            target = await registry.binding(name, arguments, ctx) if isinstance(arguments, dict) else None
    except ToolError as exc:
        target = {"error": exc.message}
    return {"arguments_sha256": arguments_digest(arguments), "target": target}


def recorded_arguments(steps: dict[str, Any], step: Any, call_id: Any) -> Any:
    """The arguments of call `call_id` as its model step recorded them (what an approval would run)."""
    for call in (steps.get(step_marker(step, Piece.MODEL)) or {}).get("tool_calls") or []:
        if call.get("id") == call_id:
            return call.get("arguments")
    return None
