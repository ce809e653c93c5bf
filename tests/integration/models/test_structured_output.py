"""The final answer checked against the output schema through the real runtime, with one repair turn."""

from collections.abc import Iterator

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support.agents import create_agent, scripted, start, wait_status
from tests.support.openai_server import OpenAICompatibleServer, completion

pytestmark = pytest.mark.integration

SCHEMA = {"type": "object", "properties": {"total": {"type": "number"}}, "required": ["total"]}


@pytest.fixture
def api(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key()) as client:
        yield client


def test_a_mismatching_answer_gets_one_repair_turn(
    api: httpx.Client, openai_server: OpenAICompatibleServer
) -> None:
    openai_server.push(completion('{"total": "forty"}'))
    openai_server.push(completion('{"total": 40}'))
    model = {"provider": "openai", "name": "m", "base_url": openai_server.base_url}
    agent = create_agent(api, {"model": model, "output_schema": SCHEMA})
    task_id = start(api, agent["id"])
    done = wait_status(api, task_id, timeout=90)
    assert done["status"] == "completed", done
    first, repair = openai_server.requests
    # Tools are offered, so the schema is a final-answer tool, not a reply format forced on every step.
    assert "response_format" not in first.body
    assert "final_answer" in {t["function"]["name"] for t in first.body["tools"]}
    quoted = repair.body["messages"][-1]["content"]
    assert "total: 'forty' is not of type 'number'" in quoted
    envelope = api.get(f"/api/v1/tasks/{task_id}/structured-response").json()
    assert envelope["structured_response"] == {"total": 40}, envelope


def test_a_second_mismatch_applies_the_failure_policy(
    api: httpx.Client, openai_server: OpenAICompatibleServer
) -> None:
    openai_server.push(completion("no JSON at all", prompt_tokens=100, completion_tokens=5))
    openai_server.push(completion("still none", prompt_tokens=120, completion_tokens=5))
    model = {"provider": "openai", "name": "m", "base_url": openai_server.base_url}
    agent = create_agent(api, {"model": model, "output_schema": SCHEMA, "settings": {"max_retries": 0}})
    done = wait_status(api, start(api, agent["id"]), timeout=90)
    assert done["status"] == "failed"
    assert "does not match the output schema" in done["error"]
    # Both answers were paid for: the failed call's tokens count in the task's usage.
    assert done["usage"]["input_tokens"] == 220 and done["usage"]["by_purpose"]["steps"]["calls"] == 1


def test_an_invalid_output_schema_is_refused_with_its_path(api: httpx.Client) -> None:
    broken = {"type": "object", "properties": {"age": {"type": "nummber"}}}
    created = api.post("/api/v1/agents", json={"config": scripted({"answer": "a"}, output_schema=broken)})
    assert created.status_code == 400, created.text
    assert created.json()["error"].startswith(
        "config.output_schema.properties.age.type is not valid JSON Schema"
    )
    agent = create_agent(api, scripted({"answer": "a", "structured": {"total": 1}}, output_schema=SCHEMA))
    patched = api.patch(
        f"/api/v1/agents/{agent['id']}", json={"config": scripted({"answer": "a"}, output_schema="a string")}
    )
    assert patched.status_code == 400, patched.text
    assert patched.json()["error"] == "config.output_schema: an output schema must be a JSON Schema object"
    ran = api.post(
        f"/api/v1/agents/{agent['id']}/run",
        json={"query": "q", "output_config": {"output_schema": {"type": "object", "required": "total"}}},
    )
    assert ran.status_code == 400, ran.text
    assert ran.json()["error"].startswith("output_config.output_schema.required is not valid JSON Schema")


def test_a_scripted_answer_that_fails_the_schema_fails_the_call_and_the_retry_plays_the_next_turn(
    api: httpx.Client,
) -> None:
    wrong = {
        "answer": "forty",
        "structured": {"total": "forty"},
        "usage": {"input_tokens": 7, "cost_usd": 0.02},
    }
    right = {"answer": "40", "structured": {"total": 40}, "usage": {"input_tokens": 3, "cost_usd": 0.01}}
    agent = create_agent(api, scripted(wrong, right, output_schema=SCHEMA))
    task_id = start(api, agent["id"])
    done = wait_status(api, task_id, timeout=90)
    assert done["status"] == "completed", done
    envelope = api.get(f"/api/v1/tasks/{task_id}/structured-response").json()
    assert envelope["structured_response"] == {"total": 40}, envelope
    # The failed answer was charged too.
    assert done["usage"]["input_tokens"] == 10 and done["usage"]["cost_usd"] == pytest.approx(0.03)


def test_a_scripted_answer_that_fails_the_schema_past_its_retries_applies_the_failure_policy(
    api: httpx.Client,
) -> None:
    agent = create_agent(
        api,
        scripted(
            {"answer": "forty", "structured": {"total": "forty"}},
            output_schema=SCHEMA,
            on_failure="fail",
            settings={"max_retries": 0},
        ),
    )
    done = wait_status(api, start(api, agent["id"]), timeout=90)
    assert done["status"] == "failed", done
    assert done["error"] == (
        "model call failed: the answer does not match the output schema: total: 'forty' is not of type 'number'"
    )
    # No structured output was written.
    assert "structured_response" not in api.get(f"/api/v1/tasks/{done['task_id']}/structured-response").json()
