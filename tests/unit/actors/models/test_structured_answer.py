import pytest

from actors.models.base import ModelError, ModelRequest, ModelResponse, Usage
from actors.models.scripted import ScriptedProvider
from actors.models.structured import checked_answer, matching_answer, schema_errors, schema_problem
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
    # Both answers were paid for: the failed call carries their usage.
    assert info.value.usage is not None


def test_a_scripted_answer_is_checked_without_a_repair_turn() -> None:
    good = ModelResponse(structured={"total": 3})
    assert checked_answer(good, SCHEMA) is good
    with pytest.raises(ModelError) as info:
        checked_answer(ModelResponse(structured={"total": "3"}, usage=Usage(4, 2, 0.5)), SCHEMA)
    assert info.value.retryable
    assert (
        info.value.message
        == "the answer does not match the output schema: total: '3' is not of type 'number'"
    )
    assert info.value.usage == Usage(4, 2, 0.5)


def test_a_schema_problem_names_its_path_inside_the_schema() -> None:
    assert schema_problem(SCHEMA) is None
    assert schema_problem({"type": "object", "properties": {"age": {"type": "nummber"}}}) == (
        "properties.age.type",
        "'nummber' is not valid under any of the given schemas",
    )
    assert schema_problem({"type": "object", "required": "name"}) == (
        "required",
        "'name' is not of type 'array'",
    )
    assert schema_problem(["not", "a", "schema"]) == ("", "an output schema must be a JSON Schema object")


def test_an_answer_to_a_broken_schema_is_not_passed_unchecked() -> None:
    (error,) = schema_errors({"type": "nummber"}, ModelResponse(structured=3))
    assert error.startswith("the output schema is not valid JSON Schema (type:")
