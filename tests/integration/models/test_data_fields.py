"""Data fields extracted at completion by the task's own model (docs/spec.md: "Data field values are
extracted by a model when the task completes"), over HTTP on real Redis, Ray and Serve."""

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from actors.models.anthropic import FINAL_ANSWER_TOOL
from tests.integration.conftest import Service
from tests.support.agents import create_agent, start, wait_status
from tests.support.anthropic_server import AnthropicServer, message, text_block, tool_use
from tests.support.openai_server import OpenAICompatibleServer, completion

pytestmark = pytest.mark.integration

FIELDS = [
    {"key": "patient_name", "description": "The patient's full name", "key_type": "string"},
    {"key": "date_of_birth", "description": "Date of birth", "key_type": "date"},
    {"key": "copay", "description": "Copay in dollars", "key_type": "number"},
    {"key": "insured", "description": "Whether the patient has insurance", "key_type": "boolean"},
]


@pytest.fixture
def api(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key()) as client:
        yield client


def listed_fields(api: httpx.Client, task_id: str) -> list[dict[str, Any]]:
    response = api.get("/api/v1/tasks", params={"include_data_fields": "true", "limit": 100})
    assert response.status_code == 200, response.text
    (item,) = [t for t in response.json()["data"] if t["task_id"] == task_id]
    return list(item["data_fields"])


def test_openai_model_extracts_declared_fields_in_one_structured_call(
    api: httpx.Client, openai_server: OpenAICompatibleServer
) -> None:
    openai_server.push(
        completion("Jane Roe, born 1980-02-03, is insured.", prompt_tokens=100, completion_tokens=20)
    )
    # The extraction answer: a field the input never contained (copay) is left out; a wrong type is dropped.
    openai_server.push(
        completion(
            '{"patient_name": "Jane Roe", "date_of_birth": "1980-02-03", "copay": null, "insured": true}',
            prompt_tokens=300,
            completion_tokens=30,
        )
    )
    model = {"provider": "openai", "name": "gpt-4o-mini", "base_url": openai_server.base_url}
    agent = create_agent(api, {"model": model, "data_fields": FIELDS})
    task_id = start(api, agent["id"], "Jane Roe, DOB 1980-02-03, insured with Acme.")
    done = wait_status(api, task_id, timeout=90)
    assert done["status"] == "completed", done
    step, extraction = openai_server.requests
    assert "response_format" not in step.body
    schema = extraction.body["response_format"]["json_schema"]["schema"]
    assert set(schema["properties"]) == {f["key"] for f in FIELDS}
    conversation = extraction.body["messages"][-1]["content"]
    assert "Jane Roe, DOB 1980-02-03" in conversation and "is insured" in conversation
    values = {f["key"]: f["value"] for f in listed_fields(api, task_id)}
    assert values == {"patient_name": "Jane Roe", "date_of_birth": "1980-02-03", "insured": True}
    by_purpose = done["usage"]["by_purpose"]
    assert by_purpose["steps"]["input_tokens"] == 100 and by_purpose["data_fields"]["input_tokens"] == 300
    assert done["usage"]["input_tokens"] == 400
    assert done["usage"]["cost_usd"] == pytest.approx((400 * 0.15 + 50 * 0.6) / 1e6, abs=1e-6)


def test_anthropic_model_extracts_fields_through_its_final_answer_tool(
    api: httpx.Client, anthropic_server: AnthropicServer
) -> None:
    anthropic_server.push(message(text_block("Copay is $25.50 for John Doe.")))
    anthropic_server.push(
        message(tool_use("toolu_1", FINAL_ANSWER_TOOL, {"patient_name": "John Doe", "copay": "25.50"}))
    )
    model = {
        "provider": "anthropic",
        "name": "claude-3-5-haiku-latest",
        "base_url": anthropic_server.base_url,
    }
    agent = create_agent(api, {"model": model, "data_fields": FIELDS})
    task_id = start(api, agent["id"], "John Doe pays a $25.50 copay.")
    assert wait_status(api, task_id, timeout=90)["status"] == "completed"
    extraction = anthropic_server.requests[1].body
    assert [t["name"] for t in extraction["tools"]] == [FINAL_ANSWER_TOOL]
    values = {f["key"]: f["value"] for f in listed_fields(api, task_id)}
    assert values == {"patient_name": "John Doe", "copay": 25.5}


def test_a_failed_extraction_leaves_the_fields_absent_and_the_task_completed(
    api: httpx.Client, openai_server: OpenAICompatibleServer
) -> None:
    openai_server.push(completion("done"))
    openai_server.fail_next(400)
    model = {"provider": "openai", "name": "m", "base_url": openai_server.base_url}
    agent = create_agent(api, {"model": model, "data_fields": FIELDS})
    task_id = start(api, agent["id"])
    assert wait_status(api, task_id, timeout=90)["status"] == "completed"
    assert listed_fields(api, task_id) == []
