"""A small MCP server (the official SDK's FastMCP, Streamable HTTP) to try Agentry's MCP client with.

    python examples/mcp_server.py --port 8765      # serves http://127.0.0.1:8765/mcp

It keeps a few orders in memory: `lookup_order` and `order_history` read one, `refund_order`
changes one (the kind of call an agent config puts under `require_approval`), `add` is arithmetic. The tests start the same
server in process (`build_server`).
"""

from __future__ import annotations

import argparse
from typing import Any

from mcp.server.fastmcp import FastMCP

ORDERS: dict[str, dict[str, Any]] = {
    "A-100": {"order_id": "A-100", "status": "shipped", "total": 42.5, "refunded": 0.0},
    "A-200": {"order_id": "A-200", "status": "processing", "total": 19.0, "refunded": 0.0},
}


def build_server(*, host: str = "127.0.0.1", port: int = 8765, json_response: bool = True) -> FastMCP:
    """The example server; stateless replies (JSON, or an SSE stream with `json_response=False`),
    so any client request stands on its own."""
    server = FastMCP(
        "orders",
        host=host,
        port=port,
        stateless_http=True,
        json_response=json_response,
        log_level="WARNING",
    )
    orders = {key: dict(value) for key, value in ORDERS.items()}

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool()
    def lookup_order(order_id: str) -> dict[str, Any]:
        """An order's status and totals."""
        if order_id not in orders:
            raise ValueError(f"no order {order_id}")
        return orders[order_id]

    @server.tool()
    def order_history(order_id: str, entries: int = 10) -> str:
        """The order's event log, newest last (long for a busy order)."""
        if order_id not in orders:
            raise ValueError(f"no order {order_id}")
        return "\n".join(f"{order_id} event {n}: status checked, nothing changed" for n in range(entries))

    @server.tool()
    def refund_order(order_id: str, amount: float) -> dict[str, Any]:
        """Refund part of an order; returns the order as it now stands."""
        if order_id not in orders:
            raise ValueError(f"no order {order_id}")
        orders[order_id]["refunded"] = round(orders[order_id]["refunded"] + amount, 2)
        return orders[order_id]

    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    build_server(host=args.host, port=args.port).run(transport="streamable-http")


if __name__ == "__main__":
    main()
