"""A task always ends and every model call is on its bill (docs/contract.md section 2, "Every task
ends, every model call is charged"): unusable output schemas are refused with their path, a step
that raises ends in the failure policy, a runner that keeps dying fails its task, and the calls made
before a failure are charged."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import ray

from actors.names import NAMESPACE
from core.infra import keys
from tests.integration.conftest import Service
from tests.support.agents import create_agent, scripted, start, wait_status
from tests.support.openai_server import OpenAICompatibleServer, completion
from tests.support.service import run_async, wait_for
from tests.support.task_actors import running_actor_name

pytestmark = pytest.mark.integration

SCHEMA = {"type": "object", "properties": {"total": {"type": "number"}}, "required": ["total"]}


@pytest.fixture
def api(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key()) as client:
        yield client


def _openai(server: OpenAICompatibleServer, **config: Any) -> dict[str, Any]:
    return {"model": {"provider": "openai", "name": "m", "base_url": server.base_url}} | config


def test_schemas_that_cannot_be_used_are_refused_with_their_path(api: httpx.Client) -> None:
    bad_regex = {"type": "object", "properties": {"code": {"type": "string", "pattern": "("}}}
    created = api.post("/api/v1/agents", json={"config": scripted({"answer": "a"}, output_schema=bad_regex)})
    assert created.status_code == 400, created.text
    assert created.json()["error"].startswith(
        "config.output_schema.properties.code.pattern is not valid JSON Schema: '(' is not a 'regex'"
    )

    agent = create_agent(api, scripted({"answer": "a", "structured": {"total": 1}}, output_schema=SCHEMA))
    nowhere = {"type": "object", "properties": {"total": {"$ref": "#/$defs/missing"}}}
    patched = api.patch(
        f"/api/v1/agents/{agent['id']}", json={"config": scripted({"answer": "a"}, output_schema=nowhere)}
    )
    assert patched.status_code == 400, patched.text
    assert patched.json()["error"] == (
        "config.output_schema.properties.total.$ref is not valid JSON Schema: "
        "'#/$defs/missing' resolves to nothing in the schema"
    )

    bad_key = {"type": "object", "patternProperties": {"[": {"type": "string"}}}
    ran = api.post(
        f"/api/v1/agents/{agent['id']}/run",
        json={"query": "q", "output_config": {"output_schema": bad_key}},
    )
    assert ran.status_code == 400, ran.text
    assert ran.json()["error"].startswith(
        "output_config.output_schema.patternProperties.[ is not valid JSON Schema: '[' is not a 'regex'"
    )
    remote = {"$ref": "http://127.0.0.1:9/schema.json"}
    ran = api.post(
        f"/api/v1/agents/{agent['id']}/run", json={"query": "q", "output_config": {"output_schema": remote}}
    )
    assert ran.status_code == 400, ran.text
    assert ran.json()["error"].startswith("output_config.output_schema.$ref is not valid JSON Schema")


def _broken_usage() -> dict[str, Any]:
    # A model server whose `usage` our parser does not expect: it raises TypeError, a bug, not a
    # model error another call would cure.
    body = completion("the answer")
    body["usage"] = {"prompt_tokens": [1], "completion_tokens": 1}
    return body


@pytest.mark.parametrize("on_failure", ["fail", "ask_user"])
def test_a_step_that_raises_ends_in_the_failure_policy(
    api: httpx.Client, openai_server: OpenAICompatibleServer, on_failure: str
) -> None:
    for _ in range(5):
        openai_server.push(_broken_usage())
    agent = create_agent(api, _openai(openai_server, on_failure=on_failure))
    task_id = start(api, agent["id"])
    done = wait_status(api, task_id, "failed", "waiting_for_input", "completed", timeout=90)
    if on_failure == "fail":
        assert done["status"] == "failed", done
        error = done["error"]
    else:
        assert done["status"] == "waiting_for_input", done
        assert done["pause"]["kind"] == "failure_pause", done
        error = done["pause"]["question"]
    assert error.startswith("step 0 failed: TypeError: "), error
    # Ended at the first raise (a task out of `running` is never relaunched): the model was asked once.
    assert len(openai_server.requests) == 1


def _field(service: Service, task_id: str, name: str) -> str | None:
    async def read(redis: Any) -> str | None:
        workspace_id = await redis.get(keys.owner(task_id))
        return await redis.hget(keys.task(workspace_id, task_id), name)

    value = run_async(service.redis_url, read)
    return None if value is None else str(value)


def test_a_runner_that_keeps_dying_fails_its_task(api: httpx.Client, service: Service) -> None:
    # Each run sits in its model call, so each kill lands before the step completes.
    agent = create_agent(api, scripted({"delay_seconds": 120, "answer": "too late"}, placement="dedicated"))
    task_id = start(api, agent["id"])
    for death in range(1, 4):
        # The run counted itself: it holds the lease and is in its step.
        wait_for(
            lambda n=death: _field(service, task_id, "runner_runs") == str(n), timeout=90, what=f"run {death}"
        )
        name = wait_for(lambda: running_actor_name(service.redis_url, task_id), timeout=30, what="its actor")
        ray.kill(ray.get_actor(name, namespace=NAMESPACE), no_restart=True)
    done = wait_status(api, task_id, timeout=90)
    assert done["status"] == "failed", done
    assert done["error"] == (
        "the task's runner failed 3 times: "
        "it stopped without reporting an error (killed, its node lost, or the store unreachable)"
    )


def test_calls_before_an_unusable_schema_are_charged(api: httpx.Client) -> None:
    # Its `$ref`s resolve, so it is saved; it loops without end once an answer is checked.
    endless = {"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}
    turn = {
        "answer": "{}",
        "structured": {},
        "usage": {"input_tokens": 7, "output_tokens": 3, "cost_usd": 0.02},
    }
    agent = create_agent(api, scripted(turn, turn, output_schema=endless, on_failure="fail"))
    done = wait_status(api, start(api, agent["id"]), timeout=90)
    assert done["status"] == "failed", done
    assert done["error"] == (
        "the output schema cannot check the answer: the output schema refers to itself without end"
    )
    # One call, charged, and no retry of an answer no schema check could pass.
    assert done["usage"]["input_tokens"] == 7 and done["usage"]["output_tokens"] == 3
    assert done["usage"]["cost_usd"] == pytest.approx(0.02)
    assert done["usage"]["by_purpose"]["steps"]["calls"] == 1


def test_a_backtracking_pattern_is_stopped_and_its_call_charged(
    api: httpx.Client, openai_server: OpenAICompatibleServer
) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(a+)+$"}}}
    openai_server.push(completion('{"a": "' + "a" * 64 + '!"}', prompt_tokens=100, completion_tokens=5))
    agent = create_agent(api, _openai(openai_server, output_schema=schema, on_failure="fail"))
    done = wait_status(api, start(api, agent["id"]), timeout=90)
    assert done["status"] == "failed", done
    assert done["error"].startswith(
        "the output schema cannot check the answer: checking the answer against the output schema took over 5 s"
    )
    assert done["usage"]["input_tokens"] == 100 and done["usage"]["output_tokens"] == 5
    assert len(openai_server.requests) == 1


def test_the_first_call_is_charged_when_the_repair_call_fails(
    api: httpx.Client, openai_server: OpenAICompatibleServer
) -> None:
    openai_server.push(completion("no JSON at all", prompt_tokens=100, completion_tokens=5))
    openai_server.fail_next(400)
    agent = create_agent(
        api, _openai(openai_server, output_schema=SCHEMA, on_failure="fail", settings={"max_retries": 0})
    )
    done = wait_status(api, start(api, agent["id"]), timeout=90)
    assert done["status"] == "failed", done
    assert len(openai_server.requests) == 2  # the answer, then its repair turn
    assert done["usage"]["input_tokens"] == 100 and done["usage"]["output_tokens"] == 5
