"""What an approval binds to: the exact call that was previewed and the target it would reach.

This holds for any call of a tool the agent lists in `review_tools`, whatever the tool. A tool that
reaches something outside the task (a connector, a remote server) declares it with its
`ToolSpec.review_binding(arguments, ctx)` (`tools/registry.py`), returning a JSON-able target (e.g.
`{connector, environment, url}`), and, when approved, acts only on `ToolContext.approved_target`;
a tool without one is bound by its arguments alone.

- Pausing, the runner records under `pause.pending_tool_call` the call's `call_id`, its
  `arguments_sha256` (`arguments_digest`, the digest of its arguments' canonical JSON) and its
  `binding` (`binding_of`: that digest again and the tool's `review_binding` target, e.g. for a
  practice write its connector, environment and URL; null for a tool that declares none).
- A review may name the preview it answers (`{call_id, arguments_sha256}`, `preview_of`); one that
  names another call than the pending one is refused. Whether named or not, the decision is written
  only while the task is still paused on the call the reviewer was answering: the call id and digest
  are compared in the same Lua script that writes the decision (`tasks.record(paused_on=...)`), so a
  second review that began meanwhile is never answered by the first one's approval.
- An approval is refused while the target differs from the one shown, or the arguments recorded
  for the call (what would run) differ from what was approved. The decision records the approved
  digest and target; the runner runs the approved call only if its arguments still have that
  digest (`runs_as_approved`), and only against the approved target, so neither a reconnect nor a
  changed record between preview and run can redirect it.
- One approval, one send. Before an approved call is sent, the runner spends the approval
  (`attempt_marker`, write-once); a call whose approval is spent and that has no recorded result
  (it failed retryably, or its run stopped while it was out) is never sent again on that approval,
  neither by a retry nor after a reply: it pauses for its next review (`current_review`), whose
  `pending_tool_call` carries `approval` (its number) and `previous_attempt` (how the last send
  ended). The send carries `idempotency_key`, the same for the same task, step, call and approval.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from actors import mcp_tools
from actors.step_markers import Piece, attempt_marker, review_marker, spent_approvals, step_marker
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


def preview_of(pending: dict[str, Any]) -> dict[str, str]:
    """`{call_id, arguments_sha256}` of a pending reviewed call, what a review may name to answer it.

    Calls paused before the digest was shown beside the call id keep it only under `binding`.
    """
    digest = pending.get("arguments_sha256") or (pending.get("binding") or {}).get("arguments_sha256")
    return {"call_id": str(pending.get("call_id")), "arguments_sha256": str(digest)}


def runs_as_approved(review: dict[str, Any], arguments: Any) -> bool:
    """Whether a call about to run is the one its approval approved (its arguments' digest)."""
    approved = review.get("arguments_sha256")
    return approved is None or approved == arguments_digest(arguments)


def current_review(steps: dict[str, Any], step: Any, call_id: Any) -> dict[str, Any] | None:
    """The decision on the approval a reviewed call needs now (the one after those spent), or None."""
    decided = steps.get(review_marker(step, call_id, spent_approvals(steps, step, call_id) + 1))
    return decided if isinstance(decided, dict) else None


def previous_attempt(steps: dict[str, Any], step: Any, call_id: Any) -> dict[str, Any] | None:
    """How the last send of a reviewed call ended, when an approval of it was spent: `{approval,
    outcome: failed|unknown, error}` (unknown: the run stopped while the call was out)."""
    spent = spent_approvals(steps, step, call_id)
    if spent == 0:
        return None
    failed = steps.get(attempt_marker(step, call_id, spent, failed=True))
    if isinstance(failed, dict):
        return {"approval": spent, "outcome": "failed", "error": failed.get("error")}
    return {
        "approval": spent,
        "outcome": "unknown",
        "error": "the run stopped while the call was out; whether it reached its target is unknown",
    }


def idempotency_key(task_id: str, step: Any, call_id: Any, approval: int) -> str:
    """The key of an approval's one send: the same for the same task, step, call and approval."""
    return hashlib.sha256(f"{task_id}:{step}:{call_id}:{approval}".encode()).hexdigest()


def recorded_arguments(steps: dict[str, Any], step: Any, call_id: Any) -> Any:
    """The arguments of call `call_id` as its model step recorded them (what an approval would run)."""
    for call in (steps.get(step_marker(step, Piece.MODEL)) or {}).get("tool_calls") or []:
        if call.get("id") == call_id:
            return call.get("arguments")
    return None
