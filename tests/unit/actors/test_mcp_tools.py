"""The pure parts of remote MCP tools: agent config, prefixed names, how client failures are sorted."""

from __future__ import annotations

import httpx
import pytest
from mcp.shared.exceptions import McpError
from mcp.types import CallToolResult, ErrorData, ImageContent, TextContent, Tool

from actors import mcp_client, mcp_tools
from core.infra.errors import BadRequest
from core.infra.url_guard import BlockedURL
from core.stores.mcp_config import server_uses
from core.stores.mcp_servers import McpServer, check_headers, check_name
from tools.registry import TOOL_NAME_PATTERN


def test_a_config_names_servers_tools_and_approvals() -> None:
    (orders, crm) = server_uses(
        {
            "mcp_servers": [
                {"server": "orders", "allowed_tools": ["lookup"], "require_approval": ["refund"]},
                {"server": "crm", "require_approval": "none"},
            ]
        }
    )
    assert orders.allows("lookup") and not orders.allows("refund")
    assert orders.needs_approval("refund") and not orders.needs_approval("lookup")
    assert crm.allows("anything") and not crm.needs_approval("anything")
    (default,) = server_uses({"mcp_servers": [{"server": "x"}]})
    assert default.needs_approval("any")  # a remote tool may do anything: approval by default
    assert server_uses({}) == []


@pytest.mark.parametrize(
    ("entries", "fragment"),
    [
        ("orders", "list"),
        ([{"allowed_tools": []}], "server"),
        ([{"server": "Orders"}], "not an MCP server name"),
        ([{"server": "a"}, {"server": "a"}], "twice"),
        ([{"server": "a", "require_approval": "sometimes"}], "require_approval"),
        ([{"server": "a", "allowed_tools": "all"}], "allowed_tools"),
        ([{"server": "a", "extra": 1}], "unknown keys"),
    ],
)
def test_a_bad_config_says_what_is_wrong(entries: object, fragment: str) -> None:
    with pytest.raises(BadRequest) as raised:
        server_uses({"mcp_servers": entries})
    assert fragment in raised.value.message


def test_tool_names_are_stable_prefixed_and_always_legal() -> None:
    assert mcp_tools.tool_name("orders", "lookup_order") == "mcp__orders__lookup_order"
    odd = mcp_tools.tool_name("orders", "files/read.v2")
    assert odd == mcp_tools.tool_name("orders", "files/read.v2")
    assert odd != mcp_tools.tool_name("orders", "files_read_v2")
    long = mcp_tools.tool_name("a" * 24, "x" * 80)
    for name in (odd, long):
        assert TOOL_NAME_PATTERN.fullmatch(name), name
        assert mcp_tools.is_mcp_tool(name)
    assert mcp_tools.server_of(long) == "a" * 24
    assert mcp_tools.server_of("mcp__my-crm__get__thing") == "my-crm"
    assert not mcp_tools.is_mcp_tool("parse_document")


def test_names_and_headers_are_checked() -> None:
    assert check_name("crm-2") == "crm-2"
    for bad in ("", "-x", "a--b", "A", "a_b", "x" * 25):
        with pytest.raises(BadRequest):
            check_name(bad)
    assert check_headers({"X-Api-Key": "v"}) == {"X-Api-Key": "v"}
    for headers in ({"Host": "x"}, {"Mcp-Session-Id": "x"}, {"bad name": "x"}, {"X": "a\r\nB: c"}):
        with pytest.raises(BadRequest):
            check_headers(headers)


def test_client_failures_are_sorted_for_the_runtime() -> None:
    request = httpx.Request("POST", "http://h/mcp")
    down = ExceptionGroup("tg", [httpx.ConnectError("refused", request=request)])
    assert isinstance(mcp_client.classify(down, "crm"), mcp_client.McpUnreachable)
    assert isinstance(mcp_client.classify(TimeoutError(), "crm"), mcp_client.McpUnreachable)
    busy = httpx.HTTPStatusError("503", request=request, response=httpx.Response(503, request=request))
    assert isinstance(mcp_client.classify(busy, "crm"), mcp_client.McpUnreachable)
    denied = httpx.HTTPStatusError("401", request=request, response=httpx.Response(401, request=request))
    assert isinstance(mcp_client.classify(denied, "crm"), mcp_client.McpProtocolError)
    blocked = mcp_client.classify(ExceptionGroup("tg", [BlockedURL("a private address")]), "crm")
    assert isinstance(blocked, mcp_client.McpRefused) and "crm" in blocked.message
    rpc = mcp_client.classify(McpError(ErrorData(code=-32601, message="no such method")), "crm")
    assert isinstance(rpc, mcp_client.McpProtocolError) and "no such method" in rpc.message


def test_results_keep_text_and_structured_content() -> None:
    result = CallToolResult(
        content=[
            TextContent(type="text", text="hello"),
            ImageContent(type="image", data="AA==", mimeType="image/png"),
        ],
        structuredContent={"n": 1},
    )
    assert mcp_tools._output(result) == {"content": "hello\n[image content]", "structured": {"n": 1}}


def test_a_tool_view_shows_the_name_the_model_calls() -> None:
    tool = Tool(name="add", description="Add", inputSchema={"type": "object", "properties": {}})
    assert mcp_tools.tool_view("calc", tool)["tool_name"] == "mcp__calc__add"


async def test_every_request_passes_the_url_guard() -> None:
    """A loopback server (as a name that later resolves to one would be) is refused before any
    connection while private addresses are not allowed: the client's transport is the guard's."""
    server = McpServer(id="s", name="crm", url="http://127.0.0.1:9/mcp", revision="r", headers={})
    with pytest.raises(mcp_client.McpRefused) as raised:
        await mcp_client.list_tools(server, allow_private=False, limit_seconds=10, max_bytes=1 << 20)
    assert "loopback" in raised.value.message
    with pytest.raises(mcp_client.McpUnreachable):
        await mcp_client.call_tool(server, "x", {}, allow_private=True, limit_seconds=10, max_bytes=1 << 20)
