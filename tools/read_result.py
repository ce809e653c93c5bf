"""The `read_result` tool: the model pages through a tool result too long to send it whole.

A tool result longer than the runtime's inline limit (`actors.context_budget`) is stored, as the
model would have seen it, in the task's steps hash under `result:<handle>`, written in the same
atomic record as its feed item. The conversation carries a summary and the handle instead; this tool
returns one page of the stored text.
"""

from __future__ import annotations

import json
import math
from typing import Any

from core.infra import keys
from tools.context import ToolContext
from tools.errors import ToolError
from tools.registry import ToolSpec

READ_RESULT = "read_result"
#: Characters of a stored result per page: under the inline limit, so a page is never stored again.
PAGE_CHARS = 6_000
#: Prefix of a stored result's field in the task's steps hash.
_MARKER_PREFIX = "result:"


def result_handle(step: int, call_id: str) -> str:
    """The handle of the result of call `call_id` made at `step` (unique within a task)."""
    return f"s{step}.{call_id}"


def result_marker(handle: str) -> str:
    return f"{_MARKER_PREFIX}{handle}"


def page_count(text: str) -> int:
    return max(math.ceil(len(text) / PAGE_CHARS), 1)


async def _read_result(arguments: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    handle = arguments["handle"].strip()
    raw = await ctx.redis.hget(keys.task_steps(ctx.workspace_id, ctx.task_id), result_marker(handle))
    if raw is None:
        raise ToolError(f"this task has no stored result {handle!r}; use a handle a result summary gave")
    text = str(json.loads(raw))
    pages = page_count(text)
    page = int(arguments.get("page") or 1)
    if page > pages:
        raise ToolError(f"result {handle!r} has {pages} page(s); ask for page 1 to {pages}")
    start = (page - 1) * PAGE_CHARS
    return {
        "handle": handle,
        "page": page,
        "pages": pages,
        "offset": start,
        "total_chars": len(text),
        "text": text[start : start + PAGE_CHARS],
    }


READ_RESULT_TOOL = ToolSpec(
    name=READ_RESULT,
    description=(
        "Read one page of a tool result that was too long to show whole. Its summary in the "
        "conversation gives the handle and the number of pages."
    ),
    parameters={
        "type": "object",
        "properties": {
            "handle": {"type": "string", "pattern": r"\S", "description": "The handle from the summary."},
            "page": {"type": "integer", "minimum": 1, "description": "Which page, from 1 (default 1)."},
        },
        "required": ["handle"],
        "additionalProperties": False,
    },
    handler=_read_result,
    display_name="Read Result",
)
