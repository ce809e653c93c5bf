"""A task's token cap on a model with no known price: tokens still count, and the task pauses as
the spend cap pauses it (reason `task_token_cap_exceeded`)."""

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support.agents import create_agent, feed, of_type, start, wait_status
from tests.support.openai_server import OpenAICompatibleServer, completion, function_call
from tests.support.service import wait_for

pytestmark = pytest.mark.integration


@pytest.fixture
def api(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key()) as client:
        yield client


def pauses(api: httpx.Client, task_id: str) -> list[dict[str, Any]]:
    return [i for i in of_type(feed(api, task_id), "message_sent") if i.get("kind") == "failure_pause"]


def test_token_cap_pauses_an_unpriced_model_and_a_higher_cap_resumes_it(
    api: httpx.Client, openai_server: OpenAICompatibleServer
) -> None:
    openai_server.push(
        completion(
            None,
            tool_calls=[function_call("c1", "ask_user", '{"question": "Which year?"}')],
            prompt_tokens=500,
            completion_tokens=100,
        )
    )
    model = {"provider": "openai", "name": "my-local-llama", "base_url": openai_server.base_url}
    config = {"model": model, "on_failure": "fail", "settings": {"max_tokens_per_task": 500}}
    agent = create_agent(api, config)
    task_id = start(api, agent["id"])
    paused = wait_status(api, task_id, "waiting_for_input", timeout=90)
    assert paused["pause"] == {
        "kind": "failure_pause",
        "reason": "task_token_cap_exceeded",
        "question": "the task used more than 500 tokens",
    }
    assert paused["usage"]["input_tokens"] == 500 and paused["usage"]["cost_usd"] == 0
    assert [i["reason"] for i in pauses(api, task_id)] == ["task_token_cap_exceeded"]
    # A reply while the cause persists pauses again; a higher cap lets the task go on.
    api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "go on"})
    wait_for(
        lambda: len(pauses(api, task_id)) == 2, timeout=90, what="the task to pause again on its token cap"
    )
    patched = api.patch(
        f"/api/v1/agents/{agent['id']}", json={"config": config | {"settings": {"max_tokens_per_task": 5000}}}
    )
    assert patched.status_code == 200, patched.text
    api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "go on"})
    # The recorded ask_user call now runs: the task asks its question.
    asking = wait_status(api, task_id, "waiting_for_input", timeout=90)
    assert asking["pause"]["kind"] == "ask_user", asking
    openai_server.push(completion("done", prompt_tokens=50, completion_tokens=5))
    api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "1999"})
    done = wait_status(api, task_id, timeout=90)
    assert done["status"] == "completed", done
    assert done["usage"]["input_tokens"] == 550
