"""What one MCP operation reads is bounded while it arrives: the client against the SDK's own server
on loopback (JSON and SSE answers), and the transport against a server that streams without end."""

from __future__ import annotations

import gzip
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from actors import mcp_client
from actors.mcp_read_budget import AnswerTooLarge, BoundedTransport, CompressedAnswer, ReadBudget
from core.stores.mcp_servers import McpServer
from tests.support.mcp_server import McpTestServer

BOUND = 256 * 1024
#: Far longer than a bounded read takes: an answer past the bound must end the operation at once,
#: not leave the SDK waiting for a reply it will never hand on.
DEADLINE_SECONDS = 60.0


@pytest.fixture(scope="module", params=[False, True], ids=["json", "sse"])
def huge(request: pytest.FixtureRequest) -> Iterator[McpTestServer]:
    with McpTestServer(listing_bytes=4 * BOUND, sse=request.param) as server:
        yield server


def _server(url: str) -> McpServer:
    return McpServer(id="s", name="crm", url=url, revision="r", headers={})


async def test_a_listing_past_the_bound_stops_at_once_naming_it(huge: McpTestServer) -> None:
    started = time.monotonic()
    with pytest.raises(mcp_client.McpTooLarge) as raised:
        await mcp_client.list_tools(
            _server(huge.url), allow_private=True, limit_seconds=DEADLINE_SECONDS, max_bytes=BOUND
        )
    assert time.monotonic() - started < DEADLINE_SECONDS / 4
    assert str(BOUND) in raised.value.message and "AGENTRY_MCP_MAX_RESULT_BYTES" in raised.value.message
    assert "'crm'" in raised.value.message


async def test_the_same_listing_under_the_bound_is_read_whole(huge: McpTestServer) -> None:
    tools = await mcp_client.list_tools(
        _server(huge.url), allow_private=True, limit_seconds=DEADLINE_SECONDS, max_bytes=8 * BOUND
    )
    names = {tool.name for tool in tools}
    assert {"add", "lookup_order", "bulk_0", "bulk_102"} <= names and len(
        names
    ) == 4 + 4 * BOUND // 10_000 + 1


async def test_each_answer_is_bounded_not_their_sum() -> None:
    """The SDK lists the tools again inside a call: a listing and a call answer each under the bound
    (though together over it) are read; a call answer past it is too large."""
    with McpTestServer(listing_bytes=BOUND * 6 // 10) as listing:
        server = _server(listing.url)
        tools = await mcp_client.list_tools(
            server, allow_private=True, limit_seconds=DEADLINE_SECONDS, max_bytes=BOUND
        )
        assert sum(len(tool.model_dump_json()) for tool in tools) > BOUND / 2
        history = await mcp_client.call_tool(
            server,
            "order_history",
            {"order_id": "A-100", "entries": 1700},
            allow_private=True,
            limit_seconds=DEADLINE_SECONDS,
            max_bytes=BOUND,
        )
        assert not history.isError and len(str(history.content)) > BOUND / 4
        with pytest.raises(mcp_client.McpTooLarge):
            await mcp_client.call_tool(
                server,
                "order_history",
                {"order_id": "A-100", "entries": 20_000},
                allow_private=True,
                limit_seconds=DEADLINE_SECONDS,
                max_bytes=BOUND,
            )


async def test_the_transport_stops_reading_at_the_bound() -> None:
    """A body with no length that never ends: the read stops within one chunk of the bound."""
    pulled = 0

    async def endless() -> AsyncIterator[bytes]:
        nonlocal pulled
        while True:
            pulled += 1
            yield b"x" * 65536

    budget = ReadBudget(BOUND)
    inner = httpx.MockTransport(lambda request: httpx.Response(200, content=endless()))
    async with httpx.AsyncClient(transport=BoundedTransport(inner, budget)) as client:
        with budget.scope:
            async with client.stream("GET", "http://mcp.test/") as response:
                with pytest.raises(AnswerTooLarge):
                    await response.aread()
    assert budget.exceeded and budget.scope.cancel_called
    assert pulled == BOUND // 65536 + 1


async def test_a_declared_length_past_the_bound_is_refused_before_reading() -> None:
    budget = ReadBudget(BOUND)
    inner = httpx.MockTransport(lambda request: httpx.Response(200, content=b"y" * (BOUND + 1)))
    async with httpx.AsyncClient(transport=BoundedTransport(inner, budget)) as client:
        with budget.scope, pytest.raises(AnswerTooLarge):
            await client.get("http://mcp.test/")
    assert budget.exceeded


async def test_a_compressed_answer_is_refused() -> None:
    """Its bytes would be counted before they inflate, so no bound would hold."""
    body = gzip.compress(b"{}" * 100_000)
    inner = httpx.MockTransport(
        lambda request: httpx.Response(200, content=body, headers={"Content-Encoding": "gzip"})
    )
    async with httpx.AsyncClient(transport=BoundedTransport(inner, ReadBudget(BOUND))) as client:
        with pytest.raises(CompressedAnswer):
            await client.get("http://mcp.test/")
    problem = mcp_client.classify(ExceptionGroup("tg", [CompressedAnswer("gzip")]), "crm")
    assert isinstance(problem, mcp_client.McpProtocolError) and "gzip" in problem.message
