"""The `openai` model provider: any OpenAI-compatible Chat Completions endpoint, through the official SDK.

Messages are sent as the runtime stores them (OpenAI-style dicts, see `actors.models.base`). The SDK
retries rate limits, server errors and broken connections itself, honouring the server's
Retry-After; what still fails is mapped onto the failure policy by `actors.models.errors`. How the
client is built (the key, the guarded connection) is `actors.models.sdk_client`'s.
"""

from __future__ import annotations

import json
from typing import Any

from actors.models.base import ModelError, ModelRequest, ModelResponse, ToolCall, Usage
from actors.models.pricing import cost_usd
from actors.models.sdk_client import (
    DEFAULT_SDK_RETRIES,
    DEFAULT_TIMEOUT_SECONDS,
    client_options,
    key_headers,
    mapped_errors,
)
from actors.models.targets import ModelTarget

#: The tool through which a structured answer is given when tools are offered too.
FINAL_ANSWER_TOOL = "final_answer"
FINAL_ANSWER_DESCRIPTION = "Give the final answer, matching this schema. Call it once, last."


class OpenAIProvider:
    """Calls `{target.base_url}/chat/completions` for `target.model`."""

    def __init__(
        self,
        target: ModelTarget,
        *,
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
        max_retries: int = DEFAULT_SDK_RETRIES,
    ) -> None:
        self.target = target
        self._timeout = timeout_seconds
        self._max_retries = max_retries

    @property
    def model(self) -> str:
        return self.target.model

    async def complete(self, request: ModelRequest) -> ModelResponse:
        import openai

        headers = key_headers(self.target, ["Authorization"], openai.Omit())
        options = client_options(self.target, timeout_seconds=self._timeout, max_retries=self._max_retries)
        async with mapped_errors(openai.OpenAIError), openai.AsyncOpenAI(**options) as client:
            completion = await client.chat.completions.create(**self._payload(request), extra_headers=headers)
        return self._parse(completion.model_dump(), request)

    def _payload(self, request: ModelRequest) -> dict[str, Any]:
        payload: dict[str, Any] = {"model": self.target.model, "messages": request.messages}
        if request.tools:
            payload["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": tool["name"],
                        "description": tool.get("description", ""),
                        "parameters": tool.get("parameters", {"type": "object", "properties": {}}),
                    },
                }
                for tool in request.tools
            ]
        if self.target.temperature is not None:
            payload["temperature"] = self.target.temperature
        if request.output_schema is None:
            return payload
        if request.tools:
            # Structured output is for the answer only: beside tools it is a final-answer tool, so
            # the steps that call tools are not forced into the answer's shape.
            payload["tools"].append(
                {
                    "type": "function",
                    "function": {
                        "name": FINAL_ANSWER_TOOL,
                        "description": FINAL_ANSWER_DESCRIPTION,
                        "parameters": object_schema(request.output_schema),
                    },
                }
            )
        else:
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "output", "schema": request.output_schema, "strict": False},
            }
        return payload

    def _parse(self, body: dict[str, Any], request: ModelRequest) -> ModelResponse:
        choices = body.get("choices") or []
        message = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
        if not isinstance(message, dict):
            raise ModelError("the model server answered without a message", True)
        content = message.get("content")
        text = content if isinstance(content, str) else None
        tool_calls = [
            _tool_call(raw, request.call_index, position)
            for position, raw in enumerate(message.get("tool_calls") or [])
        ]
        structured = None
        answer = next((c for c in tool_calls if c.name == FINAL_ANSWER_TOOL), None)
        if request.output_schema is not None and answer is not None:
            # The answer ends the turn; tool calls made beside it are not run.
            structured = unwrapped(answer.arguments, request.output_schema)
            tool_calls = []
            text = text or json.dumps(structured, ensure_ascii=False)
        elif request.output_schema is not None and not tool_calls:
            structured = parse_structured(text)
        return ModelResponse(
            text=text,
            tool_calls=tool_calls,
            final=not tool_calls,
            structured=structured,
            usage=self._usage(body.get("usage")),
        )

    def _usage(self, raw: Any) -> Usage:
        """The call's tokens and price: `prompt_tokens` counts the cached input too, and
        `prompt_tokens_details.cached_tokens` says how many of them were read from the cache."""
        raw = raw if isinstance(raw, dict) else {}
        details = raw.get("prompt_tokens_details")
        details = details if isinstance(details, dict) else {}
        input_tokens = int(raw.get("prompt_tokens") or 0)
        output_tokens = int(raw.get("completion_tokens") or 0)
        cost = cost_usd(
            self.target,
            input_tokens,
            output_tokens,
            cache_read_tokens=int(details.get("cached_tokens") or 0),
            cache_write_tokens=int(details.get("cache_write_tokens") or 0),
        )
        return Usage.priced(input_tokens, output_tokens, cost)


def _tool_call(raw: Any, call_index: int, position: int) -> ToolCall:
    function = raw.get("function") if isinstance(raw, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    if not isinstance(function, dict) or not isinstance(name, str) or not name:
        raise ModelError("the model asked for a tool call without a tool name", True)
    text = function.get("arguments") or "{}"
    try:
        arguments = json.loads(text) if isinstance(text, str) else text
    except json.JSONDecodeError:
        raise ModelError(f"the model sent arguments for tool {name} that are not valid JSON", True) from None
    if not isinstance(arguments, dict):
        raise ModelError(f"the model sent arguments for tool {name} that are not a JSON object", True)
    call_id = raw.get("id")
    return ToolCall(
        id=call_id if isinstance(call_id, str) and call_id else f"call_{call_index}_{position}",
        name=name,
        arguments=arguments,
    )


def parse_structured(text: str | None) -> Any:
    """The JSON a model wrote for the output schema (a fenced ```json block accepted too), or None
    when it wrote none: the runtime's schema check then gives the model a repair turn."""
    body = (text or "").strip()
    if body.startswith("```"):
        body = body.strip("`")
        body = body[4:] if body.lower().startswith("json") else body
    try:
        return json.loads(body) if body else None
    except json.JSONDecodeError:
        return None


def object_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Tool inputs are objects: a schema of another type is wrapped as `{"value": ...}`."""
    if schema.get("type") == "object":
        return schema
    return {"type": "object", "properties": {"value": schema}, "required": ["value"]}


def unwrapped(arguments: dict[str, Any], schema: dict[str, Any]) -> Any:
    return arguments if schema.get("type") == "object" else arguments.get("value")
