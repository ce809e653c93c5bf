"""Builders of the OpenAI-style chat messages the runtime stores and providers receive.

Keeping the wire form in one place means the stored transcript can be sent to any OpenAI-compatible
server as it is, and the scripted model sees the same messages a real one would.
"""

from __future__ import annotations

import json
from typing import Any

from actors.models.base import ModelResponse


def system_message(text: str) -> dict[str, Any]:
    return {"role": "system", "content": text}


def user_message(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant_message(response: ModelResponse) -> dict[str, Any]:
    """The assistant turn a model response adds to the transcript, tool calls included."""
    message: dict[str, Any] = {"role": "assistant", "content": response.text}
    if response.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)},
            }
            for call in response.tool_calls
        ]
    return message


def tool_message(call_id: str, output: Any) -> dict[str, Any]:
    """The result of tool call `call_id`; a value that is not text is sent as its JSON text."""
    content = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, default=str)
    return {"role": "tool", "tool_call_id": call_id, "content": content}
