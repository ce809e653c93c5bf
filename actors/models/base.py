"""What the agent loop exchanges with a model provider, whatever the provider is.

Messages are OpenAI-style chat dicts, the form the runtime stores them in and the `openai`
provider sends unchanged (`actors.models.messages` builds them):
`{"role": "system" | "user", "content": str}`,
`{"role": "assistant", "content": str | None, "tool_calls"?: [{"id", "type": "function",
"function": {"name", "arguments": JSON text}}]}` and
`{"role": "tool", "tool_call_id": str, "content": str}`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from actors.models.templates import TemplateContext as TemplateContext


@dataclass(frozen=True)
class Usage:
    """Tokens and money charged for one model call; `+` adds two up.

    `cost_known` is false when the model has no known price (actors.models.pricing): `cost_usd` is
    then 0.0 for this call, and the task's usage says its cost is unknown."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True

    @classmethod
    def priced(cls, input_tokens: int, output_tokens: int, cost_usd: float | None) -> Usage:
        """A call's usage from `pricing.cost_usd`'s answer (None: the price is unknown)."""
        return cls(input_tokens, output_tokens, cost_usd or 0.0, cost_usd is not None)

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cost_usd + other.cost_usd,
            self.cost_known and other.cost_known,
        )


@dataclass(frozen=True)
class ToolCall:
    """One tool call the model asked for; `id` pairs it with its `tool` result message."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ModelRequest:
    """One model call of a task.

    `tools` are the model-facing schemas `{name, description, parameters}`. `call_index` counts the
    model calls this task made before this one, failed ones included: the scripted provider plays
    turn `call_index`, so a retry plays the next turn. `output_schema`, when set, asks for a final
    answer that is JSON matching it.
    """

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    call_index: int
    context: TemplateContext
    output_schema: dict[str, Any] | None = None


@dataclass(frozen=True)
class ModelResponse:
    """What the model decided in one call.

    `final` is true when the model ended its turn without calling tools: `text` is then the final
    answer. With tool calls, `text` (if any) is an interim message. `structured` is the structured
    output written by this call, `data_fields` data-field values it set (scripted turns only).
    """

    text: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    final: bool = True
    structured: Any | None = None
    data_fields: dict[str, Any] | None = None
    usage: Usage = field(default_factory=Usage)


class ModelError(Exception):
    """A model call that failed. `retryable` says whether calling again may succeed;
    `retry_after_seconds` is how long the provider asked to wait first (a 429's Retry-After);
    `usage` is what the provider charged for it all the same (an answer that failed its output
    schema was still paid for)."""

    def __init__(
        self,
        message: str,
        retryable: bool,
        retry_after_seconds: float | None = None,
        *,
        usage: Usage | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.retry_after_seconds = retry_after_seconds
        self.usage = usage


class ModelConfigError(ValueError):
    """An agent's `model` setting that names no usable provider; the message says what is wrong."""


class ModelProvider(Protocol):
    """A model behind one async call. Providers hold no per-task state between calls."""

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Run one model call; raise `ModelError` when it fails."""
        ...
