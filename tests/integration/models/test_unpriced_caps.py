"""A spend cap on a model nobody prices: refused when the agent is saved or run, and a task that
finds itself on such a model under a cap pauses on the cap's reason instead of running uncapped.
Without a cap the model runs and its task's usage says the cost is unknown. Real Redis, Ray and
Serve; a loopback server speaks the OpenAI wire format."""

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support.agents import create_agent, feed, of_type, scripted, start, task, wait_status
from tests.support.openai_server import OpenAICompatibleServer, completion, function_call
from tests.support.service import wait_for

pytestmark = pytest.mark.integration

UNPRICED = "my-local-llama"


@pytest.fixture
def api(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key()) as client:
        yield client


def local_model(server: OpenAICompatibleServer) -> dict[str, Any]:
    return {"provider": "openai", "name": UNPRICED, "base_url": server.base_url}


def refused_for_the_price(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    error = str(response.json()["error"])
    assert f"openai:{UNPRICED} has no known price" in error and "`price`" in error, error
    return error


def test_a_cap_on_an_unpriced_model_is_refused_at_create_update_and_run(
    api: httpx.Client, openai_server: OpenAICompatibleServer
) -> None:
    model = local_model(openai_server)
    capped = {"model": model, "settings": {"spend_cap_usd": 1.0}}
    assert "settings.spend_cap_usd" in refused_for_the_price(
        api.post("/api/v1/agents", json={"config": capped})
    )
    tree_capped = {"model": model, "settings": {"tree_spend_cap_usd": 1.0}}
    error = refused_for_the_price(api.post("/api/v1/agents", json={"config": tree_capped}))
    assert "settings.tree_spend_cap_usd" in error
    # Without a cap the model is allowed; adding one later is refused the same way.
    agent = create_agent(api, {"model": model})
    refused_for_the_price(api.patch(f"/api/v1/agents/{agent['id']}", json={"config": capped}))
    # A connection's price makes the same model capable of a cap.
    priced = api.put(
        "/api/v1/integrations/models/local-priced",
        json={
            "provider": "openai",
            "base_url": openai_server.base_url,
            "default_model": UNPRICED,
            "price": {"input": 1.0, "output": 2.0},
        },
    )
    assert priced.status_code == 200, priced.text
    on_connection = {"model": {"connection": "local-priced"}, "settings": {"spend_cap_usd": 1.0}}
    assert api.patch(f"/api/v1/agents/{agent['id']}", json={"config": on_connection}).status_code == 200


def test_a_running_task_whose_connection_lost_its_price_pauses_on_its_spend_cap(
    api: httpx.Client, openai_server: OpenAICompatibleServer
) -> None:
    connection = {"provider": "openai", "base_url": openai_server.base_url, "default_model": UNPRICED}
    url = "/api/v1/integrations/models/lan-priced"
    assert api.put(url, json=connection | {"price": {"input": 1.0, "output": 2.0}}).status_code == 200
    openai_server.push(
        completion(
            None,
            tool_calls=[function_call("c1", "ask_user", '{"question": "Which year?"}')],
            prompt_tokens=1000,
            completion_tokens=100,
        )
    )
    agent = create_agent(api, {"model": {"connection": "lan-priced"}, "settings": {"spend_cap_usd": 5.0}})
    task_id = start(api, agent["id"])
    asked = wait_status(api, task_id, "waiting_for_input", timeout=90)
    assert asked["pause"]["kind"] == "ask_user"
    assert asked["usage"]["cost_known"] is True
    assert asked["usage"]["cost_usd"] == pytest.approx((1000 * 1.0 + 100 * 2.0) / 1e6)
    # The connection is saved again without its price: the cap can no longer be kept.
    assert api.put(url, json=connection).status_code == 200
    refused_for_the_price(api.post(f"/api/v1/agents/{agent['id']}/run", json={"query": "again"}))
    replied = api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "1999"})
    assert replied.status_code < 300, replied.text

    def paused_on_the_cap() -> dict[str, Any] | None:
        current = task(api, task_id)
        pause = current.get("pause") or {}
        return current if pause.get("kind") == "failure_pause" else None

    paused = wait_for(paused_on_the_cap, timeout=90, what="the task to pause on its spend cap")
    assert paused["status"] == "waiting_for_input"
    assert paused["pause"]["reason"] == "task_spend_cap_exceeded"
    assert f"openai:{UNPRICED} has no known price" in paused["pause"]["question"]
    # The model was not called again, uncapped.
    assert len(openai_server.requests) == 1
    # A price again, and a reply: the task goes on.
    assert api.put(url, json=connection | {"price": {"input": 1.0, "output": 2.0}}).status_code == 200
    openai_server.push(completion("It was 1999.", prompt_tokens=1000, completion_tokens=100))
    assert api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "go on"}).status_code < 300
    done = wait_status(api, task_id, timeout=90)
    assert done["status"] == "completed", done
    assert done["usage"]["cost_known"] is True
    assert done["usage"]["cost_usd"] == pytest.approx(2 * (1000 * 1.0 + 100 * 2.0) / 1e6)


def test_a_child_on_an_unpriced_model_under_its_trees_budget_pauses_before_calling_it(
    api: httpx.Client, openai_server: OpenAICompatibleServer
) -> None:
    # The worker has no cap of its own, so it may be saved; the tree budget of the lead reaches it.
    worker = create_agent(
        api,
        {
            "model": local_model(openai_server),
            "delegation_profile": {"description": "Works", "example_input": "x"},
        },
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
    lead = create_agent(api, scripted(delegate, {"answer": "done"}, settings={"tree_spend_cap_usd": 0.5}))
    root_id = start(api, lead["id"])
    wait_status(api, root_id, "waiting_for_input", timeout=90)
    (kid,) = api.get(f"/api/v1/tasks/{root_id}/children").json()["data"]
    paused = wait_status(api, kid["task_id"], "waiting_for_input", timeout=90)
    assert paused["pause"]["kind"] == "failure_pause"
    assert paused["pause"]["reason"] == "tree_spend_cap_exceeded"
    assert f"openai:{UNPRICED} has no known price" in paused["pause"]["question"]
    pauses = [
        i for i in of_type(feed(api, kid["task_id"]), "message_sent") if i.get("kind") == "failure_pause"
    ]
    assert [i["reason"] for i in pauses] == ["tree_spend_cap_exceeded"]
    assert openai_server.requests == []


def test_without_a_cap_an_unpriced_model_runs_and_its_cost_is_unknown(
    api: httpx.Client, openai_server: OpenAICompatibleServer
) -> None:
    openai_server.push(completion("Hello", prompt_tokens=300, completion_tokens=20))
    agent = create_agent(api, {"model": local_model(openai_server)})
    done = wait_status(api, start(api, agent["id"]), timeout=90)
    assert done["status"] == "completed", done
    usage = done["usage"]
    assert usage["input_tokens"] == 300 and usage["output_tokens"] == 20
    assert usage["cost_known"] is False and usage["cost_usd"] == 0
    assert usage["by_purpose"]["steps"]["unpriced_calls"] == 1
    assert usage["tree"]["cost_known"] is False
