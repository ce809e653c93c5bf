"""What of a task's conversation reaches the model, so a small context window still fits.

Tool results reach the model compact: a parse result's text without its element list, and no
bounding boxes anywhere (the feed keeps the whole result, so citations keep their boxes). A result
still longer than `MAX_TOOL_RESULT_CHARS` is stored under the task when it is recorded (`stored_results`)
and reaches the model as a summary with a handle, which the `read_result` tool pages through; a
result without a handle (an error's details) is cut with a note of what was left out. When a
connection declares its `context_window`, the oldest tool outputs are elided first until the
conversation fits, leaving room for the reply; `elision_note` records that in the feed once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from tools.read_result import READ_RESULT, page_count, result_handle, result_marker

#: Keys that only place text on a page: useful for citations, noise to a model.
BOX_KEYS = frozenset({"bounding_box", "normalized_bounding_box", "bbox", "box", "polygon"})
#: Longest tool result text sent to a model whole; a longer one is stored and summarised.
MAX_TOOL_RESULT_CHARS = 8_000
#: How much of a stored result's text its summary shows.
SUMMARY_HEAD_CHARS = 1_500
#: A cautious estimate: real tokenizers average nearer 4 characters per token for English.
CHARS_PER_TOKEN = 3
#: Tokens kept free for the model's reply.
REPLY_RESERVE_TOKENS = 1024
ELIDED = "[this tool output was elided to keep the conversation inside the model's context window]"


def compact(output: Any) -> Any:
    """`output` without boxes, and without `elements` beside a `content` text that already holds them."""
    if isinstance(output, dict):
        drop_elements = "content" in output and "elements" in output
        return {
            key: compact(value)
            for key, value in output.items()
            if key not in BOX_KEYS and not (drop_elements and key == "elements")
        }
    if isinstance(output, list):
        return [compact(value) for value in output]
    return output


def _text(output: Any) -> str:
    return output if isinstance(output, str) else json.dumps(compact(output), ensure_ascii=False, default=str)


def handle_for(tool_name: str, step: int, call_id: str) -> str | None:
    """The handle a long result of this call is stored under; None for `read_result`'s own pages,
    which are never stored again (a page too long once escaped is cut instead)."""
    return None if tool_name == READ_RESULT else result_handle(step, call_id)


def stored_results(tool_name: str, step: int, call_id: str, output: Any) -> dict[str, str]:
    """The steps-hash fields that store a result too long to send whole (none for a short one)."""
    handle = handle_for(tool_name, step, call_id)
    text = _text(output)
    if handle is None or len(text) <= MAX_TOOL_RESULT_CHARS:
        return {}
    return {result_marker(handle): text}


def _outline(output: Any) -> str:
    if isinstance(output, dict):
        parts = [
            f"{key} ({len(value)} items)" if isinstance(value, list) else str(key)
            for key, value in compact(output).items()
        ]
        return "an object with " + ", ".join(parts)
    if isinstance(output, list):
        return f"a list of {len(output)} items"
    return "text"


def tool_content(output: Any, handle: str | None = None) -> str:
    """The text of a tool result as the model sees it: whole, or (too long) a summary naming `handle`
    of its stored text, or cut when it has no handle."""
    text = _text(output)
    if len(text) <= MAX_TOOL_RESULT_CHARS:
        return text
    if handle is not None:
        pages = page_count(text)
        return (
            f"[This result is {len(text)} characters, too long to show whole: {_outline(output)}. "
            f"It is stored as handle {handle!r} in {pages} pages; call {READ_RESULT} with this handle "
            f"and a page from 1 to {pages} to read it. It begins:]\n{text[:SUMMARY_HEAD_CHARS]}"
        )
    left_out = len(text) - MAX_TOOL_RESULT_CHARS
    return f"{text[:MAX_TOOL_RESULT_CHARS]}\n[{left_out} more characters of this result are not shown]"


def offered_tools(tool_names: list[str], messages: list[dict[str, Any]]) -> list[str]:
    """`tool_names`, plus `read_result` while the conversation holds a stored result's summary."""
    if READ_RESULT in tool_names:
        return tool_names
    marker = f"call {READ_RESULT} with this handle"
    summarised = any(m.get("role") == "tool" and marker in str(m.get("content")) for m in messages)
    return [*tool_names, READ_RESULT] if summarised else tool_names


def _size(message: dict[str, Any]) -> int:
    return len(json.dumps(message, ensure_ascii=False, default=str))


def fit_window(
    messages: list[dict[str, Any]], window_tokens: int | None
) -> tuple[list[dict[str, Any]], list[str]]:
    """`messages` with the oldest tool outputs elided until they fit `window_tokens` (less the reply's
    room), and the call ids whose outputs were elided. Unchanged when no window is known."""
    if not window_tokens:
        return messages, []
    budget = max(window_tokens - REPLY_RESERVE_TOKENS, 256) * CHARS_PER_TOKEN
    fitted = [dict(message) for message in messages]
    total = sum(_size(message) for message in fitted)
    elided: list[str] = []
    for message in fitted:
        if total <= budget:
            break
        if message.get("role") != "tool" or message.get("content") == ELIDED:
            continue
        before = _size(message)
        message["content"] = ELIDED
        total -= before - _size(message)
        elided.append(str(message.get("tool_call_id")))
    return fitted, elided


def elision_note(
    feed: list[dict[str, Any]], elided_call_ids: Iterable[str], step: int
) -> dict[str, Any] | None:
    """The feed item saying which steps' tool outputs are now elided, or None when the feed already
    said so for each of them (an output once elided stays elided as the conversation grows)."""
    wanted = set(elided_call_ids)
    steps = {
        int(item.get("step") or 0)
        for item in feed
        if item.get("type") == "tool_result" and item.get("call_id") in wanted
    }
    for item in feed:
        if item.get("type") == "message_sent" and item.get("kind") == "context_elided":
            steps -= set(item.get("steps") or [])
    if not steps:
        return None
    listed = ", ".join(str(s) for s in sorted(steps))
    return {
        "type": "message_sent",
        "kind": "context_elided",
        "text": f"the tool outputs of step {listed} were elided to keep the conversation inside the model's context window",
        "steps": sorted(steps),
        "step": step,
    }
