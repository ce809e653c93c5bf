"""The final structured answer checked against the agent's output schema, with one repair turn.

A real model may answer with JSON that does not match the schema (or no JSON at all). The model
then gets one more turn that quotes the validation errors; if that answer still does not match, the
call fails (retryable) and the runtime's failure policy takes over.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import jsonschema

from actors.models.base import ModelError, ModelProvider, ModelRequest, ModelResponse
from actors.models.messages import assistant_message, user_message

#: Validation errors quoted to the model in the repair turn.
MAX_QUOTED_ERRORS = 5


def schema_errors(schema: dict[str, Any], response: ModelResponse) -> list[str]:
    """Why the response's structured answer does not match `schema`; empty when it does."""
    if response.structured is None:
        return ["the answer is not a JSON value"]
    try:
        validator = jsonschema.Draft202012Validator(schema)
        found = sorted(validator.iter_errors(response.structured), key=lambda e: list(e.absolute_path))
    except jsonschema.SchemaError:
        # The agent's own schema is broken: nothing the model writes can be checked against it.
        return []
    return [
        f"{'/'.join(str(p) for p in error.absolute_path) or '(root)'}: {error.message}"
        for error in found[:MAX_QUOTED_ERRORS]
    ]


def repair_text(errors: list[str]) -> str:
    listed = "\n".join(f"- {error}" for error in errors)
    return (
        "Your answer does not match the required output schema:\n"
        f"{listed}\n"
        "Answer again with only the corrected JSON."
    )


async def matching_answer(
    provider: ModelProvider, request: ModelRequest, response: ModelResponse, schema: dict[str, Any]
) -> ModelResponse:
    """`response` when its answer matches `schema`, else the answer of one repair turn (usage of
    both calls added up); ModelError (retryable) when the repaired answer still does not match."""
    errors = schema_errors(schema, response)
    if not errors:
        return response
    repair = replace(
        request,
        messages=[*request.messages, assistant_message(response), user_message(repair_text(errors))],
        tools=[],
        call_index=request.call_index + 1,
    )
    second = await provider.complete(repair)
    second = replace(second, usage=response.usage + second.usage)
    remaining = schema_errors(schema, second) if second.final else ["the model called a tool instead"]
    if remaining:
        raise ModelError(f"the answer does not match the output schema: {remaining[0]}", True)
    return second
