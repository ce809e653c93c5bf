"""CPU per request of our app's own request path, in-process: no HTTP server, no Serve, no load.

    .venv/bin/python bench/edge_cpu.py [--requests 4000] [--rounds 5] [--concurrency 50] [--profile out.prof]

It starts an embedded Redis in a temp dir, issues a key (rate limit off), stores a task, then sends
`GET /api/v1/tasks/{id}` (and the error paths' 404 and 401, and /healthz) straight into the ASGI
app (`serve.app:app`), `--concurrency` requests at a time, and prints per request:

- the process's CPU time (the median of `--rounds` rounds): the app's share of a replica's CPU
  (middleware, routing, dependencies, the key cache, the Redis call, encoding) without uvicorn's
  HTTP parsing or Serve's machinery. CPU time, not wall time, yet a busy shared machine still
  inflates it (its caches are shared): compare runs made close together;
- the function calls made (Python and C, counted over one batch): the same on any machine, for
  comparing two versions of the code;
- the commands Redis ran (its INFO commandstats): the round trips the reply needs.

Redis runs in its own process, so its own time is not counted. `--profile` writes a cProfile of
the GET loop.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def _scope(path: str, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1"), *headers],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }


async def _get(app: Any, path: str, headers: list[tuple[bytes, bytes]]) -> int:
    status = 0

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(_scope(path, headers), receive, send)
    return status


async def _loop(
    app: Any, path: str, headers: list[tuple[bytes, bytes]], count: int, concurrency: int, rounds: int
) -> float:
    """CPU seconds per request, the median of `rounds` rounds of `count` requests, `concurrency` at a
    time (the median, since other processes on a shared machine slow some rounds); every answer is
    checked."""
    expected = await _get(app, path, headers)
    batches = max(1, count // concurrency)
    per_round = []
    for _ in range(rounds):
        started = time.process_time()
        for _ in range(batches):
            statuses = await asyncio.gather(*(_get(app, path, headers) for _ in range(concurrency)))
            if any(s != expected for s in statuses):
                raise RuntimeError(f"{path} answered {set(statuses)}, not always {expected}")
        per_round.append((time.process_time() - started) / (batches * concurrency))
    return statistics.median(per_round)


async def _redis_commands(redis: Any) -> int:
    """Commands the Redis server has run so far (its INFO commandstats)."""
    stats = await redis.info("commandstats")
    return sum(int(entry["calls"]) for entry in stats.values())


async def _calls(app: Any, path: str, headers: list[tuple[bytes, bytes]], concurrency: int) -> float:
    """Function calls (Python and C) per request over one batch: a count the machine's load does not
    change, to compare two versions of the code where the CPU time is too noisy to."""
    calls = 0

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        await asyncio.gather(*(_get(app, path, headers) for _ in range(concurrency)))
    finally:
        sys.setprofile(None)
    return calls / concurrency


async def _run(args: argparse.Namespace) -> None:
    from core import tasks
    from core.infra.ids import new_id
    from core.stores.apikeys import issue_key
    from serve.app import app
    from serve.state import edge_state

    edge = edge_state()
    issued = await issue_key(edge.redis, "edge-cpu", label="bench")
    workspace = issued.record.workspace_id
    task = await tasks.create_task(
        edge.redis,
        {
            "task_id": new_id(),
            "workspace_id": workspace,
            "agent_id": new_id(),
            "agent_group_id": new_id(),
            "version_number": 1,
            "agent_name": "load",
            "title": "hello",
            "query": "hello",
        },
    )
    auth = [(b"authorization", f"Bearer {issued.key}".encode())]
    # The key cache is trusted once the replica's revocation subscription is confirmed.
    deadline = time.monotonic() + 10
    while not edge.api_keys._trusted:
        await _get(app, f"/api/v1/tasks/{task.id}", auth)
        if time.monotonic() > deadline:
            raise TimeoutError("the revocation subscription was not confirmed")
        await asyncio.sleep(0.05)

    rows = [
        ("GET /api/v1/tasks/{id} (200)", f"/api/v1/tasks/{task.id}", auth),
        ("GET /api/v1/tasks/{unknown} (404)", f"/api/v1/tasks/{new_id()}", auth),
        ("GET /api/v1/tasks/{id}, no key (401)", f"/api/v1/tasks/{task.id}", []),
        ("GET /healthz", "/healthz", []),
    ]
    print(
        f"{args.rounds} rounds of {args.requests} requests per row, {args.concurrency} at a time: "
        "the median round's CPU time of this process per request"
    )
    for label, path, headers in rows:
        profiler = cProfile.Profile() if args.profile and label.endswith("(200)") else None
        if profiler is not None:
            profiler.enable()
        per_request = await _loop(app, path, headers, args.requests, args.concurrency, args.rounds)
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
        commands_before = await _redis_commands(edge.redis)
        calls = await _calls(app, path, headers, args.concurrency)
        # The INFO call that reads the count is one command itself.
        commands = (await _redis_commands(edge.redis) - commands_before - 1) / args.concurrency
        print(
            f"  {label:<40}{per_request * 1e6:>8.0f} us/request  ({1 / per_request:>6,.0f}/s on one core)"
            f"{calls:>8.0f} calls/request{commands:>5.1f} Redis commands/request"
        )
    await edge.waiters.close()
    await edge.redis.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=4000, help="requests per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--profile", help="write a cProfile of the 200 GET loop to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="edge-cpu-") as data:
        os.environ.update(
            {"AGENTRY_DATA_DIR": data, "AGENTRY_RATE_LIMIT": "off", "AGENTRY_LOG_LEVEL": "WARNING"}
        )
        os.environ.pop("REDIS_URL", None)
        from core.infra.settings import load_settings
        from core.infra.store import embedded_for

        server = embedded_for(load_settings())
        server.ensure_running()
        try:
            asyncio.run(_run(args))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
