"""The final answer checked against the output schema through the real runtime, with one repair turn."""

from collections.abc import Iterator

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support.agents import create_agent, start, wait_status
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
    openai_server.push(completion("no JSON at all"))
    openai_server.push(completion("still none"))
    model = {"provider": "openai", "name": "m", "base_url": openai_server.base_url}
    agent = create_agent(api, {"model": model, "output_schema": SCHEMA, "settings": {"max_retries": 0}})
    done = wait_status(api, start(api, agent["id"]), timeout=90)
    assert done["status"] == "failed"
    assert "does not match the output schema" in done["error"]
