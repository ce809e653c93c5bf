"""What Agentry reads from a remote MCP server is bounded while it arrives
(`AGENTRY_MCP_MAX_RESULT_BYTES`, 1 MiB in the test service): a tools/list or a call answer past it is
a clear error and nothing of it is kept; a large one under it works. Real Redis, Ray and Serve; the
SDK's own server on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from core.infra import keys
from core.infra.settings import Settings
from tests.integration.conftest import Service
from tests.integration.mcp.test_mcp_servers import ADD, add_server, call, orders_agent, summary
from tests.support.agents import feed, of_type, start, wait_status
from tests.support.mcp_server import McpTestServer
from tests.support.service import run_async

pytestmark = pytest.mark.integration

BOUND = Settings.model_fields["mcp_max_result_bytes"].default
NAMED = f"more than {BOUND} bytes, the bound AGENTRY_MCP_MAX_RESULT_BYTES"


@pytest.fixture(scope="module", params=[False, True], ids=["json", "sse"])
def huge(request: pytest.FixtureRequest) -> Iterator[McpTestServer]:
    """A server whose tools/list answer is twice the bound."""
    with McpTestServer(listing_bytes=2 * BOUND, sse=request.param) as server:
        yield server


@pytest.fixture(scope="module")
def large() -> Iterator[McpTestServer]:
    """A server whose tools/list answer is large but under the bound."""
    with McpTestServer(listing_bytes=BOUND // 2) as server:
        yield server


@pytest.fixture
def ws_api(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key()) as client:
        yield client


def kept_tools(service: Service, server_id: str) -> list[str]:
    async def read(redis: Any) -> list[str]:
        return [str(k) async for k in redis.scan_iter(match=keys.mcp_server_tools("*", server_id))]

    return list(run_async(service.redis_url, read))


def test_testing_a_server_whose_listing_passes_the_bound_is_a_502_and_keeps_nothing(
    ws_api: httpx.Client, service: Service, huge: McpTestServer
) -> None:
    server = add_server(ws_api, huge.url)
    tested = ws_api.post(f"/api/v1/mcp-servers/{server['id']}/test")
    assert tested.status_code == 502, tested.text
    assert NAMED in tested.json()["error"] and "'orders'" in tested.json()["error"]
    assert kept_tools(service, server["id"]) == []


def test_a_listing_under_the_bound_is_tested_and_kept(
    ws_api: httpx.Client, service: Service, large: McpTestServer
) -> None:
    server = add_server(ws_api, large.url)
    tested = ws_api.post(f"/api/v1/mcp-servers/{server['id']}/test")
    assert tested.status_code == 200 and tested.json()["ok"] is True, tested.text[:300]
    assert len(tested.json()["tools"]) == 4 + BOUND // 2 // 10_000 + 1
    assert len(kept_tools(service, server["id"])) == 1


def test_a_task_whose_server_lists_past_the_bound_tells_the_model_and_keeps_nothing(
    ws_api: httpx.Client, service: Service, huge: McpTestServer
) -> None:
    server = add_server(ws_api, huge.url)
    agent = orders_agent(
        ws_api, call(ADD, a=2, b=3), {"answer": "{{last_tool_result.error}}"}, require_approval="none"
    )
    task_id = start(ws_api, agent["id"])
    done = wait_status(ws_api, task_id, timeout=90)
    assert done["status"] == "completed", done
    (result,) = of_type(feed(ws_api, task_id), "tool_result")
    assert result["status"] == "error" and NAMED in result["error"], result
    assert NAMED in summary(ws_api, task_id)
    assert huge.tool_calls("add") == []
    assert kept_tools(service, server["id"]) == []


def test_a_call_answer_past_the_bound_is_a_too_large_tool_error(
    ws_api: httpx.Client, large: McpTestServer
) -> None:
    """The listing (half the bound) and each answer are read under the bound; the answer of 30000
    history entries (about 3 MB on the wire) is not."""
    history = "mcp__orders__order_history"
    add_server(ws_api, large.url)
    agent = orders_agent(
        ws_api,
        call(history, order_id="A-100", entries=30_000),
        call(ADD, a=2, b=3),
        {"answer": "{{last_tool_result.structured.result}}"},
        require_approval="none",
    )
    task_id = start(ws_api, agent["id"])
    done = wait_status(ws_api, task_id, timeout=90)
    assert done["status"] == "completed", done
    items = feed(ws_api, task_id)
    too_large, added = of_type(items, "tool_result")
    assert too_large["status"] == "error" and NAMED in too_large["error"]
    assert added["status"] == "ok" and summary(ws_api, task_id) == "5"
    assert [c["outcome"] for c in of_type(items, "mcp_call")] == ["too_large", "ok"]
