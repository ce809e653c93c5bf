"""The two Ray hosts of one task runner: a dedicated actor per task, or a warm pooled host."""

from __future__ import annotations

import ray

from actors.runtime import runtime


@ray.remote(num_cpus=0)
class TaskActor:
    """One running task, in its own worker process; it exits when the task pauses or ends."""

    async def run(self, workspace_id: str, task_id: str) -> None:
        try:
            await runtime().runner.run(workspace_id, task_id)
        finally:
            # Detached actors outlive their creator: a paused task must hold no process.
            ray.actor.exit_actor()


@ray.remote(num_cpus=0)
class TaskHost:
    """Many runners as coroutines in one long-lived process (placement `pooled`)."""

    async def run(self, workspace_id: str, task_id: str) -> None:
        await runtime().runner.run(workspace_id, task_id)

    async def ping(self) -> bool:
        return True
