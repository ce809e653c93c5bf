"""Runners that die before their task gets anywhere, counted in the task's hash (durable: the
reconciler starts a runner again once the last one's lease lapses, whatever process that is).

Each run of a task counts itself when it starts; a completed step, or a run that ends without
crashing (the task paused, ended, or another runner took over), sets the count back to 0. So a run
that finds the count past `max_runner_failures` knows that many runs before it died in a row (a
crash, its process killed, its node lost) and fails the task instead of dying the same way again.
"""

from __future__ import annotations

import redis.asyncio as aioredis

from core.infra import keys
from core.tasks import Task

#: Runs of the task started since its last completed step or clean run.
RUNS = "runner_runs"
#: What the last runner that crashed raised (a runner whose process was killed leaves none).
LAST_ERROR = "runner_error"

# Only a task that still exists is written: a deleted task's hash is not brought back.
_COUNT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
"""
_CLEAR = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], 0)
redis.call('HDEL', KEYS[1], ARGV[2])
return 1
"""
_NOTE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
"""

#: The longest last error kept (a traceback's last line is what matters).
MAX_ERROR_CHARS = 500


async def count_run(redis: aioredis.Redis, task: Task) -> int:
    """Count a run of `task` starting; returns the runs since its last step or clean run."""
    return int(await redis.eval(_COUNT, 1, keys.task(task.workspace_id, task.id), RUNS))


async def clean_run(redis: aioredis.Redis, workspace_id: str, task_id: str) -> None:
    await redis.eval(_CLEAR, 1, keys.task(workspace_id, task_id), RUNS, LAST_ERROR)


async def note_crash(redis: aioredis.Redis, workspace_id: str, task_id: str, error: str) -> None:
    await redis.eval(_NOTE, 1, keys.task(workspace_id, task_id), LAST_ERROR, error[:MAX_ERROR_CHARS])


def step_done_fields() -> tuple[dict[str, str], list[str]]:
    """Fields and dropped fields that a completed step's record writes: the count starts again."""
    return {RUNS: "0"}, [LAST_ERROR]


def failure_text(task: Task, failures: int) -> str:
    last = (
        task.raw.get(LAST_ERROR)
        or "it stopped without reporting an error (killed, its node lost, or the store unreachable)"
    )
    return f"the task's runner failed {failures} times: {last}"
