"""A spend budget for a whole task tree (settings.tree_spend_cap_usd on the agent that starts it)."""

from collections.abc import Iterator

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support.agents import create_agent, scripted, start, task, wait_status

pytestmark = pytest.mark.integration


@pytest.fixture
def api(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key()) as client:
        yield client


def test_a_child_that_takes_the_tree_over_budget_pauses_and_usage_rolls_up(api: httpx.Client) -> None:
    worker = create_agent(
        api,
        scripted({"answer": "costly", "usage": {"input_tokens": 10, "cost_usd": 0.6}})
        | {"delegation_profile": {"description": "Works", "example_input": "x"}},
    )
    delegate = {
        "tool_calls": [
            {
                "name": "delegate_tasks",
                "arguments": {"tasks": [{"agent_group_id": worker["agent_group_id"], "prompt": "go"}]},
            }
        ],
        "usage": {"input_tokens": 1, "cost_usd": 0.01},
    }
    config = scripted(delegate, {"answer": "all done"}, settings={"tree_spend_cap_usd": 0.5})
    lead = create_agent(api, config)
    root_id = start(api, lead["id"])
    wait_status(api, root_id, "waiting_for_input", timeout=90)
    kids = api.get(f"/api/v1/tasks/{root_id}/children").json()["data"]
    (kid,) = kids
    paused = wait_status(api, kid["task_id"], "waiting_for_input", timeout=90)
    assert paused["pause"]["kind"] == "failure_pause"
    assert paused["pause"]["reason"] == "tree_spend_cap_exceeded"
    root = task(api, root_id)
    assert root["usage"]["tree"] == {"input_tokens": 11, "output_tokens": 0, "cost_usd": 0.61}
    assert root["usage"]["cost_usd"] == 0.01
    # A larger budget on the root's agent lets the tree go on.
    patched = api.patch(
        f"/api/v1/agents/{lead['id']}", json={"config": config | {"settings": {"tree_spend_cap_usd": 5}}}
    )
    assert patched.status_code == 200, patched.text
    api.post(f"/api/v1/tasks/{kid['task_id']}/message", json={"message": "go on"})
    assert wait_status(api, kid["task_id"], timeout=90)["status"] == "completed"
    assert wait_status(api, root_id, timeout=90)["status"] == "completed"
