"""What a tool call knows about where it runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from extraction.jobs.model import TaskModel


class RunCheck(Protocol):
    """Every check a run makes (actors.run_checks): why an agent with `config` cannot run a task in
    `workspace_id`, or None when it can."""

    async def __call__(
        self, workspace_id: str, config: Mapping[str, Any], *, agent_name: str, public: bool
    ) -> str | None: ...


@dataclass(frozen=True)
class ToolContext:
    """The task, step and call a tool runs for, and the services it may use.

    `injected` holds the values of the tool's injected arguments (filled from the workspace, for
    example integration credentials), which the model never sees or supplies. `approved_target` is,
    for a call a reviewer approved, what its preview was bound to (the tool's `review_binding`); the
    tool runs only against that target, and `idempotency_key` is the key of that approval's one send
    (the same for the same task, step, call and approval; a tool that can pass it on, as MCP tools
    do, lets the remote side drop a repeat). `settings` is the
    process settings object and `redis` the asyncio Redis client of the store; both are typed
    loosely so that tools depend on the store's interface, not on how core builds it.
    `task_model` is the model the task's steps run on: the document tools ask it, never the
    operator's extraction model (None outside a task's run). `run_check` is the runtime's one set
    of run checks, which `delegate_tasks` asks before it writes a child (None outside a task's run).
    """

    workspace_id: str
    task_id: str
    step_id: str
    call_id: str
    agent_config: Mapping[str, Any] = field(default_factory=dict)
    settings: Any = None
    redis: Any = None
    injected: Mapping[str, Any] = field(default_factory=dict)
    approved_target: Mapping[str, Any] | None = None
    idempotency_key: str | None = None
    task_model: TaskModel | None = None
    run_check: RunCheck | None = None
