"""Document tools ask the task's own model, never the operator's (issue 13 point 7).

A service of its own (`agentry up` with a private Ray), because its operator has an extraction model
configured (OPENAI_API_KEY and OPENAI_BASE_URL at one loopback server), which the session service
must not have. An agent on a workspace's model connection (a second loopback server) extracts and
classifies an uploaded document: the document's text reaches the connection's server only.
"""

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.agentry_process import AgentryProcess
from tests.support.agents import create_agent, feed, of_type, start, wait_status
from tests.support.openai_server import OpenAICompatibleServer, completion, function_call

pytestmark = pytest.mark.integration

OPERATOR_KEY = "sk-operator-global-extraction"
CONNECTION_KEY = "sk-connection-own"
#: A phrase found only in the uploaded document: wherever it arrives, the document's text went.
MARKER = "Zebulon Quartzfield"
DOCUMENT = f"Referral letter\nPatient name: {MARKER}\nReason: persistent cough\n".encode()


@pytest.fixture(scope="module")
def operator_model() -> Iterator[OpenAICompatibleServer]:
    with OpenAICompatibleServer() as server:
        yield server


@pytest.fixture(scope="module")
def connection_model() -> Iterator[OpenAICompatibleServer]:
    with OpenAICompatibleServer() as server:
        yield server


@pytest.fixture(scope="module")
def agentry(
    tmp_path_factory: pytest.TempPathFactory, operator_model: OpenAICompatibleServer
) -> Iterator[AgentryProcess]:
    process = AgentryProcess(
        Path(tmp_path_factory.mktemp("docmodel")),
        OPENAI_API_KEY=OPERATOR_KEY,
        OPENAI_BASE_URL=operator_model.base_url,
        AGENTRY_ALLOW_PRIVATE_URLS="true",
        AGENTRY_LOG_LEVEL="WARNING",
    )
    try:
        yield process.start()
    finally:
        process.close()


@pytest.fixture
def api(agentry: AgentryProcess) -> Iterator[httpx.Client]:
    with agentry.client() as client:
        yield client


def _fresh_start(api: httpx.Client, *models: OpenAICompatibleServer) -> str:
    """The model servers forget what earlier tests sent them; the referral is uploaded anew."""
    for model in models:
        model.reset()
    return str(
        api.post("/api/v2/files", files={"file": ("referral.txt", DOCUMENT, "text/plain")}).json()["file_id"]
    )


def tool_call(call_id: str, name: str, arguments: dict) -> dict:
    return completion(tool_calls=[function_call(call_id, name, json.dumps(arguments))])


def test_document_tools_ask_the_tasks_connection_and_never_the_operators_model(
    api: httpx.Client, operator_model: OpenAICompatibleServer, connection_model: OpenAICompatibleServer
) -> None:
    file_id = _fresh_start(api, operator_model, connection_model)
    saved = api.put(
        "/api/v1/integrations/models/lan",
        json={
            "provider": "openai",
            "base_url": connection_model.base_url,
            "api_key": CONNECTION_KEY,
            "default_model": "llama-3.1-8b",
        },
    )
    assert saved.status_code == 200, saved.text
    # The agent's steps, the extraction's model call and the classifier's, in the order they happen.
    connection_model.push(
        tool_call(
            "c1",
            "extract_document",
            {
                "input": file_id,
                "extraction_config": {"json_options": ["patient_name"], "prompt_mode": "model"},
            },
        )
    )
    connection_model.push(
        completion(json.dumps({"patient_name": MARKER}), prompt_tokens=50, completion_tokens=9)
    )
    connection_model.push(
        tool_call(
            "c2",
            "classify_document",
            {"input": file_id, "classify_config": {"categories": ["alpha", "omega"], "prompt_mode": "model"}},
        )
    )
    connection_model.push(
        completion(
            json.dumps({"category": "omega", "confidence": 0.8}), prompt_tokens=40, completion_tokens=5
        )
    )
    connection_model.push(completion("Filed."))
    agent = create_agent(api, {"model": {"connection": "lan"}, "settings": {"max_retries": 0}})
    task_id = start(api, agent["id"], f"file this document: {file_id}")
    done = wait_status(api, task_id, timeout=240)
    assert done["status"] == "completed", done

    results = {r["tool_name"]: r for r in of_type(feed(api, task_id), "tool_result")}
    extracted = results["extract_document"]
    assert "output" in extracted, extracted
    assert extracted["output"]["data"] == {"patient_name": MARKER}, extracted
    classified = results["classify_document"]
    assert "output" in classified, classified
    assert classified["output"]["classification"] == {"category": "omega", "confidence": 0.8}, classified

    received = connection_model.requests
    assert len(received) == 5
    asked = [json.dumps(r.body) for r in received]
    # The extraction's and the classifier's calls carried the document, with the connection's key.
    assert MARKER in asked[1] and MARKER in asked[3]
    assert all(r.headers["authorization"] == f"Bearer {CONNECTION_KEY}" for r in received)
    assert all(r.body["model"] == "llama-3.1-8b" for r in received)
    # The operator's extraction model was never asked, and its key went nowhere.
    assert operator_model.requests == []
    # The extraction's and the classifier's calls are charged to the task, each under its purpose.
    by_purpose = done["usage"]["by_purpose"]
    documents, classification = by_purpose["documents"], by_purpose["classification"]
    assert (documents["calls"], documents["input_tokens"], documents["output_tokens"]) == (1, 50, 9)
    assert (classification["calls"], classification["input_tokens"], classification["output_tokens"]) == (
        1,
        40,
        5,
    )
    assert set(by_purpose) == {"steps", "documents", "classification"}
    assert done["usage"]["input_tokens"] == sum(split["input_tokens"] for split in by_purpose.values())
    assert all(OPERATOR_KEY not in json.dumps(r.headers) for r in received)


def test_the_v2_routes_keep_the_operators_model(
    api: httpx.Client, operator_model: OpenAICompatibleServer, connection_model: OpenAICompatibleServer
) -> None:
    """Called by a user, not a task: the operator's configured model, as before."""
    file_id = _fresh_start(api, operator_model, connection_model)
    operator_model.push(completion(json.dumps({"patient_name": MARKER})))
    reply = api.post(
        "/api/v2/extract/sync",
        json={
            "input": file_id,
            "extraction_config": {"json_options": ["patient_name"], "prompt_mode": "model"},
        },
    )
    assert reply.status_code == 200, reply.text
    assert reply.json()["result"]["data"] == {"patient_name": MARKER}
    (sent,) = operator_model.requests
    assert sent.headers["authorization"] == f"Bearer {OPERATOR_KEY}" and MARKER in json.dumps(sent.body)
    assert connection_model.requests == []


def test_a_task_on_no_real_model_keeps_to_the_rules(
    api: httpx.Client, operator_model: OpenAICompatibleServer
) -> None:
    """A scripted agent's document tools never borrow the operator's model: `model` mode is refused."""
    file_id = _fresh_start(api, operator_model)
    turns = [
        {
            "tool_calls": [
                {
                    "name": "extract_document",
                    "arguments": {
                        "input": file_id,
                        "extraction_config": {"json_options": ["patient_name"], "prompt_mode": "model"},
                    },
                }
            ]
        },
        {
            "tool_calls": [
                {
                    "name": "classify_document",
                    "arguments": {"input": file_id, "classify_config": {"categories": ["alpha", "omega"]}},
                }
            ]
        },
        {"answer": "done"},
    ]
    agent = create_agent(api, {"model": {"provider": "scripted", "turns": turns}})
    task_id = start(api, agent["id"])
    done = wait_status(api, task_id, timeout=240)
    assert done["status"] == "completed", json.dumps([done, feed(api, task_id)])
    results = {r["tool_name"]: r for r in of_type(feed(api, task_id), "tool_result")}
    assert "no real model" in results["extract_document"]["error"], results
    assert "classification" in results["classify_document"]["output"], results
    assert operator_model.requests == []
