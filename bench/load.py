"""HTTP load on loopback: many clients polling tasks and starting runs, beside a bare uvicorn+FastAPI app.

    .venv/bin/python bench/load.py [--clients 200] [--seconds 60] [--run-share 0.05]

Starts its own service (embedded Redis in a temp dir, local Ray, Serve on a free port, rate limit
off), creates a key and a scripted agent (pooled placement, one answer), starts a few tasks to poll,
then runs three phases of `--seconds` each with `--clients` concurrent clients, each client sending
one request at a time on its own keep-alive connection:

1. agentry, mixed: each request is `POST /api/v1/agents/{id}/run` (async=true) with probability
   `--run-share`, else `GET /api/v1/tasks/{id}` of a task started so far;
2. agentry, the GET alone;
3. the same GET against a bare uvicorn+FastAPI app (one process, a handler returning a task record
   of the same size) started in a subprocess on a free port: the ceiling of this machine's Python
   HTTP stack, and the ratio agentry/bare.

It prints requests per second, p50/p99 latency, errors by status, the RSS of the service's
processes (Serve proxy, replicas, Redis) at start and end, and the load generator's own CPU use:
one asyncio process with aiohttp, which is not the bottleneck while it stays well under one core
(and while the bare app's rate, through the same generator, is well above agentry's).
Every request goes to 127.0.0.1; each phase stops by itself after `--seconds`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

#: Per-request timeout; a request slower than this counts as an error (`timeout`).
REQUEST_TIMEOUT_SECONDS = 30.0
#: Tasks started before the phases, so the first polls have something to read.
SEED_TASKS = 20
#: Polls pick among the most recent task ids, as a client polls what it just started.
POLL_WINDOW = 500
#: The bare app's answer: the size and shape of a task record.
BARE_RECORD: dict[str, Any] = {
    "task_id": "00000000-0000-4000-8000-000000000000",
    "agent_id": "00000000-0000-4000-8000-000000000001",
    "status": "completed",
    "title": "hello",
    "agent_name": "load",
    "created_at": "2025-01-01T00:00:00.000000Z",
    "updated_at": "2025-01-01T00:00:00.100000Z",
    "source": "production",
    "parent_task_id": None,
    "parent_step_id": None,
    "spawn_depth": 0,
    "agent_group_id": "00000000-0000-4000-8000-000000000002",
    "version_number": 1,
    "query": "hello",
    "files": [],
    "item_key": None,
    "pause": None,
    "usage": {"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0, "steps": 1},
    "error": None,
}


def bare_app() -> Any:
    """The comparison app (`uvicorn bench.load:bare_app --factory`): one GET, no store, no auth."""
    from fastapi import FastAPI

    app = FastAPI()

    @app.get("/api/v1/tasks/{task_id}")
    async def get_task(task_id: str) -> dict[str, Any]:
        return BARE_RECORD | {"task_id": task_id}

    return app


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"get": [], "run": []})
    errors: Counter[str] = field(default_factory=Counter)
    #: The first body answered with each error status, to tell a 503 of the store from Serve's.
    samples: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    generator_cpu: float = 0.0

    def count(self, kind: str | None = None) -> int:
        if kind is not None:
            return len(self.latencies[kind])
        return sum(len(v) for v in self.latencies.values())

    def all_latencies(self) -> list[float]:
        return [x for v in self.latencies.values() for x in v]


async def _phase(
    url: str,
    headers: dict[str, str],
    *,
    clients: int,
    seconds: float,
    run_share: float,
    agent_id: str | None,
    task_ids: list[str],
) -> Stats:
    """`clients` loops, each one request at a time, until `seconds` have passed."""
    import aiohttp

    stats = Stats()
    connector = aiohttp.TCPConnector(limit=clients, limit_per_host=clients)
    timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_SECONDS)
    async with aiohttp.ClientSession(url, headers=headers, connector=connector, timeout=timeout) as session:

        async def client(seed: int, deadline: float) -> None:
            rng = random.Random(seed)
            while time.perf_counter() < deadline:
                is_run = agent_id is not None and rng.random() < run_share
                kind = "run" if is_run else "get"
                started = time.perf_counter()
                try:
                    if is_run:
                        request = session.post(f"/api/v1/agents/{agent_id}/run", json={"query": "hi"})
                    else:
                        window = task_ids[-POLL_WINDOW:]
                        request = session.get(f"/api/v1/tasks/{window[rng.randrange(len(window))]}")
                    async with request as response:
                        body = await response.read()
                        status = response.status
                except TimeoutError:
                    stats.errors["timeout"] += 1
                    continue
                except aiohttp.ClientError as exc:
                    stats.errors[type(exc).__name__] += 1
                    continue
                if status >= 400:
                    stats.errors[str(status)] += 1
                    stats.samples.setdefault(str(status), body[:200].decode("utf-8", "replace"))
                    continue
                stats.latencies[kind].append(time.perf_counter() - started)
                if is_run and status == 201:
                    task_ids.append(_task_id(body))

        # Connections are opened before the clock starts, as long-lived clients would hold them.
        await asyncio.gather(*(client(i, time.perf_counter() + 0.5) for i in range(min(clients, 20))))
        stats = Stats()
        cpu = time.process_time()
        started = time.perf_counter()
        deadline = started + seconds
        await asyncio.gather(*(client(i, deadline) for i in range(clients)))
        stats.seconds = time.perf_counter() - started
        stats.generator_cpu = (time.process_time() - cpu) / stats.seconds
    return stats


def _task_id(body: bytes) -> str:
    import json

    return str(json.loads(body)["task_id"])


def _service_processes(redis_url: str) -> dict[str, list[Any]]:
    """This run's Serve proxy and replica processes (our Ray's, not another on the machine) and Redis."""
    import psutil
    import redis

    found: dict[str, list[Any]] = {"Serve proxy": [], "Serve replicas": [], "Redis": []}
    for proc in psutil.Process(os.getpid()).children(recursive=True):
        try:
            title = " ".join(proc.cmdline())
        except psutil.Error:
            continue
        if title.startswith("ray::ProxyActor"):
            found["Serve proxy"].append(proc)
        elif title.startswith("ray::ServeReplica"):
            found["Serve replicas"].append(proc)
    client = redis.Redis.from_url(redis_url)
    try:
        found["Redis"].append(psutil.Process(int(client.info("server")["process_id"])))
    finally:
        client.close()
    return found


def _rss_mib(processes: dict[str, list[Any]]) -> dict[str, float]:
    import psutil

    sizes = {}
    for name, procs in processes.items():
        total = 0
        for proc in procs:
            try:
                total += proc.memory_info().rss
            except psutil.Error:
                continue
        sizes[name] = total / 2**20
    return sizes


def _cpu_seconds(processes: dict[str, list[Any]]) -> dict[str, float]:
    import psutil

    used = {}
    for name, procs in processes.items():
        total = 0.0
        for proc in procs:
            try:
                times = proc.cpu_times()
            except psutil.Error:
                continue
            total += times.user + times.system
        used[name] = total
    return used


def _start_bare(port: int) -> subprocess.Popen[bytes]:
    command = [
        sys.executable, "-m", "uvicorn", "bench.load:bare_app", "--factory",
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "--no-access-log",
    ]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen(command, cwd=REPO, env=env)


def _wait_http(url: str, timeout: float = 30.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer within {timeout} s")


def _prepare(url: str, key: str) -> tuple[str, list[str]]:
    """A scripted agent and a few finished tasks to poll."""
    import httpx

    config = {
        "model": {"provider": "scripted", "turns": [{"answer": "ok"}]},
        "settings": {"placement": "pooled", "max_concurrent_tasks": 1000},
    }
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as api:
        agent_id = str(api.post("/api/v1/agents", json={"name": "load", "config": config}).json()["id"])
        ids = []
        for i in range(SEED_TASKS):
            response = api.post(f"/api/v1/agents/{agent_id}/run", json={"query": f"seed {i}"})
            response.raise_for_status()
            ids.append(str(response.json()["task_id"]))
        deadline = time.monotonic() + 120
        while any(api.get(f"/api/v1/tasks/{t}").json()["status"] != "completed" for t in ids):
            if time.monotonic() > deadline:
                raise TimeoutError("the seed tasks did not complete")
            time.sleep(0.2)
    return agent_id, ids


def _row(what: str, stats: Stats, kind: str | None = None) -> str:
    latencies = stats.latencies[kind] if kind else stats.all_latencies()
    count = stats.count(kind)
    errors = "" if kind else (" ".join(f"{k}:{v}" for k, v in sorted(stats.errors.items())) or "0")
    return (
        f"{what:<34}{count:>9}{count / stats.seconds:>10.1f}{_pct(latencies, 0.5) * 1000:>9.1f}"
        f"{_pct(latencies, 0.99) * 1000:>9.1f}  {errors}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each of the three phases")
    parser.add_argument("--run-share", type=float, default=0.05, help="share of requests that start a run")
    args = parser.parse_args()
    if not 0 < args.seconds <= 600 or not 0 < args.clients <= 2000:
        parser.error("--seconds must be in (0, 600] and --clients in (0, 2000]")

    from core.settings import load_settings
    from serve.service import start_service, stop_service
    from tests.support.service import new_key

    os.environ.update(
        {
            "AGENTRY_DATA_DIR": tempfile.mkdtemp(prefix="agentry-load-"),
            "AGENTRY_PORT": str(_free_port()),
            "AGENTRY_RATE_LIMIT": "off",
            "AGENTRY_LOG_LEVEL": "WARNING",
        }
    )
    settings = load_settings()
    load_start = os.getloadavg()
    service = start_service(settings, dashboard=False)
    bare: subprocess.Popen[bytes] | None = None
    try:
        key = new_key(service.redis_url, "load").key
        headers = {"Authorization": f"Bearer {key}"}
        agent_id, task_ids = _prepare(service.url, key)
        processes = _service_processes(service.redis_url)
        memory_start = _rss_mib(processes)
        shape: dict[str, Any] = {"clients": args.clients, "seconds": args.seconds, "task_ids": task_ids}
        cpu_start = _cpu_seconds(processes)
        mixed = asyncio.run(
            _phase(service.url, headers, run_share=args.run_share, agent_id=agent_id, **shape)
        )
        cpu_mixed = _cpu_seconds(processes)
        polls = asyncio.run(_phase(service.url, headers, run_share=0, agent_id=None, **shape))
        cpu_polls = _cpu_seconds(processes)
        memory_end = _rss_mib(processes)
        bare_port = _free_port()
        bare = _start_bare(bare_port)
        bare_url = f"http://127.0.0.1:{bare_port}"
        _wait_http(f"{bare_url}/api/v1/tasks/warm")
        ceiling = asyncio.run(_phase(bare_url, headers, run_share=0, agent_id=None, **shape))
    finally:
        if bare is not None:
            bare.terminate()
            bare.wait(timeout=10)
        stop_service(service, settings)
    load_end = os.getloadavg()

    print(
        f"\n{args.clients} clients, {args.seconds:.0f} s per phase, loopback; "
        f"{os.cpu_count()} cores, load average {load_start[0]:.1f} before, {load_end[0]:.1f} after\n"
    )
    print(f"{'phase':<34}{'requests':>9}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}  errors by status")
    print(_row(f"agentry mixed ({args.run_share:.0%} runs)", mixed))
    print(_row("  of which GET /tasks/{id}", mixed, "get"))
    print(_row("  of which POST /agents/{id}/run", mixed, "run"))
    print(_row("agentry GET /tasks/{id} only", polls))
    print(_row("bare uvicorn+FastAPI GET only", ceiling))
    ratio = polls.count() / polls.seconds / (ceiling.count() / ceiling.seconds)
    p50 = _pct(polls.all_latencies(), 0.5) / _pct(ceiling.all_latencies(), 0.5)
    print(f"\nagentry / bare, the same GET: {ratio:.2f}x the requests per second, {p50:.1f}x the p50 latency")
    print("\nthe service's processes            RSS MiB start    end   CPU (cores) mixed  GET only")
    for name in memory_start:
        count = len(processes[name])
        mixed_cores = (cpu_mixed[name] - cpu_start[name]) / mixed.seconds
        polls_cores = (cpu_polls[name] - cpu_mixed[name]) / polls.seconds
        print(
            f"  {name + f' ({count})':<34}{memory_start[name]:>9.0f}{memory_end[name]:>7.0f}"
            f"{mixed_cores:>18.2f}{polls_cores:>10.2f}"
        )
    for what, stats in (("mixed", mixed), ("GET only", polls), ("bare", ceiling)):
        for status, sample in stats.samples.items():
            print(f"first {status} body ({what}): {sample}")
    print(
        "\nload generator CPU (share of one core): "
        f"mixed {mixed.generator_cpu:.0%}, GET only {polls.generator_cpu:.0%}, bare {ceiling.generator_cpu:.0%}"
    )


if __name__ == "__main__":
    main()
