"""The scripted model: a deterministic model played from a list of turns (docs/scripted-model.md).

Call number `call_index` of a task plays turn `call_index`, so a retried call plays the next turn
and a task resumed by a new actor continues where the script left off. The provider keeps no state
of its own.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from typing import Any

import jsonschema
from jsonschema.exceptions import best_match

from actors.models.base import (
    ModelConfigError,
    ModelError,
    ModelRequest,
    ModelResponse,
    ToolCall,
    Usage,
)
from actors.models.templates import render

#: The error text of a call made after the last turn (docs/scripted-model.md).
SCRIPT_EXHAUSTED = "script exhausted"

#: What the bare string `scripted` plays on every call: it answers every query with the query.
ECHO_TURN: Mapping[str, Any] = {"answer": "{{query}}"}

#: The keys a TURN may hold (docs/scripted-model.md, the TURN table); anything else is a typo.
TURN_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "delay_seconds": {"type": "number", "minimum": 0},
        "error": {"type": "string"},
        "tool_calls": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name"],
                "properties": {"name": {"type": "string", "minLength": 1}, "arguments": {"type": "object"}},
            },
        },
        "answer": {"type": "string"},
        "structured": {},
        "data_fields": {"type": "object"},
        "usage": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "input_tokens": {"type": "integer", "minimum": 0},
                "output_tokens": {"type": "integer", "minimum": 0},
                "cost_usd": {"type": "number", "minimum": 0},
            },
        },
    },
}

_TURN_VALIDATOR = jsonschema.Draft202012Validator(TURN_SCHEMA)


class ScriptedProvider:
    """Plays `turns` in order; without turns (`None`) it plays `ECHO_TURN` on every call.

    Raises `ModelConfigError` naming the first bad turn when a turn does not fit `TURN_SCHEMA`.
    """

    def __init__(self, turns: Sequence[Mapping[str, Any]] | None = None) -> None:
        self._turns: Sequence[Mapping[str, Any]] | None = None if turns is None else _checked(turns)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        turn = self._turn(request.call_index)
        # A cancel during the delay propagates as CancelledError: the task stops mid-call.
        await asyncio.sleep(float(turn.get("delay_seconds", 0)))
        rendered: dict[str, Any] = render(dict(turn), request.context)
        if "error" in rendered:
            raise ModelError(_text(rendered["error"]), retryable=True)
        tool_calls = [
            ToolCall(
                id=f"call_{request.call_index}_{position}",
                name=_text(call["name"]),
                arguments=dict(call.get("arguments", {})),
            )
            for position, call in enumerate(rendered.get("tool_calls", []))
        ]
        answer = rendered.get("answer")
        return ModelResponse(
            text=None if answer is None else _text(answer),
            tool_calls=tool_calls,
            final=not tool_calls,
            structured=rendered.get("structured"),
            data_fields=rendered.get("data_fields"),
            usage=_usage(turn.get("usage", {})),
        )

    def _turn(self, call_index: int) -> Mapping[str, Any]:
        if self._turns is None:
            return ECHO_TURN
        if not 0 <= call_index < len(self._turns):
            raise ModelError(SCRIPT_EXHAUSTED, retryable=False)
        return self._turns[call_index]


def _checked(turns: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    if isinstance(turns, str | bytes) or not isinstance(turns, Sequence):
        raise ModelConfigError("scripted model: `turns` must be a list of turn objects")
    for number, turn in enumerate(turns):
        error = best_match(_TURN_VALIDATOR.iter_errors(turn))
        if error is not None:
            where = "".join(f"[{part!r}]" for part in error.absolute_path)
            raise ModelConfigError(f"scripted model: turns[{number}]{where}: {error.message}")
    return list(turns)


def _usage(raw: Mapping[str, Any]) -> Usage:
    return Usage(
        input_tokens=int(raw.get("input_tokens", 0)),
        output_tokens=int(raw.get("output_tokens", 0)),
        cost_usd=float(raw.get("cost_usd", 0.0)),
    )


def _text(value: Any) -> str:
    """A rendered value where text is needed: a template may have turned it into another type."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
