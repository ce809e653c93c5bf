"""The final structured answer checked against the output schema (docs/contract.md section 2,
"Structured output").

A real model may answer with JSON that does not match the schema (or no JSON at all). The model
then gets one more turn that quotes the validation errors; if that answer still does not match, the
call fails (retryable) and the runtime's retries, then its failure policy, take over. The scripted
model plays what its turns say, so it gets no repair turn: an answer of its that does not match
fails the call the same way, and the retry plays the next turn.

An agent's schema is compiled when the agent is saved or run (`actors.models.schema_check`), so a
schema that cannot check an answer never reaches a model; one saved before that raises
UnusableSchema, and the task goes to its failure policy without another call.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from actors.models.base import ModelError, ModelProvider, ModelRequest, ModelResponse, Usage
from actors.models.messages import assistant_message, user_message
from actors.models.schema_check import answer_errors


@dataclass
class Bill:
    """What the calls of one model turn cost so far, added as each call returns: whatever fails
    after a call (checking its answer, the repair turn), the call is still charged."""

    usage: Usage | None = None

    def add(self, usage: Usage) -> None:
        self.usage = usage if self.usage is None else self.usage + usage


async def schema_errors(schema: dict[str, Any], response: ModelResponse) -> list[str]:
    """Why the response's structured answer does not match `schema`, as `<path in the answer>:
    <what is wrong>`; empty when it does. UnusableSchema when the schema cannot check it."""
    if response.structured is None:
        return ["the answer is not a JSON value"]
    return await answer_errors(schema, response.structured)


def mismatch(errors: list[str]) -> ModelError:
    """The failed call of an answer that does not match the schema (retryable: another answer may);
    its usage is on the turn's Bill."""
    return ModelError(f"the answer does not match the output schema: {errors[0]}", True)


def repair_text(errors: list[str]) -> str:
    listed = "\n".join(f"- {error}" for error in errors)
    return (
        "Your answer does not match the required output schema:\n"
        f"{listed}\n"
        "Answer again with only the corrected JSON."
    )


async def checked_answer(response: ModelResponse, schema: dict[str, Any]) -> ModelResponse:
    """`response` when its answer matches `schema`; the `mismatch` ModelError otherwise."""
    errors = await schema_errors(schema, response)
    if errors:
        raise mismatch(errors)
    return response


async def matching_answer(
    provider: ModelProvider,
    request: ModelRequest,
    response: ModelResponse,
    schema: dict[str, Any],
    bill: Bill,
) -> ModelResponse:
    """`response` when its answer matches `schema`, else the answer of one repair turn (usage of
    both calls added up, and the repair call's put on `bill` as soon as it returns); ModelError
    (retryable) when the repaired answer still does not match."""
    errors = await schema_errors(schema, response)
    if not errors:
        return response
    repair = replace(
        request,
        messages=[*request.messages, assistant_message(response), user_message(repair_text(errors))],
        tools=[],
        call_index=request.call_index + 1,
    )
    second = await provider.complete(repair)
    bill.add(second.usage)
    second = replace(second, usage=response.usage + second.usage)
    remaining = await schema_errors(schema, second) if second.final else ["the model called a tool instead"]
    if remaining:
        raise mismatch(remaining)
    return second
