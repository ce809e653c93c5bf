"""An intake flow on each provider, through the official SDK and the real runtime: upload ->
extract_document -> practice_save_patient -> answer -> data fields extracted by the same model."""

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Service
from tests.integration.practice.test_practice_intake_e2e import FORM, intake_form_pdf
from tests.support.agents import create_agent, feed, of_type, wait_status
from tests.support.anthropic_server import AnthropicServer, message, text_block, tool_use
from tests.support.openai_server import OpenAICompatibleServer, completion, function_call
from tests.support.practice import ACCOUNTS, CLIENT_ID, CLIENT_SECRET, connected
from tools.practice.sandbox import RunningSandbox, SandboxConfig

pytestmark = pytest.mark.integration

EXTRACT = {
    "input": "intake.pdf",
    "extraction_config": {"output_format": "json", "json_options": list(FORM), "prompt_mode": "rules"},
}
SAVE = {"account_id": "acct-1", "first_name": "Grace", "last_name": "Hopper", "dob": "12/09/1906"}
FIELDS = [
    {"key": "last_name", "description": "The patient's last name", "key_type": "string"},
    {"key": "date_of_birth", "description": "Date of birth", "key_type": "date"},
]
VALUES = {"last_name": "Hopper", "date_of_birth": "1906-12-09"}


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    config = SandboxConfig(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, accounts=ACCOUNTS)
    with RunningSandbox(config) as running:
        yield running


@pytest.fixture
def api(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key()) as client:
        yield client


def queue_openai(server: OpenAICompatibleServer) -> None:
    server.push(completion(None, tool_calls=[function_call("c1", "extract_document", json.dumps(EXTRACT))]))
    server.push(completion(None, tool_calls=[function_call("c2", "practice_save_patient", json.dumps(SAVE))]))
    server.push(completion("Saved Grace Hopper."))
    server.push(completion(json.dumps(VALUES)))


def queue_anthropic(server: AnthropicServer) -> None:
    server.push(message(tool_use("t1", "extract_document", EXTRACT)))
    server.push(message(tool_use("t2", "practice_save_patient", SAVE)))
    server.push(message(text_block("Saved Grace Hopper.")))
    server.push(message(tool_use("t3", "final_answer", VALUES)))


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_intake_flow_on_each_provider(
    provider: str,
    api: httpx.Client,
    sandbox: RunningSandbox,
    openai_server: OpenAICompatibleServer,
    anthropic_server: AnthropicServer,
) -> None:
    connected(api, sandbox)
    server: Any = openai_server if provider == "openai" else anthropic_server
    (queue_openai if provider == "openai" else queue_anthropic)(server)
    saved = api.put(
        f"/api/v1/integrations/models/{provider}-conn",
        json={"provider": provider, "base_url": server.base_url, "api_key": "sk-conn", "default_model": "m"},
    )
    assert saved.status_code == 200, saved.text
    config = {
        "model": {"connection": f"{provider}-conn"},
        "tools": ["extract_document", "practice_save_patient"],
        "data_fields": FIELDS,
    }
    agent = create_agent(api, config)
    started = api.post(
        f"/api/v1/agents/{agent['id']}/run",
        data={"query": "File this intake form"},
        files=[("files", ("intake.pdf", intake_form_pdf(), "application/pdf"))],
    )
    assert started.status_code == 201, started.text
    task_id = started.json()["task_id"]
    done = wait_status(api, task_id, timeout=180)
    assert done["status"] == "completed", done
    extracted, save = of_type(feed(api, task_id), "tool_result")
    # Extraction returns the form's US date as ISO 8601 (month first by default).
    assert extracted["output"]["data"] == FORM | {"dob": "1906-12-09"} and save["output"]["status"] == "saved"
    requests = server.requests
    # Four calls (three steps and the data fields); a runner restarted on a loaded machine may repeat
    # a call that was not yet recorded, so only the order matters here.
    assert len(requests) >= 4
    # The model saw the extracted values (compact: no boxes) before it saved the patient.
    second = json.dumps(requests[1].body["messages"])
    assert "Hopper" in second and "bounding_box" not in second
    listed = api.get("/api/v1/tasks", params={"include_data_fields": "true"}).json()["data"]
    (item,) = [t for t in listed if t["task_id"] == task_id]
    assert {f["key"]: f["value"] for f in item["data_fields"]} == VALUES
    by_key = {f["key"]: f for f in item["data_fields"]}
    assert by_key["last_name"].get("citations"), by_key
