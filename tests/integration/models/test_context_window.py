"""A 20-page document on a model whose context window is 8k tokens: the task completes, every
request fits the window, and the model never sees element boxes. A result too long to send whole
reaches the model as a summary and a handle; `read_result` pages through it; when the conversation
outgrows the window its oldest tool outputs are elided and the feed says which step's."""

import json
from collections.abc import Iterator

import httpx
import pytest

from actors.context_budget import CHARS_PER_TOKEN, ELIDED, REPLY_RESERVE_TOKENS
from tests.integration.conftest import Service
from tests.support import documents
from tests.support.agents import create_agent, feed, wait_status
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
    _connect_small_model(api, openai_server)
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
    # Each parse result is too long to send whole: a summary with its handle and its start.
    assert "'s0.c1'" in tools[0] and "'s1.c2'" in tools[1] and "Ada Lovelace" in tools[1]


def _connect_small_model(api: httpx.Client, openai_server: OpenAICompatibleServer) -> None:
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


def test_a_long_result_is_paged_through_read_result_and_elision_shows_in_the_feed(
    api: httpx.Client, openai_server: OpenAICompatibleServer
) -> None:
    pdf = documents.pdf_text([[f"{page}.{n} {LINE}" for n in range(38)] for page in range(1, 21)])
    _connect_small_model(api, openai_server)
    openai_server.push(
        completion(None, tool_calls=[function_call("c1", "parse_document", '{"input": "packet.pdf"}')])
    )
    for step, page in enumerate(range(2, 6), start=1):
        arguments = json.dumps({"handle": "s0.c1", "page": page})
        openai_server.push(completion(None, tool_calls=[function_call(f"r{step}", "read_result", arguments)]))
    openai_server.push(completion("Ada Lovelace, born 1815-12-10."))
    agent = create_agent(api, {"model": {"connection": "small"}})
    response = api.post(
        f"/api/v1/agents/{agent['id']}/run", data={"query": "read it"}, files=[("files", ("packet.pdf", pdf))]
    )
    assert response.status_code == 201, response.text
    task_id = response.json()["task_id"]
    done = wait_status(api, task_id, timeout=240)
    assert done["status"] == "completed", done
    requests = openai_server.requests
    assert len(requests) == 6

    def offered(index: int) -> list[str]:
        return [tool["function"]["name"] for tool in requests[index].body.get("tools") or []]

    assert "read_result" not in offered(0) and "read_result" in offered(1)
    summary = next(m for m in requests[1].body["messages"] if m["role"] == "tool")["content"]
    assert "'s0.c1'" in summary and "read_result" in summary and len(summary) < 2_500
    page_two = json.loads([m for m in requests[2].body["messages"] if m["role"] == "tool"][1]["content"])
    assert page_two["handle"] == "s0.c1" and page_two["page"] == 2 and page_two["pages"] >= 5
    assert page_two["offset"] == 6_000 and len(page_two["text"]) == 6_000
    assert "Ada Lovelace" in page_two["text"]
    budget = (WINDOW - REPLY_RESERVE_TOKENS) * CHARS_PER_TOKEN
    for request in requests:
        assert len(json.dumps(request.body["messages"], ensure_ascii=False)) <= budget
    last_tools = [m["content"] for m in requests[-1].body["messages"] if m["role"] == "tool"]
    assert last_tools[0] == ELIDED and json.loads(last_tools[-1])["page"] == 5
    items = feed(api, task_id)
    notes = [i for i in items if i["type"] == "message_sent" and i.get("kind") == "context_elided"]
    assert notes and notes[0]["steps"][0] == 0 and "step 0" in notes[0]["text"]
    elided_steps = [step for note in notes for step in note["steps"]]
    assert len(elided_steps) == len(set(elided_steps))  # each step's elision is told once
