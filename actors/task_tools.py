"""The tool calls of a runner's step: the tools one task's model may call, and one round of calls.

A round runs the step's calls that have no recorded result, in parallel, and records each result
once under its marker (`actors.step_markers`: `s<step>:tool:<call id>`), so a runner started again
after a crash runs only the calls whose results were not recorded. A call that failed and may succeed
if tried again records no result: the step runs again while retries are left, then the failure
policy applies (`actors.failure`); each retry waits first (core.infra.backoff). A call of a tool the agent
lists in `review_tools` waits for a recorded review decision (`actors.review_binding`): until there is
one, the task pauses in `awaiting_review` with the call's preview. An approval sends its call once:
an approved call that fails retryably is not retried but pauses for a new review that shows how it
ended.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import redis.asyncio as aioredis

from actors import run_checks
from actors.context_budget import stored_results
from actors.failure import handle_failure, pause_run
from actors.mcp_tools import not_offered
from actors.models.base import ToolCall
from actors.outcomes import AskUser, CallOutcome, Delegated, Failed, Recorded, StepOutcome, Stopped
from actors.policy import AgentPolicy
from actors.review_binding import (
    binding_of,
    current_review,
    idempotency_key,
    previous_attempt,
    runs_as_approved,
)
from actors.step_markers import Piece, attempt_marker, spent_approvals, step_marker, tool_failure_round
from core import tasks
from core.infra import metrics
from core.infra.backoff import backoff_seconds
from core.infra.ids import now_iso
from core.infra.settings import Settings
from core.tasks import Task, delegation, dumps
from core.tasks.state_machine import TaskStatus
from extraction.jobs.model import TaskModel
from tools.context import ToolContext
from tools.errors import ToolError
from tools.read_result import READ_RESULT
from tools.registry import ToolRegistry
from tools.selection import resolve_tool_names
from tools.signals import PauseForChildren, PauseForInput

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TaskTools:
    """The tools a task's model is offered and may call: a runner's shared one has the native tools
    alone; a task with MCP tools gets its own (`TaskRunner._loop`)."""

    settings: Settings
    redis: aioredis.Redis
    registry: ToolRegistry
    #: The task's remote MCP tools (actors.mcp_tools), offered beside the agent's native tools.
    mcp_names: tuple[str, ...] = ()
    #: Its MCP servers that offer it no tools, with the error a call of one of their tools gets.
    mcp_unavailable: Mapping[str, str] = field(default_factory=dict)

    def names(self, task: Task, policy: AgentPolicy) -> list[str]:
        """The tools the task's model may call: the agent's native ones, then its MCP tools."""
        native = resolve_tool_names(
            policy.config, disable_delegation=task.spec.disable_delegation, available=tuple(self.registry)
        )
        return native + [name for name in self.mcp_names if name not in native]

    async def run_round(
        self, task: Task, policy: AgentPolicy, step: int, calls: list[ToolCall], steps: dict[str, Any]
    ) -> StepOutcome:
        """Run the step's calls that have no recorded result. CONTINUE when every call is recorded,
        RETRY when some failed with retries left, STOP when the task paused, failed or left running."""
        todo = [c for c in calls if step_marker(step, Piece.TOOL, c.id) not in steps]
        if not todo:
            return StepOutcome.CONTINUE
        reviews = {c.id: current_review(steps, step, c.id) for c in todo if c.name in policy.review_tools}
        awaiting_review = [c for c in todo if c.id in reviews and reviews[c.id] is None]
        runnable = [c for c in todo if c not in awaiting_review]
        results = await asyncio.gather(
            *(self._run_one(task, policy, step, c, reviews.get(c.id), steps) for c in runnable)
        )
        outcomes = list(zip(runnable, results, strict=True))
        if any(isinstance(r, Stopped) for r in results):
            return StepOutcome.STOP
        # An approved call that failed spent its approval: no retry sends it again, it waits for a
        # new review that shows how this send ended.
        spent = [(c, r.error) for c, r in outcomes if isinstance(r, Failed) and c.id in reviews]
        for call, error in spent:
            # `steps` was read before this round spent the call's approval (`_run_one`).
            approval = spent_approvals(steps, step, call.id) + 1
            failed = attempt_marker(step, call.id, approval, failed=True)
            if await tasks.record(self.redis, task, failed, {"error": error}) < 0:
                return StepOutcome.STOP
            steps = steps | {attempt_marker(step, call.id, approval): {}, failed: {"error": error}}
        awaiting_review += [c for c, _ in spent]
        failures = [(c, r.error) for c, r in outcomes if isinstance(r, Failed) and c.id not in reviews]
        pauses = [(c, r.question) for c, r in outcomes if isinstance(r, AskUser)]
        waits = [(c, r.group_id) for c, r in outcomes if isinstance(r, Delegated)]
        if failures:
            written = await tasks.record(
                self.redis,
                task,
                # Counted per step, not keyed by the retry budget: a reply resets the budget, and a
                # marker written before the reset must not swallow the next round's count.
                step_marker(step, Piece.TOOL_FAILURE, tool_failure_round(steps, step)),
                [c.id for c, _ in failures],
                increments={"retries_used": 1},
            )
            if written <= 0:
                # 0: another runner recorded this round (it holds the task now); -1: the task left running.
                return StepOutcome.STOP
            if task.retries_used + 1 > policy.max_retries:
                names = [c.name for c, _ in failures]
                await handle_failure(
                    self.redis,
                    task,
                    f"tool {names[0]} failed: {failures[0][1]}",
                    policy,
                    tool_name=names[0],
                    tool_names=names if len(names) > 1 else None,
                )
                return StepOutcome.STOP
            await asyncio.sleep(
                backoff_seconds(
                    task.retries_used + 1,
                    base=self.settings.retry_base_seconds,
                    cap=self.settings.retry_cap_seconds,
                )
            )
            return StepOutcome.RETRY
        if waits:
            call, group_id = waits[0]
            pause = {"kind": "delegation", "group_id": group_id, "call_id": call.id, "step": step}
            await pause_run(self.redis, task, pause)
            # Fast children may all have finished before the parent paused: the scheduler resumes
            # it if so (a no-op otherwise).
            await delegation.emit(self.redis, "await_completed", ws=task.workspace_id, group=group_id)
            return StepOutcome.STOP
        if pauses:
            call, question = pauses[0]
            pause = {"kind": "ask_user", "question": question, "call_id": call.id, "step": step}
            await pause_run(self.redis, task, pause)
            return StepOutcome.STOP
        if awaiting_review:
            call = awaiting_review[0]
            binding = await binding_of(
                self.registry, call.name, call.arguments, self.context(task, policy, step, call_id=call.id)
            )
            pending: dict[str, Any] = {
                "call_id": call.id,
                # Shown beside the call id: the two a review names to say which preview it answers.
                "arguments_sha256": binding["arguments_sha256"],
                "tool_name": call.name,
                "arguments": call.arguments,
                "step": step,
                # Which approval of the call this review gives: one approval sends it once.
                "approval": spent_approvals(steps, step, call.id) + 1,
            }
            previous = previous_attempt(steps, step, call.id)
            if previous is not None:
                pending["previous_attempt"] = previous
            preview = await self._review_preview(task, policy, step, call)
            if preview is not None:
                pending["preview"] = preview
            pending["binding"] = binding
            pause = {"kind": "review", "tool_name": call.name, "pending_tool_call": pending}
            await tasks.transition(
                self.redis,
                task,
                TaskStatus.AWAITING_REVIEW.value,
                fields={"pause": dumps(pause)},
                items=[
                    {
                        "type": "message_sent",
                        "kind": "review_requested",
                        "text": f"{call.name} needs approval before it runs",
                        "tool_name": call.name,
                        "pending_tool_call": pending,
                    }
                ],
                expected=TaskStatus.RUNNING.value,
            )
            return StepOutcome.STOP
        return StepOutcome.CONTINUE

    async def _review_preview(
        self, task: Task, policy: AgentPolicy, step: int, call: ToolCall
    ) -> dict[str, Any] | None:
        """The tool's preview of a call paused for review, or why it cannot be previewed."""
        try:
            return await self.registry.preview(
                call.name, call.arguments, self.context(task, policy, step, call_id=call.id)
            )
        except ToolError as exc:
            return {"error": exc.message}

    async def _run_one(
        self,
        task: Task,
        policy: AgentPolicy,
        step: int,
        call: ToolCall,
        review: dict[str, Any] | None,
        steps: dict[str, Any],
    ) -> CallOutcome:
        """Run one call and record its result (or say why it was not recorded). `review` is the
        decision on the approval a reviewed call needs now; None for a call not reviewed."""
        ctx = self.context(task, policy, step, call_id=call.id)
        if review is not None:
            if review.get("decision") != "approve":
                comment = review.get("comment")
                note = f": {comment}" if comment else ""
                return await self._record_result(
                    task, step, call, error=f"a reviewer rejected this call{note}"
                )
            if not runs_as_approved(review, call.arguments):
                return await self._record_result(
                    task, step, call, error="this call is not the one a reviewer approved; it did not run"
                )
            if review.get("target") is not None:
                ctx = replace(ctx, approved_target=review["target"])
            approval = spent_approvals(steps, step, call.id) + 1
            # Spent before the send: a run that stops while the call is out never sends it again on
            # this approval (its next run asks for a new review instead).
            spending = await tasks.record(
                self.redis, task, attempt_marker(step, call.id, approval), {"at": now_iso()}
            )
            if spending < 0:
                return Stopped()
            if spending == 0:
                return Failed(
                    "this approval was already spent on an earlier send; the call was not sent again"
                )
            ctx = replace(ctx, idempotency_key=idempotency_key(task.id, step, call.id, approval))
        try:
            # read_result only reads this task's own stored results, so every task may call it.
            if call.name != READ_RESULT and call.name not in self.names(task, policy):
                raise ToolError(not_offered(call.name, self.mcp_unavailable))
            with metrics.timed(metrics.TOOL_CALL_SECONDS, tool=call.name):
                output = await self.registry.call(call.name, call.arguments, ctx)
        except PauseForInput as signal:
            return AskUser(signal.question)
        except PauseForChildren as signal:
            return Delegated(signal.group_id)
        except ToolError as exc:
            if exc.retryable:
                return Failed(exc.message)
            return await self._record_result(task, step, call, error=exc.message, payload=exc.payload)
        except Exception as exc:
            log.warning("tool %s of task %s crashed: %s", call.name, task.id, type(exc).__name__)
            return Failed(type(exc).__name__)
        return await self._record_result(task, step, call, output=output)

    def context(self, task: Task, policy: AgentPolicy, step: int, *, call_id: str) -> ToolContext:
        """What a tool runs with for the task's step (`call_id` "": the model's tool schemas)."""
        return ToolContext(
            workspace_id=task.workspace_id,
            task_id=task.id,
            step_id=f"{task.id}:{step}",
            call_id=call_id,
            agent_config=policy.config,
            settings=self.settings,
            redis=self.redis,
            injected={},
            task_model=TaskModel(
                workspace_id=task.workspace_id,
                setting=policy.model,
                task_workspace_id=task.workspace_id,
                task_id=task.id,
            ),
            run_check=run_checks.for_tools(self.redis, self.settings),
        )

    async def _record_result(
        self,
        task: Task,
        step: int,
        call: ToolCall,
        *,
        output: Any = None,
        error: str | None = None,
        payload: dict[str, Any] | None = None,
    ) -> Recorded | Stopped:
        item: dict[str, Any] = {
            "type": "tool_result",
            "call_id": call.id,
            "tool_name": call.name,
            "step": step,
        }
        if error is None:
            item |= {"status": "ok", "output": output}
        else:
            item |= {"status": "error", "error": error}
            if payload:
                item["details"] = payload
        written = await tasks.record(
            self.redis,
            task,
            step_marker(step, Piece.TOOL, call.id),
            {"status": item["status"]},
            items=[item],
            markers=stored_results(call.name, step, call.id, output) if error is None else None,
        )
        return Stopped() if written < 0 else Recorded()
