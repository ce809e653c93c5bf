"""Task throughput and latency, per placement, beside this machine's bare Ray actor ceiling.

    .venv/bin/python bench/tasks.py [--tasks 200] [--pooled-tasks N] [--dedicated-tasks N]
                                    [--sync-runs 30] [--resumes 20] [--resumes-only] [--profile]
                                    [--placements dedicated,pooled]

Starts its own service (embedded Redis in a temp dir, local Ray, Serve on a free port), then:
- submits N trivial scripted tasks through HTTP for each placement (`--pooled-tasks`,
  `--dedicated-tasks`, both `--tasks` by default) and reports tasks per second (first submit to
  last completion), p50/p95 from submit to completed, and peak memory growth; their ends are read
  from Redis by this process (one pipeline of status reads every 50 ms), so that waiting for a
  thousand tasks adds no HTTP traffic to what the service's processes are measured doing;
- measures the bare ceiling: as many Ray actors as dedicated tasks (the same task-slot resource, num_cpus=0) that each make
  one call and are killed, with the ratio dedicated/bare;
- measures the p50 of a trivial `async=false` run for each placement;
- resumes paused tasks: a scripted task asks the user, and its reply (POST /tasks/{id}/message)
  runs it to its end; p50 from the reply to the end, beside the p50 from the run to the pause.

`--profile`: for each placement's burst, the CPU each kind of process used (cores, and ms per
task) and py-spy samples of the replicas, the task hosts and the scheduler (bench/task_profile.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
import psutil
import ray
import redis

from actors.names import SPARE_PREFIX
from actors.placement import TASK_SLOT_RESOURCE
from bench import task_profile
from core.infra import keys
from core.infra.settings import load_settings
from core.stores import apikeys
from serve.service import start_service, stop_service


class PeakMemory:
    """Samples the machine's used memory in a thread; reports the peak above the starting level."""

    def __init__(self) -> None:
        self.start = psutil.virtual_memory().used
        self.peak = self.start
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, psutil.virtual_memory().used)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def growth_mib(self) -> float:
        return float(self.peak - self.start) / 2**20


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ms(a: str, b: str) -> float:
    def parse(stamp: str) -> datetime:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))

    return (parse(b) - parse(a)).total_seconds() * 1000


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _until_ended_sync(store: redis.Redis, workspace_id: str, ids: list[str]) -> dict[str, dict[str, str]]:
    pending = list(ids)
    records: dict[str, dict[str, str]] = {}
    while pending:
        pipe = store.pipeline(transaction=False)
        for task_id in pending:
            pipe.hmget(keys.task(workspace_id, task_id), "status", "created_at", "updated_at")
        for task_id, (status, created, updated) in zip(pending, pipe.execute(), strict=True):
            if status in ("completed", "failed"):
                records[task_id] = {"status": status, "created_at": created, "updated_at": updated}
        pending = [t for t in pending if t not in records]
        if pending:
            time.sleep(0.05)
    return records


async def _until_ended(store: redis.Redis, workspace_id: str, ids: list[str]) -> dict[str, dict[str, str]]:
    """Each task's status and times once it is completed or failed, read from Redis."""
    return await asyncio.to_thread(_until_ended_sync, store, workspace_id, ids)


async def _run_tasks(
    url: str, key: str, placement: str, count: int, profile: bool, redis_url: str
) -> dict[str, Any]:
    store = redis.Redis.from_url(redis_url, decode_responses=True)
    headers = {"Authorization": f"Bearer {key}"}
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=300, limits=limits) as client:
        config = {
            "model": {"provider": "scripted", "turns": [{"answer": "ok"}]},
            "settings": {"placement": placement, "max_concurrent_tasks": count},
        }
        agent_id = (await client.post("/api/v1/agents", json={"config": config})).json()["id"]
        workspace_id = store.get(keys.owner(agent_id))
        gate = asyncio.Semaphore(32)

        async def submit(i: int) -> str:
            async with gate:
                while True:
                    response = await client.post(f"/api/v1/agents/{agent_id}/run", json={"query": f"t{i}"})
                    if response.status_code not in (429, 503):
                        break
                    # Backpressure, or the store slow to answer on a loaded machine: ask again shortly.
                    await asyncio.sleep(float(response.headers.get("Retry-After", "0.2")))
                if response.status_code != 201:
                    raise RuntimeError(f"POST run answered {response.status_code}: {response.text}")
                return str(response.json()["task_id"])

        spy = task_profile.Spy(20, redis_url) if profile else None
        with PeakMemory() as memory, spy or contextlib.nullcontext():
            started = time.perf_counter()
            ids = await asyncio.gather(*(submit(i) for i in range(count)))
            records = await _until_ended(store, workspace_id, ids)
            elapsed = time.perf_counter() - started
            report = spy.finish(elapsed, count) if spy is not None else ""
        latencies = [_ms(r["created_at"], r["updated_at"]) for r in records.values()]
        failed = sum(1 for r in records.values() if r["status"] != "completed")
    return {
        "processes": _processes(redis_url, ids) if placement == "dedicated" and redis_url else "",
        "placement": placement,
        "tasks": count,
        "tasks_per_s": count / elapsed,
        "p50_ms": _pct(latencies, 0.5),
        "p95_ms": _pct(latencies, 0.95),
        "peak_mib": memory.growth_mib,
        "failed": failed,
        "profile": report,
    }


def _processes(redis_url: str, task_ids: list[str]) -> str:
    """Which processes ran the dedicated tasks: how many distinct ones, and how many were spares."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    ran_on = []
    for task_id in task_ids:
        workspace_id = client.get(keys.owner(task_id))
        ran_on.append(str(client.hget(keys.task(str(workspace_id), task_id), "actor")))
    on_spares = [name for name in ran_on if name.startswith(SPARE_PREFIX)]
    return (
        f"{len(task_ids)} dedicated tasks ran in {len(set(ran_on))} processes: "
        f"{len(on_spares)} tasks on {len(set(on_spares))} warm spares, {len(ran_on) - len(on_spares)} on actors of their own"
    )


async def _sync_p50(url: str, key: str, placement: str, runs: int) -> float:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=300) as client:
        config = {
            "model": {"provider": "scripted", "turns": [{"answer": "ok"}]},
            "settings": {"placement": placement, "max_concurrent_tasks": runs},
        }
        agent_id = (await client.post("/api/v1/agents", json={"config": config})).json()["id"]
        timings = []
        for i in range(runs):
            started = time.perf_counter()
            response = await client.post(
                f"/api/v1/agents/{agent_id}/run",
                params={"async": "false", "result": "summary"},
                json={"query": f"s{i}"},
            )
            assert response.status_code == 200, response.text
            timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


#: Polling a task's status: the figures below are this much coarser at most.
POLL_SECONDS = 0.01


async def _until(client: httpx.AsyncClient, task_id: str, status: str) -> None:
    while True:
        now = (await client.get(f"/api/v1/tasks/{task_id}")).json()["status"]
        if now == status:
            return
        if now in ("completed", "failed", "stopped"):
            raise RuntimeError(f"task {task_id} ended {now} while waiting for {status}")
        await asyncio.sleep(POLL_SECONDS)


async def _resume_p50(url: str, key: str, placement: str, runs: int) -> dict[str, float]:
    """p50 ms of a paused task's resume (reply -> completed) beside its new run (run -> paused)."""
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=300) as client:
        turns = [
            {"tool_calls": [{"name": "ask_user", "arguments": {"question": "go on?"}}]},
            {"answer": "ok"},
        ]
        config = {
            "model": {"provider": "scripted", "turns": turns},
            "settings": {"placement": placement, "max_concurrent_tasks": runs},
        }
        agent_id = (await client.post("/api/v1/agents", json={"config": config})).json()["id"]
        new_run, resume = [], []
        for i in range(runs):
            started = time.perf_counter()
            response = await client.post(f"/api/v1/agents/{agent_id}/run", json={"query": f"r{i}"})
            task_id = response.json()["task_id"]
            await _until(client, task_id, "waiting_for_input")
            paused = time.perf_counter()
            reply = await client.post(f"/api/v1/tasks/{task_id}/message", json={"message": "yes"})
            assert reply.status_code == 200, reply.text
            await _until(client, task_id, "completed")
            new_run.append((paused - started) * 1000)
            resume.append((time.perf_counter() - paused) * 1000)
    return {"new_run": statistics.median(new_run), "resume": statistics.median(resume)}


@ray.remote(num_cpus=0)
class _BareActor:
    def call(self) -> int:
        return 1


def _bare_ceiling(count: int, profile: bool = False, redis_url: str = "") -> dict[str, Any]:
    options: dict[str, Any] = {"num_cpus": 0}
    if ray.cluster_resources().get(TASK_SLOT_RESOURCE):
        options["resources"] = {TASK_SLOT_RESOURCE: 1}
    # Profiled as the bursts are: the CPU each kind of process spends per bare actor.
    spy = task_profile.Spy(20, redis_url) if profile else None
    with PeakMemory() as memory, spy or contextlib.nullcontext():
        started = time.perf_counter()
        window: list[Any] = []
        done = 0
        # Same bound as task actors: at most the node's task slots alive at once.
        slots = int(ray.cluster_resources().get(TASK_SLOT_RESOURCE, count))
        for _ in range(count):
            actor = _BareActor.options(**options).remote()  # type: ignore[attr-defined]
            window.append((actor, actor.call.remote()))
            if len(window) >= slots:
                head, ref = window.pop(0)
                ray.get(ref)
                ray.kill(head)
                done += 1
        for actor, ref in window:
            ray.get(ref)
            ray.kill(actor)
        elapsed = time.perf_counter() - started
        report = spy.finish(elapsed, count) if spy is not None else ""
    return {"tasks_per_s": count / elapsed, "peak_mib": memory.growth_mib, "tasks": count, "profile": report}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=200, help="tasks per placement, unless set apart")
    parser.add_argument("--pooled-tasks", type=int, help="pooled tasks in the burst (default --tasks)")
    parser.add_argument(
        "--dedicated-tasks", type=int, help="dedicated tasks in the burst and bare actors (default --tasks)"
    )
    parser.add_argument("--sync-runs", type=int, default=30)
    parser.add_argument("--resumes", type=int, default=20)
    parser.add_argument("--resumes-only", action="store_true", help="only the resume figures")
    parser.add_argument("--profile", action="store_true", help="CPU by process kind and py-spy, per burst")
    parser.add_argument(
        "--placements",
        type=lambda text: [p for p in text.split(",") if p],
        default=["dedicated", "pooled"],
        help="which placements' bursts, sync runs and resumes (comma-separated)",
    )
    args = parser.parse_args()
    data_dir = tempfile.mkdtemp(prefix="agentry-bench-")
    os.environ.update(
        {
            "AGENTRY_DATA_DIR": data_dir,
            "AGENTRY_PORT": str(_free_port()),
            "AGENTRY_RATE_LIMIT": "off",
        }
    )
    settings = load_settings()
    load_start = os.getloadavg()
    service = start_service(settings, dashboard=False)
    try:
        key = apikeys.issue_key_at(service.redis_url, "bench", label="bench").key
        if not args.resumes_only:
            throughput = _throughput(service.url, service.redis_url, key, args)
        resumes = {
            p: asyncio.run(_resume_p50(service.url, key, p, args.resumes))
            for p in args.placements
            if args.resumes
        }
    finally:
        stop_service(service, settings)
    load_end = os.getloadavg()
    print(
        f"\ntrivial scripted tasks through HTTP ({os.cpu_count()} cores, load average "
        f"{load_start[0]:.1f} before, {load_end[0]:.1f} after):\n"
    )
    if not args.resumes_only:
        _print_throughput(*throughput)
    for placement, figures in resumes.items():
        print(
            f"paused task, reply -> completed p50 ({placement}): {figures['resume']:.0f} ms (aim < 1000 ms); "
            f"new run -> paused p50: {figures['new_run']:.0f} ms"
        )


def _throughput(
    url: str, redis_url: str, key: str, args: argparse.Namespace
) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, float]]:
    counts = {
        "dedicated": args.dedicated_tasks or args.tasks,
        "pooled": args.pooled_tasks or args.tasks,
    }
    bare = _bare_ceiling(counts["dedicated"], args.profile, redis_url)
    rows = [asyncio.run(_run_tasks(url, key, p, counts[p], args.profile, redis_url)) for p in args.placements]
    sync = {p: asyncio.run(_sync_p50(url, key, p, args.sync_runs)) for p in args.placements if args.sync_runs}
    return bare, rows, sync


def _print_throughput(bare: dict[str, Any], rows: list[dict[str, Any]], sync: dict[str, float]) -> None:
    print(f"{'what':<34}{'tasks/s':>10}{'p50 ms':>10}{'p95 ms':>10}{'peak MiB':>10}{'failed':>8}")
    print(
        f"{'bare Ray actors (1 call, killed)':<34}{bare['tasks_per_s']:>10.1f}{'':>10}{'':>10}{bare['peak_mib']:>10.0f}{'':>8}"
    )
    for row in rows:
        print(
            f"{'agentry ' + row['placement'] + ' (' + str(row['tasks']) + ')':<34}{row['tasks_per_s']:>10.1f}{row['p50_ms']:>10.0f}"
            f"{row['p95_ms']:>10.0f}{row['peak_mib']:>10.0f}{row['failed']:>8}"
        )
    if bare["profile"]:
        print(f"\nbare Ray actors, {bare['tasks']} (the ceiling)\n{bare['profile']}")
    for row in rows:
        if row["processes"]:
            print(row["processes"])
    for row in rows:
        if row["profile"]:
            print(f"\n{row['placement']} burst of {row['tasks']} tasks\n{row['profile']}")
    by_placement = {row["placement"]: row for row in rows}
    if "dedicated" in by_placement:
        ratio = by_placement["dedicated"]["tasks_per_s"] / bare["tasks_per_s"]
        print(f"\ndedicated / bare ceiling: {ratio:.2f}  (aim >= 0.7)")
    if "pooled" in by_placement:
        print(f"pooled tasks/s end to end: {by_placement['pooled']['tasks_per_s']:.1f}  (aim >= 100)")
    for placement, p50 in sync.items():
        print(
            f"trivial async=false run p50 ({placement}): {p50:.0f} ms"
            + ("  (aim < 50 ms)" if placement == "pooled" else "")
        )


if __name__ == "__main__":
    main()
