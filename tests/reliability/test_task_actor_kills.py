"""Task runners killed at random while tasks run: every task completes exactly once, and no tool
call whose result was recorded runs again (counted at the external system, the practice sandbox).

A call that was in flight when its runner died has no recorded result and runs again (at least
once, by design); the save is an upsert keyed by the patient, so even then the record is one record.
Placement `dedicated` (an actor per task) runs by default; `pooled` (a host actor with many runners)
runs with AGENTRY_CHAOS_SCALE=full.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import ray

from actors.names import NAMESPACE
from core import tasks
from tests.reliability.conftest import FULL, scaled
from tests.support.agents import TERMINAL, create_agent, feed, of_type, scripted, start
from tests.support.hosts import host_tasks
from tests.support.practice import ACCOUNTS, CLIENT_ID, CLIENT_SECRET, call, connected, patients, workspace_of
from tests.support.service import run_async, wait_for
from tests.support.session_service import Service
from tests.support.task_actors import running_actor_name
from tools.practice import derive_pcref
from tools.practice.sandbox import RunningSandbox, SandboxConfig

pytestmark = pytest.mark.reliability

SAVE = "practice_save_patient"
DOB = "01/02/1990"
ACCOUNT = ACCOUNTS[0]


@pytest.fixture
def sandbox() -> Iterator[RunningSandbox]:
    config = SandboxConfig(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, accounts=ACCOUNTS)
    with RunningSandbox(config) as running:
        yield running


def _names(count: int) -> list[str]:
    """Distinct first names (letters only), one patient per task."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return [f"Kay{letters[i // 26 % 26]}{letters[i % 26]}" for i in range(count)]


def _agent_config(placement: str, concurrency: int) -> dict[str, Any]:
    patient = {"account_id": ACCOUNT, "first_name": "{{query}}", "last_name": "Chaos", "dob": DOB}
    return scripted(
        # Each step waits in its model call, so kills land before, between and after the saves.
        {"delay_seconds": 1.0, "tool_calls": [call(SAVE, patient)]},
        {"delay_seconds": 2.0, "answer": "saved {{query}}"},
        placement=placement,
        tools=[SAVE],
        settings={"max_concurrent_tasks": concurrency},
    )


@dataclass
class Killer:
    """Kills a random live runner of the test's tasks every so often, noting for each task it hit
    whether the task's save had been recorded before the kill."""

    service: Service
    workspace_id: str
    placement: str
    task_ids: list[str]
    wanted: int
    kills: int = 0
    hit_before_save: set[str] = field(default_factory=set)
    hit_after_save: set[str] = field(default_factory=set)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        rng = random.Random(7)
        while self.kills < self.wanted and not self.stop.wait(rng.uniform(0.3, 1.2)):
            running = self._running()
            if not running:
                continue
            if self.placement == "dedicated":
                victim = rng.choice(sorted(running))
                victims, names = [victim], [running[victim]]
            else:
                ours = set(running)
                hosts = {name: [t for t in tasks_ if t in ours] for name, tasks_ in host_tasks().items()}
                hosts = {name: victims for name, victims in hosts.items() if victims}
                if not hosts:
                    continue
                name = rng.choice(sorted(hosts))
                victims, names = hosts[name], [name]
            recorded = {t: self._save_recorded(t) for t in victims}
            killed = False
            for name in names:
                try:
                    ray.kill(ray.get_actor(name, namespace=NAMESPACE), no_restart=True)
                    killed = True
                except ValueError:
                    continue  # it exited by itself meanwhile
            if killed:
                self.kills += 1
                for task_id, saved in recorded.items():
                    (self.hit_after_save if saved else self.hit_before_save).add(task_id)

    def _running(self) -> dict[str, str]:
        """Tasks with a live runner: task id -> the name of its actor (its own, or a spare)."""
        if self.placement == "pooled":
            return dict.fromkeys(self.task_ids, "")
        names = {t: running_actor_name(self.service.redis_url, t) for t in self.task_ids}
        return {t: name for t, name in names.items() if name is not None}

    def _save_recorded(self, task_id: str) -> bool:
        steps = run_async(self.service.redis_url, lambda r: tasks.read_steps(r, self.workspace_id, task_id))
        return any(marker.startswith("s0:tool:") for marker in steps)


def _chaos(service: Service, sandbox: RunningSandbox, placement: str) -> None:
    count, wanted = scaled(16, 100), scaled(5, 30)
    with service.client(service.key(), timeout=60) as api:
        connected(api, sandbox)
        agent = create_agent(api, _agent_config(placement, concurrency=scaled(8, 25)))
        names = _names(count)
        task_names = {start(api, agent["id"], name): name for name in names}
        killer = Killer(service, workspace_of(service.redis_url, api), placement, list(task_names), wanted)
        thread = threading.Thread(target=killer.run, daemon=True)
        started = time.monotonic()
        thread.start()

        def all_ended() -> dict[str, dict[str, Any]] | None:
            found = {t: api.get(f"/api/v1/tasks/{t}").json() for t in task_names}
            return found if all(body["status"] in TERMINAL for body in found.values()) else None

        try:
            ended = wait_for(all_ended, timeout=scaled(240, 900), interval=1.0, what="every task to end")
        finally:
            killer.stop.set()
            thread.join(timeout=30)
        print(f"{placement}: {count} tasks, {killer.kills} kills, {time.monotonic() - started:.0f} s")
        assert killer.kills >= min(wanted, 3), f"only {killer.kills} kills landed"

        for task_id, name in task_names.items():
            assert ended[task_id]["status"] == "completed", ended[task_id]
            items = feed(api, task_id)
            assert [i["tool_name"] for i in of_type(items, "tool_call")] == [SAVE], items
            results = of_type(items, "tool_result")
            assert [r["status"] for r in results] == ["ok"], results
            assert [m["text"] for m in of_type(items, "assistant_message")] == [f"saved {name}"]

    listing = patients(sandbox, ACCOUNT)
    writes = {record["patient_pcref"]: record["writes"] for record in listing["patients"]}
    expected = {derive_pcref(name, "Chaos", DOB): task_id for task_id, name in task_names.items()}
    assert set(writes) == set(expected), "one record per task, no duplicate patient"
    for pcref, task_id in expected.items():
        if task_id in killer.hit_before_save:
            # Its save may have been in flight when a kill hit: then it ran again (an update).
            assert 1 <= writes[pcref] <= 1 + killer.kills, (pcref, writes[pcref])
        else:
            assert writes[pcref] == 1, f"the recorded save of task {task_id} ran again"


def test_killed_dedicated_runners(service: Service, sandbox: RunningSandbox) -> None:
    _chaos(service, sandbox, "dedicated")


@pytest.mark.skipif(not FULL, reason="runs with AGENTRY_CHAOS_SCALE=full")
def test_killed_pooled_hosts(service: Service, sandbox: RunningSandbox) -> None:
    _chaos(service, sandbox, "pooled")
