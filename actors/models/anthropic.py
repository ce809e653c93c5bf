"""The `anthropic` model provider: the Messages API, through the official SDK.

The runtime stores OpenAI-style messages (`actors.models.base`); they are turned into Messages API
form here: system messages become `system`, an assistant's tool calls become `tool_use` blocks and
`tool` results become `tool_result` blocks of the next user turn (consecutive user turns merged, as
the API wants turns to alternate). The Messages API has no JSON-schema reply format to mix with
tools, so an output schema is asked for through a final-answer tool whose input is the answer.
How the client is built (the key, the guarded connection) is `actors.models.sdk_client`'s.
"""

from __future__ import annotations

import json
from typing import Any

from actors.models.base import ModelError, ModelRequest, ModelResponse, ToolCall, Usage
from actors.models.openai import (
    FINAL_ANSWER_DESCRIPTION,
    FINAL_ANSWER_TOOL,
    object_schema,
    parse_structured,
    unwrapped,
)
from actors.models.pricing import cost_usd
from actors.models.sdk_client import (
    DEFAULT_SDK_RETRIES,
    DEFAULT_TIMEOUT_SECONDS,
    client_options,
    key_headers,
    mapped_errors,
)
from actors.models.targets import ModelTarget

#: The Messages API needs a reply length; long enough for a structured answer.
DEFAULT_MAX_TOKENS = 4096


class AnthropicProvider:
    """Calls `{target.base_url}/v1/messages` for `target.model`."""

    def __init__(
        self,
        target: ModelTarget,
        *,
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
        max_retries: int = DEFAULT_SDK_RETRIES,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> None:
        self.target = target
        self._timeout = timeout_seconds
        self._max_retries = max_retries
        self._max_tokens = max_tokens

    @property
    def model(self) -> str:
        return self.target.model

    async def complete(self, request: ModelRequest) -> ModelResponse:
        import anthropic

        headers = key_headers(self.target, ["Authorization", "X-Api-Key"], anthropic.Omit())
        options = client_options(self.target, timeout_seconds=self._timeout, max_retries=self._max_retries)
        async with mapped_errors(anthropic.AnthropicError), anthropic.AsyncAnthropic(**options) as client:
            message = await client.messages.create(**self.payload(request), extra_headers=headers)
        return self._parse(message.model_dump(), request)

    def payload(self, request: ModelRequest) -> dict[str, Any]:
        system, messages = to_messages(request.messages)
        payload: dict[str, Any] = {
            "model": self.target.model,
            "max_tokens": self._max_tokens,
            "messages": messages,
        }
        if system:
            payload["system"] = system
        tools = [
            {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "input_schema": tool.get("parameters", {"type": "object", "properties": {}}),
            }
            for tool in request.tools
        ]
        if request.output_schema is not None:
            tools.append(
                {
                    "name": FINAL_ANSWER_TOOL,
                    "description": FINAL_ANSWER_DESCRIPTION,
                    "input_schema": object_schema(request.output_schema),
                }
            )
        if tools:
            payload["tools"] = tools
        if self.target.temperature is not None:
            payload["temperature"] = min(self.target.temperature, 1.0)
        return payload

    def _parse(self, body: dict[str, Any], request: ModelRequest) -> ModelResponse:
        blocks = body.get("content")
        if not isinstance(blocks, list):
            raise ModelError("the model server answered without content", True)
        texts = [b.get("text") or "" for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        text = "".join(texts) if texts else None
        calls: list[ToolCall] = []
        structured: Any = None
        answered = False
        for position, block in enumerate(blocks):
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            name = block.get("name")
            arguments = block.get("input")
            if not isinstance(name, str) or not name or not isinstance(arguments, dict):
                raise ModelError("the model asked for a tool call without a name or an input object", True)
            if name == FINAL_ANSWER_TOOL and request.output_schema is not None:
                structured = unwrapped(arguments, request.output_schema)
                answered = True
                continue
            call_id = block.get("id")
            calls.append(
                ToolCall(
                    id=call_id
                    if isinstance(call_id, str) and call_id
                    else f"call_{request.call_index}_{position}",
                    name=name,
                    arguments=arguments,
                )
            )
        if answered:
            # The answer ends the turn; tool calls made beside it are not run.
            calls = []
            text = text or json.dumps(structured, ensure_ascii=False)
        if request.output_schema is not None and not calls and not answered:
            structured = parse_structured(text)
        return ModelResponse(
            text=text,
            tool_calls=calls,
            final=not calls,
            structured=structured,
            usage=self._usage(body.get("usage")),
        )

    def _usage(self, raw: Any) -> Usage:
        """The call's tokens and price: the Messages API's `input_tokens` leaves out the tokens read
        from (`cache_read_input_tokens`) and written to (`cache_creation_input_tokens`) the prompt
        cache, so the call's input is the three added up."""
        raw = raw if isinstance(raw, dict) else {}
        cache_read = int(raw.get("cache_read_input_tokens") or 0)
        cache_write = int(raw.get("cache_creation_input_tokens") or 0)
        input_tokens = int(raw.get("input_tokens") or 0) + cache_read + cache_write
        output_tokens = int(raw.get("output_tokens") or 0)
        cost = cost_usd(
            self.target,
            input_tokens,
            output_tokens,
            cache_read_tokens=cache_read,
            cache_write_tokens=cache_write,
        )
        return Usage.priced(input_tokens, output_tokens, cost)


def to_messages(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The system text and the Messages API turns for OpenAI-style chat `messages`."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})

    for message in messages:
        role = message.get("role")
        content = message.get("content")
        if role == "system":
            if content:
                system.append(str(content))
        elif role == "user":
            add("user", [{"type": "text", "text": str(content or " ")}])
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            if content:
                blocks.append({"type": "text", "text": str(content)})
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                try:
                    arguments = json.loads(function.get("arguments") or "{}")
                except json.JSONDecodeError:
                    arguments = {}
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call.get("id"),
                        "name": function.get("name"),
                        "input": arguments if isinstance(arguments, dict) else {},
                    }
                )
            add("assistant", blocks)
        elif role == "tool":
            add(
                "user",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": message.get("tool_call_id"),
                        "content": str(content),
                    }
                ],
            )
    if turns and turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": [{"type": "text", "text": "Begin."}]})
    return "\n\n".join(system), turns
