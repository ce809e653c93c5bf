"""The two Ray hosts of one task runner: a dedicated actor per task, or a warm pooled host."""

from __future__ import annotations

import asyncio
import contextlib
import time

import ray

from actors import spares
from actors.runtime import runtime


@ray.remote(num_cpus=0)
class TaskActor:
    """One running task, in its own worker process; it exits when the task pauses or ends, unless it
    is a spare (`actors.spares`) with room on its node's list, where it waits for the next task."""

    def __init__(self) -> None:
        # A relaunch may call `run` again on an actor that is still starting; the lease lets one
        # of them work, and the actor exits only once no call is left.
        self.tasks: list[str] = []
        #: A spare's node, its list's bound and floor; None for an actor started for one task.
        self.spare: tuple[str, int, int] | None = None
        self.idle_since = time.monotonic()

    async def run(self, workspace_id: str, task_id: str) -> None:
        self.tasks.append(task_id)
        try:
            await runtime().runner.run(workspace_id, task_id)
        finally:
            self.tasks.remove(task_id)
            self.idle_since = time.monotonic()
            if not self.tasks and not await self._park():
                # Detached actors outlive their creator: a paused task must hold no process.
                ray.actor.exit_actor()

    async def running(self) -> list[str]:
        """The tasks it runs now (for operators and tests: a spare runs different tasks over time)."""
        return list(self.tasks)

    async def stand_by(self, node_id: str, limit: int, floor: int) -> bool:
        """Become a spare of the node: warm up, then wait on its list. False (and exits) when full.
        `floor`: the spares the node keeps when idle; above it, an idle spare leaves sooner."""
        runtime()
        self.spare = (node_id, limit, floor)
        if not await self._park():
            ray.actor.exit_actor()
        asyncio.get_running_loop().create_task(self._leave_when_idle())
        return True

    async def _park(self) -> bool:
        if self.spare is None:
            return False
        node_id, limit, _ = self.spare
        with contextlib.suppress(Exception):
            return await spares.park(runtime().redis, node_id, _own_name(), limit)
        return False  # the store is unreachable: exit, as an actor for one task would

    async def _leave_when_idle(self) -> None:
        assert self.spare is not None
        node_id, _, floor = self.spare
        promised = False
        # First after a short idle, while the list holds more than the floor (a burst is over);
        # then, kept as one of the floor, after the long one.
        kept = False
        while True:
            due = spares.SPARE_IDLE_SECONDS if kept else spares.SURGE_IDLE_SECONDS
            await asyncio.sleep(max(1.0, self.idle_since + due - time.monotonic()))
            if self.tasks or time.monotonic() - self.idle_since < due:
                promised = kept = False
                continue
            with contextlib.suppress(Exception):
                left = await spares.leave(runtime().redis, node_id, _own_name(), keep=0 if kept else floor)
                if left is None:
                    kept = True
                    continue
                if left:
                    break
                # Off its list yet idle: a launch took it and its run is on the way. Should that
                # launch have died before calling, nothing else would: end after one more round.
                if promised:
                    break
                promised = True
                kept = False
                self.idle_since = time.monotonic()
        ray.kill(ray.get_runtime_context().current_actor, no_restart=True)


def _own_name() -> str:
    return str(ray.get_runtime_context().get_actor_name())


@ray.remote(num_cpus=0)
class TaskHost:
    """Many runners as coroutines in one long-lived process (placement `pooled`)."""

    def __init__(self) -> None:
        self.runs: dict[str, asyncio.Future[None]] = {}

    async def run(self, workspace_id: str, task_id: str) -> None:
        """Run the task, or, when it already runs here (a second launch of it), wait for that runner:
        every call returns when the task's runner here does, which is what launchers count on."""
        current = self.runs.get(task_id)
        if current is None:
            current = asyncio.ensure_future(runtime().runner.run(workspace_id, task_id))
            self.runs[task_id] = current
            current.add_done_callback(lambda done: self._forget(task_id, done))
        await asyncio.shield(current)

    def _forget(self, task_id: str, done: asyncio.Future[None]) -> None:
        if self.runs.get(task_id) is done:
            del self.runs[task_id]

    async def tasks(self) -> list[str]:
        """The tasks it runs now (for operators and tests: where pooled work is)."""
        return list(self.runs)

    async def ping(self) -> bool:
        return True
