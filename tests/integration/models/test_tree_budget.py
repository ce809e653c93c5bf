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
    assert root["usage"]["tree"] == {
        "input_tokens": 11,
        "output_tokens": 0,
        "cost_usd": 0.61,
        "cost_known": True,
    }
    assert root["usage"]["cost_usd"] == 0.01
    # A larger budget on the root's agent lets the tree go on.
    patched = api.patch(
        f"/api/v1/agents/{lead['id']}", json={"config": config | {"settings": {"tree_spend_cap_usd": 5}}}
    )
    assert patched.status_code == 200, patched.text
    api.post(f"/api/v1/tasks/{kid['task_id']}/message", json={"message": "go on"})
    assert wait_status(api, kid["task_id"], timeout=90)["status"] == "completed"
    assert wait_status(api, root_id, timeout=90)["status"] == "completed"


def test_each_child_reserves_from_what_its_parent_has_left(api: httpx.Client) -> None:
    # Each child asks the user a question (costing 0.1), so it stays live, holding its reservation.
    worker = create_agent(
        api,
        scripted(
            {
                "tool_calls": [{"name": "ask_user", "arguments": {"question": "which?"}}],
                "usage": {"cost_usd": 0.1},
            },
            settings={"tree_spend_cap_usd": 0.25},
        )
        | {"delegation_profile": {"description": "Works", "example_input": "x"}},
    )
    two = [{"agent_group_id": worker["agent_group_id"], "prompt": f"go {n}"} for n in (1, 2)]
    delegate = {
        "tool_calls": [{"name": "delegate_tasks", "arguments": {"tasks": two}}],
        "usage": {"input_tokens": 1, "cost_usd": 0.2},
    }
    lead = create_agent(api, scripted(delegate, {"answer": "done"}, settings={"tree_spend_cap_usd": 0.5}))
    root_id = start(api, lead["id"])
    wait_status(api, root_id, "waiting_for_input", timeout=90)
    kids = [
        wait_status(api, kid["task_id"], "waiting_for_input", timeout=90)
        for kid in api.get(f"/api/v1/tasks/{root_id}/children").json()["data"]
    ]
    # The first to start takes its own agent's cap (0.25) of the 0.3 left; the second, the 0.05 rest.
    kids.sort(key=lambda kid: kid["usage"]["tree"]["budget_usd"])
    assert [kid["usage"]["tree"]["budget_usd"] for kid in kids] == [pytest.approx(0.05), pytest.approx(0.25)]
    short, funded = kids
    assert short["pause"]["kind"] == "failure_pause" and short["pause"]["reason"] == "tree_spend_cap_exceeded"
    assert funded["pause"]["kind"] == "ask_user"
    assert short["usage"]["tree"]["cost_usd"] == pytest.approx(0.1)
    root = task(api, root_id)
    assert root["usage"]["tree"]["cost_usd"] == pytest.approx(0.4)
    assert "budget_usd" not in root["usage"]["tree"]  # the root's budget is its agent's cap
