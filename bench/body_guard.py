"""What the body guard (`serve.body_guard`) costs per request, beside the same request without it.

In-process and without a network: the guard wraps a bare ASGI app whose route reads the body, and
both are called directly, so the figures are the guard's own work (header scan, route lookup,
reading and screening the body) and nothing else. Run from the repository root:

    .venv/bin/python bench/body_guard.py [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from starlette.types import Message, Receive, Scope, Send

from serve.body_guard import BodyGuard
from serve.input_checks import json_problem

MIB = 1024 * 1024


def make_api() -> FastAPI:
    """A document with one JSON route, so the guard's route table has something to match."""
    api = FastAPI()

    @api.post("/api/v1/agents/{agent_id}/run")
    async def run(agent_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return body

    @api.get("/api/v1/tasks/{task_id}")
    async def task(task_id: str) -> dict[str, Any]:
        return {}

    return api


async def bare(scope: Scope, receive: Receive, send: Send) -> None:
    """Reads the whole body (as a route would) and answers 200."""
    more = scope["method"] != "GET"
    while more:
        message = await receive()
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})


def request(method: str, path: str, body: bytes) -> tuple[Scope, Callable[[], Receive]]:
    headers = [(b"host", b"bench"), (b"authorization", b"Bearer agk_x_y")]
    if body:
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    scope: Scope = {
        "type": "http",
        "method": method,
        "path": path,
        "root_path": "",
        "query_string": b"",
        "headers": headers,
    }

    def receiver() -> Receive:
        async def receive() -> Message:
            return {"type": "http.request", "body": body, "more_body": False}

        return receive

    return scope, receiver


async def per_request(app: Any, scope: Scope, receiver: Callable[[], Receive], rounds: int) -> float:
    async def send(message: Message) -> None:
        return None

    started = time.perf_counter()
    for _ in range(rounds):
        await app(scope, receiver(), send)
    return (time.perf_counter() - started) / rounds * 1e6


def parse_time(scope: Scope, rounds: int) -> float:
    """The parse every JSON route does anyway (FastAPI's `json.loads`), as the yardstick."""
    headers = dict(scope["headers"])
    length = int(headers.get(b"content-length", b"0"))
    if not length:
        return 0.0
    body = BODIES[length]
    started = time.perf_counter()
    for _ in range(rounds):
        json.loads(body)
    return (time.perf_counter() - started) / rounds * 1e6


BODIES: dict[int, bytes] = {}


async def main(rounds: int) -> None:
    guard = BodyGuard(bare, api=make_api(), max_json_bytes=lambda: 2 * MIB)
    small = json.dumps({"query": "Summarise the attached referral letter.", "file_ids": []}).encode()
    config = json.dumps(
        {
            "output_config": {
                "output_schema": {
                    "type": "object",
                    "properties": {
                        f"field_{i}": {"type": "string", "description": "x" * 40} for i in range(200)
                    },
                }
            }
        }
    ).encode()
    big = json.dumps(
        {"query": "q", "output_config": {"rows": [{"a": i, "b": "text " * 4} for i in range(20_000)]}}
    ).encode()
    BODIES.update({len(b): b for b in (small, config, big)})
    cases = [
        ("GET, no body", request("GET", "/api/v1/tasks/3f1c2a4e-0000-4000-8000-000000000001", b""), rounds),
        (f"POST, {len(small)} B JSON", request("POST", "/api/v1/agents/3f1c/run", small), rounds),
        (
            f"POST, {len(config) // 1024} KiB JSON",
            request("POST", "/api/v1/agents/3f1c/run", config),
            rounds // 10,
        ),
        (
            f"POST, {len(big) // 1024} KiB JSON",
            request("POST", "/api/v1/agents/3f1c/run", big),
            max(rounds // 1000, 5),
        ),
    ]
    await per_request(guard, *cases[0][1], 10)  # builds the route table once
    print(f"load average {os.getloadavg()[0]:.1f} (2 cores, shared machine)")
    print(f"{'request':<24}{'bare µs':>12}{'guarded µs':>14}{'guard alone µs':>18}{'json.loads µs':>16}")
    for name, (scope, receiver), n in cases:
        plain = await per_request(bare, scope, receiver, n)
        guarded = await per_request(guard, scope, receiver, n)
        print(
            f"{name:<24}{plain:>12.1f}{guarded:>14.1f}{guarded - plain:>18.1f}{parse_time(scope, n):>16.1f}"
        )
    worst = [
        ("1 MiB, 512 Ki levels deep", b"[" * (MIB // 2) + b"]" * (MIB // 2)),
        ("1 MiB, 170 Ki \\u escapes", b'["' + b"\\u00e9" * (MIB // 6) + b'"]'),
    ]
    for name, body in worst:
        started = time.perf_counter()
        json_problem(body)
        print(f"screen of {name:<28}{(time.perf_counter() - started) * 1e3:>10.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000)
    asyncio.run(main(parser.parse_args().rounds))
