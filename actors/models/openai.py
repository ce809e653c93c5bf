"""The `openai` model provider: OpenAI-compatible chat completions with tool calling, over httpx.

Messages are sent as the runtime stores them (OpenAI-style dicts, see `actors.models.base`). Rate
limits (429) and server errors (5xx), timeouts and connection failures are retried here with
exponential backoff, honouring `Retry-After`, up to a bounded number of attempts; the error raised
after the last attempt is retryable, so the runtime's own step retries still apply. Any other 4xx is
a request the server will never accept and is not retried.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import random
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from actors.models.base import ModelError, ModelRequest, ModelResponse, ToolCall, Usage
from actors.models.pricing import cost_usd

logger = logging.getLogger(__name__)

#: Where requests go when neither the agent's `base_url` nor OPENAI_BASE_URL is set.
DEFAULT_BASE_URL = "https://api.openai.com/v1"

#: Longest wait for one HTTP exchange with the model server.
DEFAULT_TIMEOUT_SECONDS = 120.0

#: Attempts per model call, the first included, before a transient failure is reported.
DEFAULT_MAX_ATTEMPTS = 4

#: First backoff delay; it doubles with every attempt, with jitter, up to `MAX_BACKOFF_SECONDS`.
DEFAULT_BACKOFF_SECONDS = 1.0

#: Ceiling of one backoff delay.
MAX_BACKOFF_SECONDS = 20.0

#: A `Retry-After` longer than this is not waited out inside the call: the call fails (retryable).
MAX_RETRY_AFTER_SECONDS = 60.0

#: How much of a server's error text is kept in the error message.
_ERROR_DETAIL_CHARS = 300


class OpenAIProvider:
    """Calls `{base_url}/chat/completions` for model `model`.

    `client` lets many calls share one connection pool; without it each call opens its own.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None,
        base_url: str = DEFAULT_BASE_URL,
        temperature: float | None = None,
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        backoff_seconds: float = DEFAULT_BACKOFF_SECONDS,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.temperature = temperature
        self._api_key = api_key
        self._timeout = timeout_seconds
        self._max_attempts = max_attempts
        self._backoff = backoff_seconds
        self._client = client

    async def complete(self, request: ModelRequest) -> ModelResponse:
        payload = self._payload(request)
        if self._client is not None:
            body = await self._post(self._client, payload)
        else:
            async with httpx.AsyncClient() as client:
                body = await self._post(client, payload)
        return self._parse(body, request)

    def _payload(self, request: ModelRequest) -> dict[str, Any]:
        payload: dict[str, Any] = {"model": self.model, "messages": request.messages}
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
        if self.temperature is not None:
            payload["temperature"] = self.temperature
        if request.output_schema is not None:
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "output", "schema": request.output_schema, "strict": False},
            }
        return payload

    async def _post(self, client: httpx.AsyncClient, payload: dict[str, Any]) -> Any:
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        url = f"{self.base_url}/chat/completions"
        attempt = 0
        while True:
            attempt += 1
            wait = self._backoff_delay(attempt)
            try:
                response = await client.post(url, json=payload, headers=headers, timeout=self._timeout)
            except httpx.TimeoutException:
                failure = ModelError(f"the model server did not answer within {self._timeout:g} s", True)
                reason = "timeout"
            except httpx.TransportError as exc:
                failure = ModelError(f"could not reach the model server ({type(exc).__name__})", True)
                reason = type(exc).__name__
            else:
                if response.is_success:
                    return _json_body(response)
                status = response.status_code
                if status != 429 and status < 500:
                    raise ModelError(f"the model server refused the request: {_describe(response)}", False)
                failure = ModelError(f"the model server failed: {_describe(response)}", True)
                reason = f"HTTP {status}"
                retry_after = _retry_after_seconds(response.headers)
                if retry_after is not None:
                    if retry_after > MAX_RETRY_AFTER_SECONDS:
                        raise ModelError(f"{failure.message}; retry after {retry_after:g} s", True)
                    wait = retry_after
            if attempt == self._max_attempts:
                raise failure
            # Only the kind of failure is logged: a server's error text may quote the request.
            logger.warning(
                "model call attempt %d/%d failed (%s), retrying in %.2f s",
                attempt,
                self._max_attempts,
                reason,
                wait,
            )
            await asyncio.sleep(wait)

    def _backoff_delay(self, attempt: int) -> float:
        # Jitter spreads out many tasks that were rate-limited at the same moment.
        delay = min(self._backoff * 2.0 ** (attempt - 1), MAX_BACKOFF_SECONDS)
        return delay * random.uniform(0.5, 1.0)

    def _parse(self, body: Any, request: ModelRequest) -> ModelResponse:
        try:
            message = body["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            raise ModelError("the model server answered without a message", True) from None
        if not isinstance(message, dict):
            raise ModelError("the model server answered without a message", True)
        content = message.get("content")
        text = content if isinstance(content, str) else None
        tool_calls = [
            _tool_call(raw, request.call_index, position)
            for position, raw in enumerate(message.get("tool_calls") or [])
        ]
        structured = None
        if request.output_schema is not None and not tool_calls:
            structured = _structured(text)
        raw_usage = body.get("usage") or {}
        input_tokens = int(raw_usage.get("prompt_tokens") or 0)
        output_tokens = int(raw_usage.get("completion_tokens") or 0)
        return ModelResponse(
            text=text,
            tool_calls=tool_calls,
            final=not tool_calls,
            structured=structured,
            usage=Usage(input_tokens, output_tokens, cost_usd(self.model, input_tokens, output_tokens)),
        )


def _json_body(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        raise ModelError("the model server answered with a body that is not JSON", True) from None


def _describe(response: httpx.Response) -> str:
    """`HTTP <status>` plus the server's own error message, shortened."""
    detail: Any = None
    try:
        body = response.json()
    except ValueError:
        detail = response.text
    else:
        error = body.get("error") if isinstance(body, dict) else None
        detail = error.get("message") if isinstance(error, dict) else error
    detail = str(detail or "").strip()[:_ERROR_DETAIL_CHARS]
    return f"HTTP {response.status_code}: {detail}" if detail else f"HTTP {response.status_code}"


def _retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The server's requested wait: `retry-after-ms`, or `Retry-After` in seconds or as a date."""
    milliseconds = _seconds(headers.get("retry-after-ms"))
    if milliseconds is not None:
        return milliseconds / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _seconds(value)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)


def _seconds(text: str | None) -> float | None:
    """A non-negative finite number from header text, or None when it is not one."""
    try:
        number = float(text) if text is not None else math.nan
    except ValueError:
        return None
    return max(number, 0.0) if math.isfinite(number) else None


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


def _structured(text: str | None) -> Any:
    if not text:
        raise ModelError("the model wrote no output for the output schema", True)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise ModelError("the model's output for the output schema is not valid JSON", True) from None
