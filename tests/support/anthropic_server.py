"""A small Anthropic Messages API server for tests, on a free loopback port.

It is the OpenAI-compatible test server with the Messages API's route and error bodies: tests queue
reply bodies built with `message`, `text_block` and `tool_use` (the shapes the API documents) and
read the requests it received. 529 is the API's "overloaded".
"""

from __future__ import annotations

from typing import Any

from tests.support.openai_server import OpenAICompatibleServer

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def tool_use(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def message(
    *blocks: dict[str, Any], input_tokens: int = 0, output_tokens: int = 0, model: str = "test-model"
) -> dict[str, Any]:
    """A Messages API response body with these content blocks."""
    uses_tools = any(block["type"] == "tool_use" for block in blocks)
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(blocks),
        "stop_reason": "tool_use" if uses_tools else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


class AnthropicServer(OpenAICompatibleServer):
    """Serves `POST /v1/messages`; `base_url` is the host root, as the SDK expects."""

    ROUTE = "/v1/messages"
    BASE_PATH = ""
    NAME = "anthropic"

    def error_body(self, status: int, message: str) -> Any:
        kind = _ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
