"""The model's view of a task, rebuilt from its feed: the feed is the one record of the conversation."""

from __future__ import annotations

import json
from typing import Any

from actors.context_budget import handle_for, tool_content
from actors.models.base import TemplateContext


def _user_text(item: dict[str, Any]) -> str:
    text = str(item.get("text") or "")
    files = item.get("files") or []
    if files:
        names = ", ".join(f"{f.get('file')} ({f.get('file_id')})" for f in files)
        text = f"{text}\n\nAttached files: {names}" if text else f"Attached files: {names}"
    return text


def build_messages(system_prompt: str, feed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-style chat messages: assistant turns carry their tool calls, results follow as `tool`."""
    messages: list[dict[str, Any]] = []
    if system_prompt:
        messages.append({"role": "system", "content": system_prompt})
    current: dict[str, Any] | None = None
    for item in feed:
        kind = item.get("type")
        if kind == "user_message":
            current = None
            if item.get("in_reply_to"):
                continue
            messages.append({"role": "user", "content": _user_text(item)})
        elif kind == "assistant_message":
            current = {"role": "assistant", "content": item.get("text")}
            messages.append(current)
        elif kind == "tool_call":
            if current is None:
                current = {"role": "assistant", "content": None}
                messages.append(current)
            current.setdefault("tool_calls", []).append(
                {
                    "id": item["call_id"],
                    "type": "function",
                    "function": {
                        "name": item["tool_name"],
                        "arguments": json.dumps(item.get("arguments", {})),
                    },
                }
            )
        elif kind == "tool_result":
            current = None
            ok = item.get("status") == "ok"
            body = item.get("output") if ok else {"error": item.get("error")}
            # A long ok result was stored when it was recorded (actors.context_budget.stored_results).
            handle = handle_for(str(item.get("tool_name")), int(item.get("step") or 0), item["call_id"])
            content = tool_content(body, handle if ok else None)
            messages.append({"role": "tool", "tool_call_id": item["call_id"], "content": content})
        elif kind == "message_sent" and item.get("kind") == "delegation_summary":
            current = None
            messages.append({"role": "user", "content": str(item.get("text") or "")})
    return messages


def template_context(query: str, feed: list[dict[str, Any]]) -> TemplateContext:
    last_user = query
    last_result: Any = None
    for item in feed:
        if item.get("type") == "user_message":
            last_user = str(item.get("text") or "")
        elif item.get("type") == "tool_result":
            last_result = item.get("output") if item.get("status") == "ok" else {"error": item.get("error")}
    return TemplateContext(query=query, last_user_message=last_user, last_tool_result=last_result)
