import pytest

from actors.models.base import ModelError, ModelRequest, ModelResponse, Usage
from actors.models.schema_check import UnusableSchema, schema_problem
from actors.models.scripted import ScriptedProvider
from actors.models.structured import Bill, checked_answer, matching_answer, schema_errors
from actors.models.templates import TemplateContext

pytestmark = pytest.mark.unit

SCHEMA = {"type": "object", "properties": {"total": {"type": "number"}}, "required": ["total"]}


def request() -> ModelRequest:
    return ModelRequest(
        messages=[{"role": "user", "content": "sum"}], tools=[], call_index=0, context=TemplateContext()
    )


async def test_errors_name_the_path() -> None:
    assert await schema_errors(SCHEMA, ModelResponse(structured={"total": 3})) == []
    assert await schema_errors(SCHEMA, ModelResponse(structured={"total": "3"})) == [
        "total: '3' is not of type 'number'"
    ]
    assert await schema_errors(SCHEMA, ModelResponse(structured=None)) == ["the answer is not a JSON value"]


async def test_one_repair_turn_quotes_the_errors_and_adds_up_usage() -> None:
    provider = ScriptedProvider(
        [
            {"answer": "x"},
            {"answer": '{"total": 3}', "structured": {"total": 3}, "usage": {"input_tokens": 5}},
        ]
    )
    first = ModelResponse(text='{"total": "3"}', structured={"total": "3"}, usage=Usage(10, 1, 0.0))
    bill = Bill(first.usage)
    repaired = await matching_answer(provider, request(), first, SCHEMA, bill)
    assert repaired.structured == {"total": 3}
    assert repaired.usage.input_tokens == 15
    assert bill.usage is not None and bill.usage.input_tokens == 15


async def test_a_second_mismatch_is_a_retryable_model_error_with_both_calls_on_the_bill() -> None:
    provider = ScriptedProvider([{"answer": "x"}, {"answer": "still wrong", "usage": {"input_tokens": 4}}])
    first = ModelResponse(text="nope", usage=Usage(6, 0, 0.0))
    bill = Bill(first.usage)
    with pytest.raises(ModelError) as info:
        await matching_answer(provider, request(), first, SCHEMA, bill)
    assert info.value.retryable and "does not match the output schema" in info.value.message
    assert bill.usage is not None and bill.usage.input_tokens == 10


async def test_a_failed_repair_call_leaves_the_first_call_on_the_bill() -> None:
    # The scripted provider has no second turn to play: the repair call itself fails.
    provider = ScriptedProvider([{"answer": "x"}])
    first = ModelResponse(text="nope", usage=Usage(6, 2, 0.5))
    bill = Bill(first.usage)
    with pytest.raises(ModelError):
        await matching_answer(provider, request(), first, SCHEMA, bill)
    assert bill.usage == Usage(6, 2, 0.5)


async def test_a_scripted_answer_is_checked_without_a_repair_turn() -> None:
    good = ModelResponse(structured={"total": 3})
    assert await checked_answer(good, SCHEMA) is good
    with pytest.raises(ModelError) as info:
        await checked_answer(ModelResponse(structured={"total": "3"}, usage=Usage(4, 2, 0.5)), SCHEMA)
    assert info.value.retryable
    assert (
        info.value.message
        == "the answer does not match the output schema: total: '3' is not of type 'number'"
    )


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


async def test_an_answer_to_a_broken_schema_is_not_passed_unchecked() -> None:
    with pytest.raises(UnusableSchema, match=r"^the output schema does not compile \(type:"):
        await schema_errors({"type": "nummber"}, ModelResponse(structured=3))
