"""The final structured answer checked against the output schema (docs/contract.md section 2,
"Structured output").

A real model may answer with JSON that does not match the schema (or no JSON at all). The model
then gets one more turn that quotes the validation errors; if that answer still does not match, the
call fails (retryable) and the runtime's retries, then its failure policy, take over. The scripted
model plays what its turns say, so it gets no repair turn: an answer of its that does not match
fails the call the same way, and the retry plays the next turn.

An agent's schema is checked when the agent is saved (`schema_problem`), so a schema that is not
valid JSON Schema never reaches a model.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import jsonschema
from jsonschema.exceptions import best_match

from actors.models.base import ModelError, ModelProvider, ModelRequest, ModelResponse
from actors.models.messages import assistant_message, user_message

#: Validation errors quoted to the model in the repair turn.
MAX_QUOTED_ERRORS = 5


def _where(path: Any) -> str:
    return "/".join(str(part) for part in path) or "(root)"


def schema_problem(schema: Any) -> tuple[str, str] | None:
    """Why `schema` cannot be an output schema: the dotted path inside the schema ('' for the whole
    schema) and what is wrong there; None when it is a valid JSON Schema object (Draft 2020-12)."""
    if not isinstance(schema, dict):
        return "", "an output schema must be a JSON Schema object"
    meta = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA)
    error = best_match(meta.iter_errors(schema))
    if error is None:
        return None
    return ".".join(str(part) for part in error.absolute_path), error.message


def schema_errors(schema: dict[str, Any], response: ModelResponse) -> list[str]:
    """Why the response's structured answer does not match `schema`, as `<path in the answer>:
    <what is wrong>`; empty when it does."""
    problem = schema_problem(schema)
    if problem is not None:
        # Only a schema saved before schemas were checked can get here: say so rather than pass.
        return [f"the output schema is not valid JSON Schema ({problem[0] or '(root)'}: {problem[1]})"]
    if response.structured is None:
        return ["the answer is not a JSON value"]
    validator = jsonschema.Draft202012Validator(schema)
    found = sorted(
        validator.iter_errors(response.structured), key=lambda e: [str(p) for p in e.absolute_path]
    )
    return [f"{_where(error.absolute_path)}: {error.message}" for error in found[:MAX_QUOTED_ERRORS]]


def mismatch(errors: list[str], response: ModelResponse) -> ModelError:
    """The failed call of an answer that does not match the schema (retryable: another answer may);
    the answer's usage stays charged."""
    return ModelError(f"the answer does not match the output schema: {errors[0]}", True, usage=response.usage)


def repair_text(errors: list[str]) -> str:
    listed = "\n".join(f"- {error}" for error in errors)
    return (
        "Your answer does not match the required output schema:\n"
        f"{listed}\n"
        "Answer again with only the corrected JSON."
    )


def checked_answer(response: ModelResponse, schema: dict[str, Any]) -> ModelResponse:
    """`response` when its answer matches `schema`; the `mismatch` ModelError otherwise."""
    errors = schema_errors(schema, response)
    if errors:
        raise mismatch(errors, response)
    return response


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
        raise mismatch(remaining, second)
    return second
