"""One parent fanning out to N trivial children, waiting and async, per placement.

    .venv/bin/python bench/delegation.py [--children 250] [--placements dedicated,pooled]

Starts its own service, then for each placement runs a parent whose first turn delegates N
children (one `inputs` entry expanded N times) and reports: seconds until the parent completes
(waiting) or until every child completes (`async: true`), the machine's peak memory growth, and
the most task actors alive at once (bounded by AGENTRY_MAX_LIVE_TASKS_PER_NODE for `dedicated`).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
import ray

from bench.tasks import PeakMemory, _free_port
from core.infra.settings import load_settings
from core.stores import apikeys
from serve.service import start_service, stop_service


class LiveActors:
    """Samples how many task actors (`task:<id>`) are alive; keeps the maximum."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.2):
            names = ray.util.list_named_actors(all_namespaces=True)
            alive = sum(1 for n in names if str(n.get("name", "")).startswith("task:"))
            self.peak = max(self.peak, alive)

    def __enter__(self) -> LiveActors:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def _wait(client: httpx.Client, predicate: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the fan-out did not finish in time")
        time.sleep(0.1)


def _children_done(client: httpx.Client, parent_id: str, count: int) -> bool:
    done, cursor = 0, ""
    while True:
        page = client.get(
            f"/api/v1/tasks/{parent_id}/children",
            params={"limit": 100} | ({"cursor": cursor} if cursor else {}),
        ).json()
        done += sum(1 for c in page["data"] if c["status"] in ("completed", "failed", "stopped"))
        if not page["has_more"]:
            return done >= count
        cursor = page["next_cursor"]


def _fan_out(client: httpx.Client, placement: str, count: int, *, is_async: bool) -> dict[str, Any]:
    settings = {"placement": placement, "max_concurrent_tasks": count}
    worker = client.post(
        "/api/v1/agents",
        json={
            "config": {"model": {"provider": "scripted", "turns": [{"answer": "ok"}]}, "settings": settings}
        },
    ).json()
    arguments: dict[str, Any] = {
        "tasks": [
            {
                "agent_group_id": worker["agent_group_id"],
                "prompt": "item {{item}}",
                "inputs": list(range(count)),
            }
        ]
    }
    if is_async:
        arguments["async"] = True
    turns = [{"tool_calls": [{"name": "delegate_tasks", "arguments": arguments}]}, {"answer": "all done"}]
    lead = client.post(
        "/api/v1/agents",
        json={"config": {"model": {"provider": "scripted", "turns": turns}, "settings": settings}},
    ).json()
    with PeakMemory() as memory, LiveActors() as actors:
        started = time.perf_counter()
        parent_id = client.post(f"/api/v1/agents/{lead['id']}/run", json={"query": "fan out"}).json()[
            "task_id"
        ]
        if is_async:
            _wait(client, lambda: _children_done(client, parent_id, count), 1800)
        else:
            _wait(
                client, lambda: client.get(f"/api/v1/tasks/{parent_id}").json()["status"] == "completed", 1800
            )
        elapsed = time.perf_counter() - started
    return {"seconds": elapsed, "peak_mib": memory.growth_mib, "live_actors": actors.peak}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--children", type=int, default=250)
    parser.add_argument("--placements", default="dedicated,pooled")
    args = parser.parse_args()
    os.environ.update(
        {
            "AGENTRY_DATA_DIR": tempfile.mkdtemp(prefix="agentry-bench-"),
            "AGENTRY_PORT": str(_free_port()),
            "AGENTRY_RATE_LIMIT": "off",
            "AGENTRY_LOG_LEVEL": "WARNING",
        }
    )
    settings = load_settings()
    service = start_service(settings, dashboard=False)
    rows = []
    try:
        key = apikeys.issue_key_at(service.redis_url, "bench", label="bench").key
        with httpx.Client(
            base_url=service.url, headers={"Authorization": f"Bearer {key}"}, timeout=120
        ) as client:
            for placement in args.placements.split(","):
                for is_async in (False, True):
                    result = _fan_out(client, placement, args.children, is_async=is_async)
                    rows.append((placement, "async" if is_async else "waiting", result))
    finally:
        stop_service(service, settings)
    print(
        f"\nOne parent delegating {args.children} trivial children (2 cores, {settings.max_live_tasks_per_node} task slots):\n"
    )
    print(
        f"{'placement':<12}{'mode':<10}{'seconds':>10}{'children/s':>12}{'peak MiB':>10}{'live actors':>13}"
    )
    for placement, mode, r in rows:
        print(
            f"{placement:<12}{mode:<10}{r['seconds']:>10.1f}{args.children / r['seconds']:>12.1f}"
            f"{r['peak_mib']:>10.0f}{r['live_actors']:>13}"
        )


if __name__ == "__main__":
    main()
