"""A 20-page document on a model whose context window is 8k tokens: the task completes, every
request fits the window, and the model never sees element boxes."""

import json
from collections.abc import Iterator

import httpx
import pytest

from actors.context_budget import CHARS_PER_TOKEN, ELIDED, REPLY_RESERVE_TOKENS
from tests.integration.conftest import Service
from tests.support import documents
from tests.support.agents import create_agent, wait_status
from tests.support.openai_server import OpenAICompatibleServer, completion, function_call

pytestmark = pytest.mark.integration

WINDOW = 8192
LINE = "Patient Ada Lovelace, born 1815-12-10, seen for follow-up; copay 25.00; plan Acme Gold."


@pytest.fixture
def api(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key()) as client:
        yield client


def test_a_20_page_document_on_an_8k_window_completes(
    api: httpx.Client, openai_server: OpenAICompatibleServer
) -> None:
    pdf = documents.pdf_text([[f"{page}.{n} {LINE}" for n in range(38)] for page in range(1, 21)])
    saved = api.put(
        "/api/v1/integrations/models/small",
        json={
            "provider": "openai",
            "base_url": openai_server.base_url,
            "default_model": "llama-8k",
            "context_window": WINDOW,
        },
    )
    assert saved.status_code == 200, saved.text
    parse = '{"input": "packet.pdf"}'
    openai_server.push(completion(None, tool_calls=[function_call("c1", "parse_document", parse)]))
    openai_server.push(completion(None, tool_calls=[function_call("c2", "parse_document", parse)]))
    openai_server.push(completion("Ada Lovelace, born 1815-12-10."))
    agent = create_agent(api, {"model": {"connection": "small"}})
    response = api.post(
        f"/api/v1/agents/{agent['id']}/run", data={"query": "read it"}, files=[("files", ("packet.pdf", pdf))]
    )
    assert response.status_code == 201, response.text
    done = wait_status(api, response.json()["task_id"], timeout=240)
    assert done["status"] == "completed", done
    requests = openai_server.requests
    assert len(requests) == 3
    budget = (WINDOW - REPLY_RESERVE_TOKENS) * CHARS_PER_TOKEN
    for request in requests:
        sent = json.dumps(request.body["messages"], ensure_ascii=False)
        assert len(sent) <= budget
        assert "bounding_box" not in sent
    last = requests[-1].body["messages"]
    tools = [m["content"] for m in last if m["role"] == "tool"]
    assert tools[0] == ELIDED and "Ada Lovelace" in tools[1]
