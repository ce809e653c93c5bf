"""Where the CPU of a burst of tasks goes: per process kind, and py-spy samples of the busiest.

Used by `bench/tasks.py --profile`: `Spy(seconds)` is entered around one placement's burst. It counts
the CPU seconds every process of this run used (Serve replicas, HAProxy, task hosts, task actors
and spares, the scheduler, Ray's own daemons, Redis, the load generator), and samples the
replicas and the task processes with py-spy (bench/replica_profile.py sums the samples).
"""

from __future__ import annotations

import os
import signal
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import psutil

from bench import replica_profile

#: Process kinds, by the start of their command line (Ray titles its workers `ray::<Class>`).
KINDS = (
    ("ray::ServeReplica", "Serve replicas"),
    ("ray::TaskHost", "task hosts (pooled)"),
    ("ray::TaskActor", "task actors and spares"),
    ("ray::Scheduler", "scheduler"),
    ("ray::IDLE", "idle Ray workers"),
    ("ray::", "other Ray actors"),
)
DAEMONS = ("raylet", "gcs_server", "dashboard", "log_monitor", "agent", "haproxy", "redis-server")


def _kind(proc: psutil.Process) -> str | None:
    try:
        line = " ".join(proc.cmdline())
        name = proc.name()
    except psutil.Error:
        return None
    if name == "py-spy":
        return None  # the profiler's own CPU is not the service's
    for prefix, kind in KINDS:
        if line.startswith(prefix):
            return kind
    for daemon in DAEMONS:
        if daemon in name or daemon in line.split(" ")[0]:
            return (
                "Redis" if daemon == "redis-server" else ("HAProxy" if daemon == "haproxy" else "Ray daemons")
            )
    return f"other: {name}"


def _tree(redis_url: str) -> list[psutil.Process]:
    """This process and what it started: its Ray (raylet, GCS, the workers the raylet starts) and
    Serve, not another Ray on the same machine; and its Redis (a daemon, not a child)."""
    import redis

    me = psutil.Process(os.getpid())
    procs = [me, *me.children(recursive=True)]
    client = redis.Redis.from_url(redis_url)
    try:
        pid = int(client.info("server")["process_id"])
    finally:
        client.close()
    if pid not in {p.pid for p in procs}:
        procs.append(psutil.Process(pid))
    return procs


def _cpu(procs: list[psutil.Process]) -> dict[int, tuple[str, float]]:
    me = os.getpid()
    used = {}
    for proc in procs:
        kind = "load generator (this process)" if proc.pid == me else _kind(proc)
        if kind is None:
            continue
        try:
            times = proc.cpu_times()
        except psutil.Error:
            continue
        used[proc.pid] = (kind, times.user + times.system)
    return used


class Spy:
    def __init__(self, seconds: float, redis_url: str) -> None:
        self.seconds = seconds
        self.redis_url = redis_url
        self.dir = Path(tempfile.mkdtemp(prefix="agentry-task-profile-"))
        self.report = ""

    def __enter__(self) -> Spy:
        procs = _tree(self.redis_url)
        self.before = _cpu(procs)
        sampled = [p.pid for p in procs if _kind(p) in ("Serve replicas", "task hosts (pooled)", "scheduler")]
        self.spies = replica_profile.record(sampled, self.seconds, self.dir)
        return self

    def finish(self, elapsed: float, tasks: int) -> str:
        after = _cpu(_tree(self.redis_url))
        by_kind: dict[str, float] = defaultdict(float)
        for pid, (kind, seconds) in after.items():
            by_kind[kind] += seconds - self.before.get(pid, (kind, 0.0))[1]
        for spy in self.spies:
            # py-spy writes what it sampled when interrupted (a burst may end before its duration).
            spy.send_signal(signal.SIGINT)
        for spy in self.spies:
            spy.wait(timeout=30)
        total = sum(by_kind.values())
        lines = [f"CPU of this run's processes over the burst ({elapsed:.1f} s, {tasks} tasks):"]
        lines.append(f"  {'process kind':<34}{'cores':>8}{'ms/task':>10}")
        for kind, seconds in sorted(by_kind.items(), key=lambda kv: -kv[1]):
            if seconds > 0.005:
                lines.append(f"  {kind:<34}{seconds / elapsed:>8.2f}{seconds * 1000 / tasks:>10.1f}")
        lines.append(f"  {'all':<34}{total / elapsed:>8.2f}{total * 1000 / tasks:>10.1f}")
        lines.append("py-spy of the replicas, task hosts and scheduler (first seconds of the burst):")
        lines.append(replica_profile.summary(self.dir))
        self.report = "\n".join(lines)
        return self.report

    def __exit__(self, *exc: Any) -> None:
        for spy in self.spies:
            if spy.poll() is None:
                spy.terminate()
