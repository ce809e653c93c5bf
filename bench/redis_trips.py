"""Redis commands and round trips of one trivial pooled scripted task, from its POST to completed.

    .venv/bin/python bench/redis_trips.py [--tasks 5] [--settle 0.5] [--quiet] [--dump FILE]

Starts its own service (Redis in a temp dir, local Ray, Serve on a free port), as bench/tasks.py
does, with one difference: the Redis server (the same binary as the embedded one) listens on a
loopback TCP port instead of a unix socket, so that MONITOR names each client by its address and
each address can be traced to the process that holds the connection.

A MONITOR connection records every command. For each task (after one warm-up task, not counted):
the window runs from just before its POST to its `completed` status (read from Redis by this
process) plus `--settle` seconds, so what the runner and the scheduler do right after completing
(lease release, queue events) is counted too. The quiet time between one task's window and the
next POST is counted as well, scaled to a window's length: what the scheduler's, the reconciler's
and the other actors' periodic work costs whatever the task does. `--dump FILE` writes every
command of the task windows with its process kind.

Counted per process kind (Serve replica for the POST, pooled task host for the runner, scheduler,
other Ray actors, this process): commands, including those a Lua script runs (shown apart), and
round trips: a MULTI..EXEC, a script, or commands of one client that follow each other within
`PIPELINE_GAP_S` with no other client's command in between (a pipeline) count as one round trip.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
import psutil
import redis

from bench import task_profile
from core.infra import keys
from core.infra.embedded_redis import redis_server_binary
from core.infra.settings import load_settings
from core.stores import apikeys
from serve.service import start_service, stop_service

#: Commands of one client this close together (server clock) are one pipeline: a round trip from
#: Python (the reply parsed, the next command sent) takes several times longer on loopback.
PIPELINE_GAP_S = 0.0001
_LINE = re.compile(r'^(\d+\.\d+) \[\d+ ([^\]]+)\] "([^"]+)"')


@dataclass
class Entry:
    at: float
    client: str
    command: str


@dataclass
class Figures:
    commands: dict[str, float] = field(default_factory=lambda: defaultdict(int))
    in_scripts: dict[str, float] = field(default_factory=lambda: defaultdict(int))
    trips: dict[str, float] = field(default_factory=lambda: defaultdict(int))
    by_command: dict[str, dict[str, float]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int))
    )


class Monitor:
    """Reads MONITOR in a thread; keeps every entry with its server timestamp."""

    def __init__(self, url: str) -> None:
        self.client = redis.Redis.from_url(url)
        self.entries: list[Entry] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self.own_address = ""

    def start(self) -> None:
        self._thread.start()

    def _read(self) -> None:
        with self.client.monitor() as monitor:
            connection = monitor.connection
            assert connection is not None
            sock = connection._sock
            assert sock is not None
            self.own_address = "{}:{}".format(*sock.getsockname()[:2])
            while not self._stop.is_set():
                try:
                    raw = monitor.connection.read_response()  # type: ignore[union-attr]
                except (redis.ConnectionError, OSError):
                    return
                text = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)
                match = _LINE.match(text)
                if match:
                    at, client, command = match.groups()
                    self.entries.append(Entry(float(at), client, command.upper()))

    def stop(self) -> None:
        self._stop.set()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start_redis(directory: Path, port: int) -> None:
    conf = directory / "redis.conf"
    conf.write_text(
        "\n".join(
            [
                f"port {port}",
                "bind 127.0.0.1",
                f"dir {directory}",
                "daemonize yes",
                f"pidfile {directory / 'redis.pid'}",
                f"logfile {directory / 'redis.log'}",
                'save ""',
                "appendonly yes",
                "appendfsync everysec",
                "",
            ]
        )
    )
    subprocess.run([redis_server_binary(), str(conf)], check=True, capture_output=True)
    client = redis.Redis(port=port)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            return
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class Owners:
    """Client address -> process kind, from the machine's TCP connections to the Redis port."""

    def __init__(self, redis_port: int, own: set[str]) -> None:
        self.port = redis_port
        self.own = own
        self.kinds: dict[str, str] = {}

    def refresh(self) -> None:
        me = os.getpid()
        for conn in psutil.net_connections(kind="tcp"):
            if not conn.raddr or conn.raddr.port != self.port or conn.pid is None:
                continue
            address = f"{conn.laddr.ip}:{conn.laddr.port}"
            if address in self.kinds:
                continue
            if conn.pid == me:
                self.kinds[address] = "bench (this process)"
                continue
            try:
                kind = task_profile._kind(psutil.Process(conn.pid))
            except psutil.Error:
                kind = None
            self.kinds[address] = kind or "other"

    def kind(self, client: str) -> str:
        if client == "lua":
            return "lua"
        return self.kinds.get(client, "unresolved (closed connection)")


def count(entries: list[Entry], owners: Owners) -> Figures:
    figures = Figures()
    previous: Entry | None = None
    in_multi: set[str] = set()
    for entry in entries:
        if entry.client in owners.own:
            continue
        if entry.client == "lua":
            # A command a script runs: counted for the client whose script it is (the one before).
            if previous is not None:
                kind = owners.kind(previous.client)
                figures.commands[kind] += 1
                figures.in_scripts[kind] += 1
                figures.by_command[kind][f"({entry.command})"] += 1
            continue
        kind = owners.kind(entry.client)
        figures.commands[kind] += 1
        figures.by_command[kind][entry.command] += 1
        pipelined = (
            previous is not None
            and previous.client == entry.client
            and entry.at - previous.at < PIPELINE_GAP_S
            and not previous.command.startswith("EVAL")
        )
        if entry.command == "MULTI":
            in_multi.add(entry.client)
            figures.trips[kind] += 1
        elif entry.client in in_multi:
            if entry.command == "EXEC":
                in_multi.discard(entry.client)
        elif not pipelined:
            figures.trips[kind] += 1
        previous = entry
    return figures


def scaled(figures: Figures, factor: float) -> Figures:
    out = Figures()
    for mine, theirs in (
        (out.commands, figures.commands),
        (out.in_scripts, figures.in_scripts),
        (out.trips, figures.trips),
    ):
        for kind, value in theirs.items():
            mine[kind] = value * factor
    for kind, commands in figures.by_command.items():
        for command, times in commands.items():
            out.by_command[kind][command] = times * factor
    return out


def _window(entries: list[Entry], start: float, end: float) -> list[Entry]:
    return [e for e in entries if start <= e.at <= end]


async def _one_task(
    client: httpx.AsyncClient, store: redis.Redis, agent_id: str, i: int
) -> tuple[float, float]:
    started = time.time()
    response = await client.post(f"/api/v1/agents/{agent_id}/run", json={"query": f"trip {i}"})
    assert response.status_code in (200, 201, 202), response.text
    task_id = response.json()["task_id"]
    owner = store.get(keys.owner(task_id)) or b""
    ws = owner.decode() if owner else ""
    deadline = time.monotonic() + 60
    while True:
        status = store.hget(keys.task(ws, task_id), "status") if ws else None
        if status == b"completed":
            return started, time.time()
        if status in (b"failed", b"stopped") or time.monotonic() > deadline:
            raise RuntimeError(f"task {task_id} ended {status!r}")
        await asyncio.sleep(0.002)


async def _measure(
    url: str, key: str, store: redis.Redis, tasks: int, settle: float
) -> list[tuple[float, float]]:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client:
        config = {
            "model": {"provider": "scripted", "turns": [{"answer": "ok"}]},
            "settings": {"placement": "pooled"},
        }
        response = await client.post("/api/v1/agents", json={"config": config})
        agent_id = response.json()["id"]
        await _one_task(client, store, agent_id, -1)  # warm-up: connections, caches, the pooled host
        await asyncio.sleep(settle * 2)
        windows = []
        for i in range(tasks):
            started, done = await _one_task(client, store, agent_id, i)
            windows.append((started, done + settle))
            # Quiet time before the next POST: what runs then is periodic work, counted apart.
            await asyncio.sleep(2 * settle + done - started)
    return windows


def _print(title: str, figures: list[Figures], detail: bool) -> None:
    n = len(figures)
    kinds = sorted({k for f in figures for k in f.commands}, key=lambda k: -sum(f.trips[k] for f in figures))
    print(title)
    print(f"  {'process kind':<34}{'round trips':>12}{'commands':>10}{'of which in scripts':>21}")
    for kind in kinds:
        trips = sum(f.trips[kind] for f in figures) / n
        commands = sum(f.commands[kind] for f in figures) / n
        scripted = sum(f.in_scripts[kind] for f in figures) / n
        print(f"  {kind:<34}{trips:>12.1f}{commands:>10.1f}{scripted:>21.1f}")
        if detail:
            merged: dict[str, float] = defaultdict(float)
            for f in figures:
                for command, times in f.by_command[kind].items():
                    merged[command] += times
            for scripted in (False, True):
                listed = ", ".join(
                    f"{c} {t / n:.3g}"
                    for c, t in sorted(merged.items(), key=lambda kv: -kv[1])
                    if c.startswith("(") == scripted
                )
                if listed:
                    print(f"      {'in its scripts: ' if scripted else ''}{listed}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=5, help="tasks measured (after one warm-up task)")
    parser.add_argument("--settle", type=float, default=0.5, help="seconds counted after completed")
    parser.add_argument("--quiet", action="store_true", help="no per-command detail")
    parser.add_argument("--dump", help="write every command of the task windows, with its process kind, here")
    args = parser.parse_args()
    data_dir = Path(tempfile.mkdtemp(prefix="agentry-bench-trips-"))
    redis_port = _free_port()
    _start_redis(data_dir, redis_port)
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    os.environ.update(
        {
            "AGENTRY_DATA_DIR": str(data_dir),
            "AGENTRY_PORT": str(_free_port()),
            "AGENTRY_RATE_LIMIT": "off",
            "REDIS_URL": redis_url,
        }
    )
    settings = load_settings()
    load_start = os.getloadavg()
    service = start_service(settings, dashboard=False)
    store = redis.Redis.from_url(redis_url)
    monitor = Monitor(redis_url)
    try:
        key = apikeys.issue_key_at(service.redis_url, "bench", label="bench").key
        monitor.start()
        store.ping()
        while not monitor.own_address:
            time.sleep(0.01)
        own_sock = store.connection_pool.get_connection()
        store.connection_pool.release(own_sock)
        assert own_sock._sock is not None
        own = {monitor.own_address, "{}:{}".format(*own_sock._sock.getsockname()[:2])}
        owners = Owners(redis_port, own)
        windows = asyncio.run(_measure(service.url, key, store, args.tasks, args.settle))
        owners.refresh()
    finally:
        monitor.stop()
        stop_service(service, settings)
        store.shutdown(nosave=True)
    load_end = os.getloadavg()
    entries = list(monitor.entries)
    busy = [count(_window(entries, start, end), owners) for start, end in windows]
    # The quiet time between a task's window and the next POST: periodic work (reconciler, timers,
    # spares, leases), scaled to the length of the next task's window.
    quiet = [(prev[1], start, end - start) for prev, (start, end) in itertools.pairwise(windows)]
    idle = [
        scaled(count(_window(entries, a, b), owners), length / (b - a)) for a, b, length in quiet if b > a
    ]
    if args.dump:
        with open(args.dump, "w") as out:
            for start, end in windows:
                out.write(f"--- task window {start:.6f} .. {end:.6f}\n")
                for e in _window(entries, start, end):
                    out.write(f"{e.at:.6f} {owners.kind(e.client):<30} {e.client:<22} {e.command}\n")
    spans = [end - start - args.settle for start, end in windows]
    print(
        f"\none trivial pooled scripted task, POST to completed + {args.settle} s; mean of {args.tasks} "
        f"tasks after a warm-up ({os.cpu_count()} cores, load average {load_start[0]:.1f} before, "
        f"{load_end[0]:.1f} after; POST to completed {1000 * sum(spans) / len(spans):.0f} ms mean)\n"
    )
    _print("per task:", busy, not args.quiet)
    if idle:
        _print(
            "\nbetween tasks, per window of the same length (periodic work, for reference):",
            idle,
            not args.quiet,
        )


if __name__ == "__main__":
    main()
