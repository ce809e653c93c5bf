"""How a runner ends a task's run without finishing it: the task fails, or pauses in
`waiting_for_input` (for its children, for the user's answer, or with a failure as its question:
its agent's `on_failure: ask_user`, or any cap it went over)."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from actors.policy import AgentPolicy
from core import tasks
from core.tasks import Task, dumps
from core.tasks.state_machine import TaskStatus


async def handle_failure(
    redis: aioredis.Redis,
    task: Task,
    error: str,
    policy: AgentPolicy,
    *,
    tool_name: str | None = None,
    tool_names: list[str] | None = None,
) -> None:
    """A failure with no retries left: pause or fail, as the agent's failure policy says."""
    if policy.pauses_on_failure(task.spec.source):
        await pause_failure(redis, task, error, tool_name=tool_name, tool_names=tool_names)
    else:
        await fail(redis, task, error)


async def pause_failure(
    redis: aioredis.Redis,
    task: Task,
    text: str,
    *,
    reason: str | None = None,
    tool_name: str | None = None,
    tool_names: list[str] | None = None,
) -> None:
    pause: dict[str, Any] = {"kind": "failure_pause"}
    item: dict[str, Any] = {"type": "message_sent", "kind": "failure_pause", "text": text}
    for key, value in (("reason", reason), ("tool_name", tool_name), ("tool_names", tool_names)):
        if value is not None:
            pause[key] = value
            item[key] = value
    pause["question"] = text
    await pause_run(redis, task, pause, items=[item])


async def pause_run(
    redis: aioredis.Redis, task: Task, pause: dict[str, Any], *, items: list[dict[str, Any]] | None = None
) -> None:
    """The running task to `waiting_for_input` with `pause` saying what it waits for; refused when
    the task was stopped meanwhile."""
    await tasks.transition(
        redis,
        task,
        TaskStatus.WAITING_FOR_INPUT.value,
        fields={"pause": dumps(pause)},
        items=items,
        expected=TaskStatus.RUNNING.value,
    )


async def fail(redis: aioredis.Redis, task: Task, error: str) -> None:
    # Refused when the task was stopped meanwhile: a task stopped during error handling stays stopped.
    await tasks.transition(
        redis,
        task,
        TaskStatus.FAILED.value,
        fields={"error": error},
        expected=TaskStatus.RUNNING.value,
    )
