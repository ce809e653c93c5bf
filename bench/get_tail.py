"""The GET tail: 200 clients polling one task, per Serve configuration, interleaved, beside a bare app.

    .venv/bin/python bench/get_tail.py [--clients 200] [--seconds 20] [--rounds 2]
                                       [--configs default,same-loop,...] [--profile CONFIG]

Each configuration of `--configs` (default all of `CONFIGS`) is the environment a service starts
with on top of the product's defaults (Serve's same-loop flags off, replicas per core, HAProxy's
threads and balance, INFO logs), or polls sent to one replica's own HTTP server past HAProxy with
and without the headers HAProxy adds to polls (what leaving a poll unwatched saves in the replica).
Per round, each configuration in turn starts its own service (embedded Redis in a temp dir, local
Ray, Serve on a free port, rate limit off, logs at WARNING), creates a scripted agent and a few
finished tasks, warms for a few seconds, then `--clients` clients each poll
`GET /api/v1/tasks/{id}` of one task, one request at a time on a keep-alive connection, for
`--seconds`; then the service stops. Last in each round, the same GET against a bare
uvicorn+FastAPI app answering a record of the same shape (no store, no auth): this machine's
Python HTTP ceiling in the same minutes. The rounds repeat the whole sequence (A B C bare A B C
bare), so a machine whose load changes during the run weighs on every configuration alike.

It prints one row per configuration and round (requests/s, p50/p95/p99, errors, the replicas' and
HAProxy's CPU in cores and per request) and the load average before each row. `--profile CONFIG`
starts that configuration once more after the rounds and samples its replicas with py-spy while
the clients poll: where a polled GET's CPU goes in the replica (Serve's machinery, uvicorn, our
app, redis-py, the event loop), by part of the stack and by function.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import replica_profile  # noqa: E402
from bench.load import (  # noqa: E402
    Stats,
    _cpu_seconds,
    _free_port,
    _pct,
    _phase,
    _prepare,
    _replica_port,
    _service_processes,
    _start_bare,
    _wait_http,
)

#: Seconds of polling before the measured phase (connections opened, caches and code paths warm).
WARM_SECONDS = 5.0
#: Headers that tell a replica's direct-ingress server not to watch the request: no task waiting
#: for the client's disconnect and no timeout beside the call (Serve's "directly awaiting the user
#: code" path). HAProxy adds them to every poll (serve/haproxy_launch.py) and drops a client's own,
#: so the rows that compare them send their polls to one replica's own server, past HAProxy.
NO_WATCH = {"x-request-disconnect-disabled": "?1", "x-request-timeout-seconds": "0"}


@dataclass(frozen=True)
class Config:
    label: str
    env: dict[str, str]
    #: Headers the polling clients add.
    headers: dict[str, str]
    #: Poll the replica's own HTTP server (one replica), not HAProxy.
    direct: bool = False


def _config(label: str, env: dict[str, str] | None = None, **kwargs: Any) -> Config:
    return Config(label, env or {}, **({"headers": {}} | kwargs))


THREADED = {"AGENTRY_INGRESS_SAME_LOOP": "false"}
ONE = {"AGENTRY_INGRESS_REPLICAS": "1"}
#: The configurations measured side by side: the environment each service starts with (on top of
#: the product's defaults: HAProxy, a replica per core, same loop, polls unwatched).
CONFIGS: dict[str, Config] = {
    "default": _config("the product's defaults"),
    "threaded": _config("user code on a thread (Serve's default)", THREADED),
    "1-replica": _config("1 replica", ONE),
    "3-replicas": _config("3 replicas", {"AGENTRY_INGRESS_REPLICAS": "3"}),
    "hap-nbthread-1": _config("HAProxy nbthread 1 (Serve's: 4)", {"RAY_SERVE_HAPROXY_NBTHREAD": "1"}),
    "hap-roundrobin": _config(
        "HAProxy balance roundrobin", {"RAY_SERVE_HAPROXY_BALANCE_ALGORITHM": "roundrobin"}
    ),
    "access-log": _config("INFO logs (Serve's access log on)", {"AGENTRY_LOG_LEVEL": "INFO"}),
    "direct-watched": _config("1 replica's own server, polls watched", ONE, direct=True),
    "direct-unwatched": _config("1 replica's own server, unwatched", ONE, headers=NO_WATCH, direct=True),
    "direct-threaded": _config("1 replica's own server, watched, threaded", ONE | THREADED, direct=True),
}
#: Under every configuration: no rate limit (one key polls far past it), logs at WARNING.
BASE_ENV = {"AGENTRY_RATE_LIMIT": "off", "AGENTRY_LOG_LEVEL": "WARNING"}
ENV_NAMES = sorted({name for c in CONFIGS.values() for name in c.env} | {"AGENTRY_PORT"})


@dataclass
class Row:
    label: str
    round: int
    stats: Stats
    load: float
    #: Cores used during the measured phase, by kind of process (replicas, HAProxy, Redis).
    cores: dict[str, float]
    counts: dict[str, int]


def _poll(url: str, headers: dict[str, str], task_id: str, clients: int, seconds: float) -> Stats:
    shape: dict[str, Any] = {"clients": clients, "run_share": 0, "agent_id": None, "task_ids": [task_id]}
    return asyncio.run(_phase(url, headers, seconds=seconds, **shape))


def _measure(name: str, args: argparse.Namespace, round_: int, profile_dir: Path | None = None) -> Row:
    from core.infra.settings import load_settings
    from core.stores.apikeys import issue_key_at
    from serve.service import start_service, stop_service

    config = CONFIGS[name]
    for var in ENV_NAMES:
        os.environ.pop(var, None)
    os.environ.update(BASE_ENV | config.env | {"AGENTRY_PORT": str(_free_port())})
    settings = load_settings()
    service = start_service(settings, dashboard=False)
    try:
        key = issue_key_at(service.redis_url, "get-tail", label="bench").key
        _, task_ids = _prepare(service.url, key)
        headers = {"Authorization": f"Bearer {key}"} | config.headers
        processes = _service_processes(service.redis_url)
        url = service.url
        if config.direct:
            port = _replica_port(processes)
            if port is None:
                raise RuntimeError("no replica listens on a port of its own (is the ingress HAProxy?)")
            url = f"http://127.0.0.1:{port}"
        load = os.getloadavg()[0]
        spies = []
        if profile_dir is not None:
            pids = [proc.pid for proc in processes["Serve replicas"]]
            spies = replica_profile.record(pids, args.seconds + WARM_SECONDS, profile_dir)
        _poll(url, headers, task_ids[0], args.clients, WARM_SECONDS)
        before = _cpu_seconds(processes)
        stats = _poll(url, headers, task_ids[0], args.clients, args.seconds)
        after = _cpu_seconds(processes)
        for spy in spies:
            spy.wait(timeout=120)
        cores = {kind: (after[kind] - before[kind]) / stats.seconds for kind in processes}
        counts = {kind: len(procs) for kind, procs in processes.items()}
    finally:
        stop_service(service, settings)
    return Row(config.label, round_, stats, load, cores, counts)


def _bare(args: argparse.Namespace, round_: int) -> Row:
    port = _free_port()
    bare: subprocess.Popen[bytes] = _start_bare(port)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_http(f"{url}/api/v1/tasks/warm")
        load = os.getloadavg()[0]
        record = "00000000-0000-4000-8000-000000000000"
        _poll(url, {}, record, args.clients, WARM_SECONDS)
        stats = _poll(url, {}, record, args.clients, args.seconds)
    finally:
        bare.terminate()
        bare.wait(timeout=10)
    return Row("bare uvicorn+FastAPI, same record", round_, stats, load, {}, {})


def _line(row: Row) -> str:
    stats = row.stats
    latencies = stats.latencies["get"]
    rate = len(latencies) / stats.seconds
    errors = " ".join(f"{k}:{v}" for k, v in sorted(stats.errors.items())) or "0"
    replicas = row.cores.get("Serve replicas", 0.0)
    haproxy = row.cores.get("HAProxy", 0.0)
    per_request = f"{replicas / rate * 1000:.2f}" if rate and row.cores else ""
    cores = f"{replicas:.2f}/{haproxy:.2f}" if row.cores else ""
    return (
        f"{row.label[:46]:<46}{row.round:>2}{row.load:>6.1f}{rate:>9.1f}"
        + "".join(f"{_pct(latencies, q) * 1000:>8.0f}" for q in (0.5, 0.95, 0.99))
        + f"{cores:>11}{per_request:>8}  {errors}"
    )


def _report(args: argparse.Namespace, rows: list[Row], profile: str | None) -> None:
    print(
        f"\n{args.clients} clients polling one task, {args.seconds:.0f} s per row after {WARM_SECONDS:.0f} s "
        f"of warm-up, loopback, {os.cpu_count()} cores; rows in the order run\n"
    )
    print(
        f"{'configuration':<46}{'rd':>2}{'load':>6}{'req/s':>9}{'p50':>8}{'p95':>8}{'p99':>8}"
        f"{'cores r/h':>11}{'ms/req':>8}  errors"
    )
    for row in rows:
        print(_line(row))
    print("\nmeans over rounds (req/s, p99 ms):")
    for label in dict.fromkeys(row.label for row in rows):
        mine = [r for r in rows if r.label == label]
        rate = sum(len(r.stats.latencies["get"]) / r.stats.seconds for r in mine) / len(mine)
        p99 = sum(_pct(r.stats.latencies["get"], 0.99) for r in mine) / len(mine) * 1000
        print(f"  {label[:46]:<46}{rate:>9.1f}{p99:>8.0f}")
    print(
        "\ncores r/h: the replicas' and HAProxy's CPU during the row (cores); ms/req: the replicas' "
        "CPU per request. load: the 1-minute load average when the row started."
    )
    for row in rows:
        for status, sample in row.stats.samples.items():
            print(f"first {status} body ({row.label}, round {row.round}): {sample}")
    if profile is not None:
        print(f"\nprofile of the replicas ({CONFIGS[args.profile].label}), polled GET:\n{profile}")
    if rows:
        generator = max(r.stats.generator_cpu for r in rows)
        print(f"load generator CPU, at most: {generator:.0%} of one core")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each measured phase")
    parser.add_argument("--rounds", type=int, default=2, help="0: only the --profile run")
    parser.add_argument(
        "--configs",
        default=",".join(CONFIGS),
        help=f"configurations, comma-separated, in order (of: {', '.join(CONFIGS)})",
    )
    parser.add_argument("--profile", help="a configuration to run once more with py-spy on its replicas")
    parser.add_argument("--no-bare", action="store_true", help="leave the bare app's rows out")
    args = parser.parse_args()
    names = [c.strip() for c in args.configs.split(",") if c.strip()]
    if not 0 < args.seconds <= 600 or not 0 < args.clients <= 2000 or not 0 <= args.rounds <= 10:
        parser.error("--seconds must be in (0, 600], --clients in (0, 2000], --rounds in [0, 10]")
    if any(n not in CONFIGS for n in names) or (args.profile and args.profile not in CONFIGS):
        parser.error(f"configurations are some of: {', '.join(CONFIGS)}")

    os.environ["AGENTRY_DATA_DIR"] = tempfile.mkdtemp(prefix="agentry-get-tail-")
    rows: list[Row] = []
    for round_ in range(1, args.rounds + 1):
        for name in names:
            # A busy machine can time Ray's start out: one more try, then the next configuration.
            for attempt in (1, 2):
                try:
                    rows.append(_measure(name, args, round_))
                    print(_line(rows[-1]), flush=True)
                    break
                except Exception as exc:
                    print(f"{name}: attempt {attempt} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        if not args.no_bare:
            rows.append(_bare(args, round_))
            print(_line(rows[-1]), flush=True)
    profile = None
    if args.profile:
        profile_dir = Path(tempfile.mkdtemp(prefix="agentry-get-tail-profile-"))
        sampled = _measure(args.profile, args, 0, profile_dir)
        profile = f"{_line(sampled)}  (round 0: under py-spy)\n" + replica_profile.summary(
            profile_dir, top=20
        )
    _report(args, rows, profile)


if __name__ == "__main__":
    main()
