import asyncio
import time
from typing import Any

import pytest

from actors.models.base import ModelConfigError, ModelError, ModelRequest, ToolCall, Usage
from actors.models.scripted import SCRIPT_EXHAUSTED, ScriptedProvider
from actors.models.templates import TemplateContext

pytestmark = pytest.mark.unit


def request(call_index: int, **context: Any) -> ModelRequest:
    ctx = TemplateContext(**{"query": "the query", "last_user_message": "latest", **context})
    return ModelRequest(messages=[], tools=[], call_index=call_index, context=ctx)


async def test_bare_scripted_echoes_the_query_on_every_call() -> None:
    model = ScriptedProvider()
    for index in (0, 1, 57):
        response = await model.complete(request(index))
        assert response.text == "the query"
        assert response.final is True
        assert response.tool_calls == []
        assert response.usage == Usage()


async def test_each_call_plays_turn_call_index() -> None:
    model = ScriptedProvider([{"answer": "zero"}, {"answer": "one"}, {"answer": "two"}])
    assert (await model.complete(request(2))).text == "two"
    assert (await model.complete(request(0))).text == "zero"
    assert (await model.complete(request(1))).text == "one"


async def test_error_turn_fails_and_a_retry_consumes_the_next_turn() -> None:
    model = ScriptedProvider([{"error": "boom for {{query}}"}, {"answer": "recovered"}])
    with pytest.raises(ModelError) as info:
        await model.complete(request(0))
    assert info.value.message == "boom for the query"
    assert info.value.retryable is True
    # The runtime counts the failed call, so the retry is call 1 and plays the next turn.
    assert (await model.complete(request(1))).text == "recovered"


@pytest.mark.parametrize("turns", [[], [{"answer": "only"}]])
async def test_out_of_turns_is_script_exhausted(turns: list[dict[str, Any]]) -> None:
    model = ScriptedProvider(turns)
    with pytest.raises(ModelError) as info:
        await model.complete(request(len(turns)))
    assert info.value.message == SCRIPT_EXHAUSTED == "script exhausted"
    assert info.value.retryable is False


async def test_tool_calls_get_deterministic_ids_and_rendered_arguments() -> None:
    model = ScriptedProvider(
        [
            {},
            {},
            {
                "tool_calls": [
                    {"name": "ask_user", "arguments": {"question": "About {{query}}?"}},
                    {"name": "parse_document"},
                ]
            },
        ]
    )
    response = await model.complete(request(2))
    assert response.final is False
    assert response.text is None
    assert response.tool_calls == [
        ToolCall(id="call_2_0", name="ask_user", arguments={"question": "About the query?"}),
        ToolCall(id="call_2_1", name="parse_document", arguments={}),
    ]


async def test_answer_with_tool_calls_is_an_interim_message() -> None:
    model = ScriptedProvider([{"answer": "working on it", "tool_calls": [{"name": "t", "arguments": {}}]}])
    response = await model.complete(request(0))
    assert response.text == "working on it"
    assert response.final is False
    assert [call.name for call in response.tool_calls] == ["t"]


async def test_structured_data_fields_and_usage() -> None:
    model = ScriptedProvider(
        [
            {
                "answer": "done",
                "structured": {"count": "{{last_tool_result.n}}", "label": "n={{last_tool_result.n}}"},
                "data_fields": {"patient": "{{last_tool_result.who.name}}"},
                "usage": {"input_tokens": 12, "output_tokens": 5, "cost_usd": 0.25},
            }
        ]
    )
    response = await model.complete(request(0, last_tool_result={"n": 4, "who": {"name": "Bo"}}))
    assert response.final is True
    assert response.text == "done"
    assert response.structured == {"count": 4, "label": "n=4"}
    assert response.data_fields == {"patient": "Bo"}
    assert response.usage == Usage(input_tokens=12, output_tokens=5, cost_usd=0.25)


async def test_a_turn_without_answer_or_tool_calls_is_final_without_text() -> None:
    response = await ScriptedProvider([{"structured": [1, 2]}]).complete(request(0))
    assert response.final is True
    assert response.text is None
    assert response.structured == [1, 2]
    assert response.data_fields is None


async def test_typed_template_in_answer_becomes_json_text() -> None:
    model = ScriptedProvider([{"answer": "{{last_tool_result.total}}"}, {"answer": "{{last_tool_result}}"}])
    assert (await model.complete(request(0, last_tool_result={"total": 9}))).text == "9"
    assert (await model.complete(request(1, last_tool_result={"total": 9}))).text == '{"total": 9}'


async def test_templates_use_last_user_message() -> None:
    response = await ScriptedProvider([{"answer": "you said {{last_user_message}}"}]).complete(request(0))
    assert response.text == "you said latest"


async def test_results_do_not_alias_the_script() -> None:
    turns = [{"structured": {"items": [1]}}, {"structured": {"items": [1]}}]
    model = ScriptedProvider(turns)
    structured: Any = (await model.complete(request(0))).structured
    structured["items"].append(2)
    assert turns[0] == {"structured": {"items": [1]}}


async def test_delay_seconds_delays_the_call() -> None:
    model = ScriptedProvider([{"delay_seconds": 0.2, "answer": "late"}])
    started = time.monotonic()
    response = await model.complete(request(0))
    assert time.monotonic() - started >= 0.2
    assert response.text == "late"


async def test_delay_then_error() -> None:
    model = ScriptedProvider([{"delay_seconds": 0.05, "error": "slow failure"}])
    with pytest.raises(ModelError, match="slow failure"):
        await model.complete(request(0))


async def test_cancel_during_the_delay_propagates() -> None:
    model = ScriptedProvider([{"delay_seconds": 30, "answer": "never"}])
    call = asyncio.create_task(model.complete(request(0)))
    await asyncio.sleep(0.05)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(call, timeout=5)


@pytest.mark.parametrize(
    ("turns", "fragment"),
    [
        ("not a list", "must be a list"),
        ([{"anwser": "typo"}], "turns[0]"),
        ([{"answer": "ok"}, {"delay_seconds": -1}], "turns[1]"),
        ([{"tool_calls": [{"arguments": {}}]}], "'name' is a required property"),
        ([{"tool_calls": [{"name": "t", "arguments": "x"}]}], "turns[0]['tool_calls'][0]['arguments']"),
        ([{"usage": {"input_tokens": 1.5}}], "turns[0]['usage']['input_tokens']"),
        (["just text"], "turns[0]"),
    ],
)
def test_malformed_turns_are_refused_with_where_they_are(turns: Any, fragment: str) -> None:
    with pytest.raises(ModelConfigError) as info:
        ScriptedProvider(turns)
    assert fragment in str(info.value)
