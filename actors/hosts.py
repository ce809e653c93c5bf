"""The two Ray hosts of one task runner: a dedicated actor per task, or a warm pooled host."""

from __future__ import annotations

import asyncio

import ray

from actors.runtime import runtime


@ray.remote(num_cpus=0)
class TaskActor:
    """One running task, in its own worker process; it exits when the task pauses or ends."""

    def __init__(self) -> None:
        # A relaunch may call `run` again on an actor that is still starting; the lease lets one
        # of them work, and the actor exits only once no call is left.
        self.active = 0

    async def run(self, workspace_id: str, task_id: str) -> None:
        self.active += 1
        try:
            await runtime().runner.run(workspace_id, task_id)
        finally:
            self.active -= 1
            if self.active == 0:
                # Detached actors outlive their creator: a paused task must hold no process.
                ray.actor.exit_actor()


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
