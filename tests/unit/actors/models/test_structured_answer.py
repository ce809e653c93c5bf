import pytest

from actors.models.base import ModelError, ModelRequest, ModelResponse, Usage
from actors.models.scripted import ScriptedProvider
from actors.models.structured import matching_answer, schema_errors
from actors.models.templates import TemplateContext

pytestmark = pytest.mark.unit

SCHEMA = {"type": "object", "properties": {"total": {"type": "number"}}, "required": ["total"]}


def request() -> ModelRequest:
    return ModelRequest(
        messages=[{"role": "user", "content": "sum"}], tools=[], call_index=0, context=TemplateContext()
    )


def test_errors_name_the_path() -> None:
    assert schema_errors(SCHEMA, ModelResponse(structured={"total": 3})) == []
    assert schema_errors(SCHEMA, ModelResponse(structured={"total": "3"})) == [
        "total: '3' is not of type 'number'"
    ]
    assert schema_errors(SCHEMA, ModelResponse(structured=None)) == ["the answer is not a JSON value"]


async def test_one_repair_turn_quotes_the_errors_and_adds_up_usage() -> None:
    provider = ScriptedProvider(
        [
            {"answer": "x"},
            {"answer": '{"total": 3}', "structured": {"total": 3}, "usage": {"input_tokens": 5}},
        ]
    )
    first = ModelResponse(text='{"total": "3"}', structured={"total": "3"}, usage=Usage(10, 1, 0.0))
    repaired = await matching_answer(provider, request(), first, SCHEMA)
    assert repaired.structured == {"total": 3}
    assert repaired.usage.input_tokens == 15


async def test_a_second_mismatch_is_a_retryable_model_error() -> None:
    provider = ScriptedProvider([{"answer": "x"}, {"answer": "still wrong"}])
    with pytest.raises(ModelError) as info:
        await matching_answer(provider, request(), ModelResponse(text="nope"), SCHEMA)
    assert info.value.retryable and "does not match the output schema" in info.value.message
