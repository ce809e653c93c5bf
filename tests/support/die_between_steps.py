"""A process that makes one task state change and dies (SIGKILL) between its workspace step and its
global step, for the store tests: `python -m tests.support.die_between_steps URL WS TASK MOVE`.

MOVE is a target status (`core.tasks.transition`) or `completed` (`core.tasks.finish.complete`).
On a Redis Cluster the global step is `core.tasks.cluster.apply`, so the process kills itself
where it would call it: the state change's workspace step (and its journal) committed, nothing of
its global step. On one server both steps are one script, so the process exits normally.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys

from core import tasks
from core.infra.store import async_client
from core.tasks import cluster as cluster_tasks
from core.tasks import finish as task_finish

#: The fields each move writes, as the runtime writes them.
MOVE_FIELDS: dict[str, dict[str, str]] = {
    "failed": {"error": "boom"},
    "stopped": {},
    "waiting_for_input": {"pause": json.dumps({"reason": "ask_user", "question": "which?"})},
    "awaiting_review": {"pause": json.dumps({"reason": "review"})},
    "completed": {"summary": "done"},
}


async def _die(*_: object) -> bool:
    os.kill(os.getpid(), signal.SIGKILL)
    return False


async def move(url: str, ws: str, task_id: str, target: str) -> None:
    redis = async_client(url)
    task = await tasks.find_task(redis, ws, task_id)
    assert task is not None
    if target == "completed":
        done = await task_finish.complete(
            redis, task, fields=MOVE_FIELDS[target], drop=["pause"], lease_holder="me"
        )
        assert done.applied
        await task_finish.after_complete(redis, done)
    else:
        applied, _ = await tasks.transition(redis, task, target, fields=MOVE_FIELDS[target])
        assert applied
    await redis.aclose()


if __name__ == "__main__":
    cluster_tasks.apply = _die  # type: ignore[assignment]
    asyncio.run(move(*sys.argv[1:5]))
