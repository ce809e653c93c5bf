"""What of a task's conversation reaches the model, so a small context window still fits.

Tool results reach the model compact: a parse result's text without its element list, and no
bounding boxes anywhere (the feed keeps the whole result, so citations keep their boxes). A result
still longer than `MAX_TOOL_RESULT_CHARS` is cut with a note of what was left out. When a
connection declares its `context_window`, the oldest tool outputs are elided first until the
conversation fits, leaving room for the reply.
"""

from __future__ import annotations

import json
from typing import Any

#: Keys that only place text on a page: useful for citations, noise to a model.
BOX_KEYS = frozenset({"bounding_box", "normalized_bounding_box", "bbox", "box", "polygon"})
#: Longest tool result text sent to a model.
MAX_TOOL_RESULT_CHARS = 16_000
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


def tool_content(output: Any) -> str:
    """The text of a tool result as the model sees it."""
    text = output if isinstance(output, str) else json.dumps(compact(output), ensure_ascii=False, default=str)
    if len(text) <= MAX_TOOL_RESULT_CHARS:
        return text
    left_out = len(text) - MAX_TOOL_RESULT_CHARS
    return f"{text[:MAX_TOOL_RESULT_CHARS]}\n[{left_out} more characters of this result are not shown]"


def _size(message: dict[str, Any]) -> int:
    return len(json.dumps(message, ensure_ascii=False, default=str))


def fit_window(messages: list[dict[str, Any]], window_tokens: int | None) -> tuple[list[dict[str, Any]], int]:
    """`messages` with the oldest tool outputs elided until they fit `window_tokens` (less the reply's
    room), and how many were elided. Unchanged when no window is known."""
    if not window_tokens:
        return messages, 0
    budget = max(window_tokens - REPLY_RESERVE_TOKENS, 256) * CHARS_PER_TOKEN
    fitted = [dict(message) for message in messages]
    total = sum(_size(message) for message in fitted)
    elided = 0
    for message in fitted:
        if total <= budget:
            break
        if message.get("role") != "tool" or message.get("content") == ELIDED:
            continue
        before = _size(message)
        message["content"] = ELIDED
        total -= before - _size(message)
        elided += 1
    return fitted, elided
