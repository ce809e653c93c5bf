"""The task runner: decision steps until the task pauses or ends.

A step is one model call and then the tool calls it asked for, in parallel (`actors.task_tools`).
Every piece of a step is recorded once under a marker (`actors.step_markers`: `s<step>:model`,
`s<step>:tool:<call id>`), so a runner started again after a crash resumes after the last recorded
piece: a recorded model call or tool side effect never runs twice. The runner holds the task's
lease while it works and exits when the task leaves `running`, so a paused task holds no process.
Only an unreachable store is left to a restart: a step that raises anything else goes to the
failure policy, and a task whose runners keep dying fails (`actors.runner_deaths`).

A runner never starts another runner itself (the next queued task of its agent, its own resume
after delegating): it leaves that to the scheduler through a runtime event. Ray's exit of an actor
waits for every call the actor made to finish, so a task actor that had started the next task's
runner would live, and hold its task slot, until that task ended, and so on down a queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import logging
import uuid
from dataclasses import asdict, dataclass, replace
from typing import Any

import redis.asyncio as aioredis

from actors import completion, mcp_tools, runner_deaths, spend_caps, step_load, tree_budget
from actors.context_budget import elision_note, fit_window, offered_tools
from actors.conversation import build_messages, template_context
from actors.failure import fail, handle_failure, pause_failure
from actors.lease import Lease, hold_while
from actors.models.base import ModelError, ModelRequest, ModelResponse, ToolCall, Usage
from actors.models.resolve import resolve_model
from actors.models.schema_check import UnusableSchema
from actors.models.structured import Bill, checked_answer, matching_answer
from actors.outcomes import StepOutcome
from actors.policy import AgentPolicy
from actors.step_markers import Piece, step_marker
from actors.task_tools import TaskTools
from actors.usage import model_call_increments, record_model_call
from core import tasks
from core.infra import keys, metrics
from core.infra.backoff import backoff_seconds
from core.infra.errors import NotFound
from core.infra.models import AgentGroup
from core.infra.settings import Settings
from core.infra.store import STORE_ERRORS
from core.tasks import Task, delegation, dumps
from core.tasks.state_machine import TaskStatus
from tools.registry import ToolRegistry

log = logging.getLogger(__name__)


@dataclass
class RunState:
    """One run of one task (a runner object is shared by the tasks of a pooled host)."""

    lease_holder: str
    #: Completed by this run: the completion released its lease and freed its slot.
    completed: bool = False


#: A runner stops after this many steps of one task, so a model that never finishes cannot loop forever.
MAX_STEPS = 200


class TaskRunner:
    def __init__(self, *, settings: Settings, redis: aioredis.Redis, registry: ToolRegistry) -> None:
        self.settings = settings
        self.redis = redis
        self.tools = TaskTools(settings, redis, registry)

    async def run(self, workspace_id: str, task_id: str) -> None:
        try:
            await self._run(workspace_id, task_id)
        except STORE_ERRORS as exc:
            # Nothing is lost: the task is still `running` in Redis, and once the store is back its
            # lease lapses and the reconciler starts a runner again.
            log.warning(
                "runner of task %s stopped: the state store is unreachable (%s)", task_id, type(exc).__name__
            )

    async def _run(self, workspace_id: str, task_id: str) -> None:
        lease = Lease(
            self.redis,
            keys.task_lease(workspace_id, task_id),
            uuid.uuid4().hex,
            self.settings.task_lease_seconds,
        )
        view = await step_load.load_step(self.redis, workspace_id, task_id, lease=lease)
        if not view.leased:
            return
        run = RunState(lease.holder)
        try:
            finished = await hold_while(lease, self._loop(view, run))
        except Exception as exc:
            if not isinstance(exc, STORE_ERRORS):
                log.exception("runner of task %s crashed; the reconciler will restart it", task_id)
                with contextlib.suppress(*STORE_ERRORS):
                    await runner_deaths.note_crash(
                        self.redis, workspace_id, task_id, f"{type(exc).__name__}: {exc}"
                    )
            raise
        finally:
            if not run.completed:
                # A no-op when another runner holds it; when the store is down, the lease lapses by itself.
                with contextlib.suppress(*STORE_ERRORS):
                    await lease.release()
        if run.completed:
            return  # its completion freed its slot, released the lease and woke its agent's queue
        await runner_deaths.clean_run(self.redis, workspace_id, task_id)
        if not finished:
            log.warning("task %s: another runner took over its lease; this one stopped", task_id)
            return
        task = await tasks.find_task(self.redis, workspace_id, task_id)
        if task is not None and task.status != TaskStatus.RUNNING.value:
            # The task gave back its running slot: the agent's next queued task may start.
            await delegation.emit(self.redis, "drain_queue", ws=workspace_id, group=task.spec.agent_group_id)

    async def _loop(self, first: step_load.StepView, run: RunState) -> None:
        task = first.task
        if task is None or task.status != TaskStatus.RUNNING.value:
            return
        limit = self.settings.max_runner_failures
        if await runner_deaths.count_run(self.redis, task) > limit:
            # The runs before this one all died: another would most likely die the same way.
            await fail(self.redis, task, runner_deaths.failure_text(task, limit))
            return
        try:
            version, first.group = await step_load.agent_of(self.redis, task)
        except NotFound as exc:
            # No run can ever read an agent that is not in the store (a task written around the API):
            # a crash here would be relaunched by the reconciler forever, a new actor each time.
            await fail(self.redis, task, str(exc))
            return
        policy = AgentPolicy.of(version.config, task.spec.output_config, self.settings)
        runner = self
        toolset = await mcp_tools.toolset_for(self.redis, self.settings, task, version.config)
        if toolset.specs or toolset.unavailable:
            # This task's own runner: the shared one's registry stays the native tools alone.
            runner = copy.copy(self)
            runner.tools = replace(
                self.tools,
                registry=self.tools.registry.with_tools(toolset.specs),
                mcp_names=toolset.names,
                mcp_unavailable=toolset.unavailable,
            )
            policy = toolset.policy(policy)
        view: step_load.StepView | None = first
        for _ in range(MAX_STEPS):
            if view is None:
                view = await step_load.load_step(self.redis, task.workspace_id, task.id, known=task)
            if view.task is None or view.task.status != TaskStatus.RUNNING.value:
                return
            task = view.task
            try:
                outcome = await runner._step(view, policy, run)
            except Exception as exc:
                if isinstance(exc, STORE_ERRORS):
                    raise  # ours to retry: the lease lapses and the reconciler starts a runner again
                # Relaunching would raise the same again, each time after another paid model call.
                log.exception("step %s of task %s raised; it goes to its failure policy", task.step, task.id)
                await handle_failure(self.redis, task, step_error(task.step, exc), policy)
                return
            if outcome is StepOutcome.STOP:
                return
            view = None
        await fail(self.redis, task, f"the task exceeded {MAX_STEPS} steps")

    async def _step(self, view: step_load.StepView, policy: AgentPolicy, run: RunState) -> StepOutcome:
        """One step on what `view` read: every further read of the step's state is of what this
        runner itself wrote, so it is kept here rather than read back."""
        assert view.task is not None
        task, steps = view.task, view.steps
        latest = await self._latest_policy(task, policy, view.group)
        if await self._over_a_cap(task, policy, latest):
            return StepOutcome.STOP
        step = task.step
        recorded = steps.get(step_marker(step, Piece.MODEL))
        if recorded is None:
            called = await self._call_model(task, policy, step, view.feed)
            if isinstance(called, StepOutcome):
                return called
            response, task = called
            steps = steps | {step_marker(step, Piece.MODEL): json.loads(dumps(_response_record(response)))}
            if await self._over_a_cap(task, policy, latest):
                return StepOutcome.STOP
        else:
            response = _response_from_record(recorded)
        outcome = await self.tools.run_round(task, policy, step, response.tool_calls, steps)
        if outcome is not StepOutcome.CONTINUE:
            return outcome
        if response.final:
            run.completed = await completion.complete(
                self.redis, self.settings, task, policy, response, steps, lease_holder=run.lease_holder
            )
            return StepOutcome.STOP
        fresh, cleared = runner_deaths.step_done_fields()
        written = await tasks.record(
            self.redis,
            task,
            step_marker(step, Piece.DONE),
            True,
            fields={"step": str(step + 1)} | fresh,
            drop=cleared,
        )
        return StepOutcome.CONTINUE if written >= 0 else StepOutcome.STOP

    async def _latest_policy(self, task: Task, policy: AgentPolicy, group: AgentGroup | None) -> AgentPolicy:
        # The latest version's caps apply, so publishing a higher cap and replying resumes a capped task.
        try:
            latest = await step_load.latest_version(self.redis, task, group)
        except Exception:
            return policy
        return policy if latest is None else AgentPolicy.of(latest.config, None, self.settings)

    async def _over_a_cap(self, task: Task, policy: AgentPolicy, latest: AgentPolicy) -> bool:
        """Pause the task (as docs/spec.md's spend cap does, whatever on_failure says) when it is over
        its spend cap or its token cap, or would call a model with no known price under a spend cap;
        True when it paused."""
        if latest.spend_cap_usd is not None and task.cost_usd > latest.spend_cap_usd:
            text, reason = "the task's spend cap is exceeded", "task_spend_cap_exceeded"
        elif task.input_tokens + task.output_tokens > latest.max_tokens:
            text, reason = f"the task used more than {latest.max_tokens} tokens", "task_token_cap_exceeded"
        elif await tree_budget.over_budget(self.redis, self.settings, task, latest):
            text, reason = "the task tree's spend budget is exceeded", "tree_spend_cap_exceeded"
        elif unpriced := await spend_caps.unpriced_under_cap(self.redis, self.settings, task, policy, latest):
            text, reason = unpriced
        else:
            return False
        await pause_failure(self.redis, task, text, reason=reason)
        return True

    async def _call_model(
        self, task: Task, policy: AgentPolicy, step: int, feed: list[dict[str, Any]]
    ) -> tuple[ModelResponse, Task] | StepOutcome:
        """One model call on the task's `feed`. Returns the response and the task as its record left
        it, CONTINUE to try again, or STOP when the task left running."""
        tool_names = self.tools.names(task, policy)
        schema_ctx = self.tools.context(task, policy, step, call_id="")
        messages = build_messages(policy.system_prompt, feed)
        request = ModelRequest(
            messages=messages,
            tools=await self.tools.registry.model_schemas_for(
                offered_tools(tool_names, messages), schema_ctx
            ),
            call_index=task.model_calls,
            context=template_context(task.spec.query, feed),
            output_schema=policy.output_schema,
        )
        elided: list[str] = []
        bill = Bill()
        try:
            model = await resolve_model(
                policy.model, self.settings, redis=self.redis, workspace_id=task.workspace_id
            )
            if model.target is not None and model.target.context_window:
                fitted, elided = fit_window(request.messages, model.target.context_window)
                request = replace(request, messages=fitted)
            with metrics.timed(metrics.MODEL_CALL_SECONDS, model=model.label):
                response = await model.provider.complete(request)
                bill.add(response.usage)
                if response.final and policy.output_schema is not None:
                    # A real model gets a repair turn; the scripted one plays what its turns say.
                    response = (
                        await checked_answer(response, policy.output_schema)
                        if model.target is None
                        else await matching_answer(
                            model.provider, request, response, policy.output_schema, bill
                        )
                    )
        except (ModelError, ValueError) as exc:
            return await self._failed_call(task, policy, step, exc, bill)
        except Exception as exc:
            if not isinstance(exc, STORE_ERRORS):
                # Not ours to retry (an output schema that cannot check an answer, a bug): the calls
                # made are charged, then the task goes to its failure policy (`_loop`).
                await self._charge_failed_call(task, step, f"{type(exc).__name__}: {exc}", bill, {})
            raise
        note = elision_note(feed, elided, step)
        items: list[dict[str, Any]] = [note] if note is not None else []
        if response.text is not None and (response.text or not response.tool_calls):
            items.append({"type": "assistant_message", "text": response.text, "step": step})
        items += [
            {
                "type": "tool_call",
                "call_id": c.id,
                "tool_name": c.name,
                "arguments": c.arguments,
                "step": step,
            }
            for c in response.tool_calls
        ]
        fields: dict[str, str] = {}
        if response.structured is not None:
            fields["structured"] = dumps(response.structured)
        counted = {"model_calls": 1.0, "decision_steps": 1.0}
        written = await record_model_call(
            self.redis,
            task,
            step_marker(step, Piece.MODEL),
            _response_record(response),
            "steps",
            response.usage,
            fields=fields,
            items=items,
            increments=counted,
        )
        if written < 0:
            return StepOutcome.STOP
        if written == 0:
            # Recorded by another runner meanwhile (it cannot hold the lease too): read what it wrote.
            return response, await tasks.find_task(self.redis, task.workspace_id, task.id) or task
        return response, tasks.with_increments(
            task, model_call_increments("steps", response.usage, counted), fields
        )

    async def _failed_call(
        self, task: Task, policy: AgentPolicy, step: int, exc: Exception, bill: Bill
    ) -> StepOutcome:
        """A model call that failed in a way another call may not: charged, then retried while the
        task has retries left, else the failure policy."""
        message = getattr(exc, "message", str(exc))
        written = await self._charge_failed_call(task, step, message, bill, {"retries_used": 1})
        if written < 0:
            return StepOutcome.STOP
        if task.retries_used + 1 > policy.max_retries:
            await handle_failure(self.redis, task, f"model call failed: {message}", policy)
            return StepOutcome.STOP
        # Every retry waits (growing, jittered); longer when the provider asked for a pause (a
        # 429's Retry-After).
        backoff = backoff_seconds(
            task.retries_used + 1,
            base=self.settings.retry_base_seconds,
            cap=self.settings.retry_cap_seconds,
        )
        await asyncio.sleep(max(backoff, getattr(exc, "retry_after_seconds", None) or 0.0))
        return StepOutcome.CONTINUE

    async def _charge_failed_call(
        self, task: Task, step: int, message: str, bill: Bill, increments: dict[str, float]
    ) -> int:
        """Record a failed model call, with what its calls cost (an answer that failed its output
        schema was paid for all the same) in the task's usage and its tree's spend."""
        marker = step_marker(step, Piece.MODEL_ERROR, task.model_calls)
        counted = {"model_calls": 1.0} | increments
        if bill.usage is None:
            return await tasks.record(self.redis, task, marker, message, increments=counted)
        return await record_model_call(
            self.redis, task, marker, message, "steps", bill.usage, increments=counted
        )


def step_error(step: int, exc: Exception) -> str:
    """The task's error for a step that raised what no retry would cure."""
    if isinstance(exc, UnusableSchema):
        return f"the output schema cannot check the answer: {exc}"
    return f"step {step} failed: {type(exc).__name__}: {exc}"


def _response_record(response: ModelResponse) -> dict[str, Any]:
    return {
        "text": response.text,
        "final": response.final,
        "tool_calls": [asdict(c) for c in response.tool_calls],
        "structured": response.structured,
        "data_fields": response.data_fields,
        "usage": asdict(response.usage),
    }


def _response_from_record(raw: dict[str, Any]) -> ModelResponse:
    return ModelResponse(
        text=raw.get("text"),
        tool_calls=[ToolCall(**c) for c in raw.get("tool_calls") or []],
        final=bool(raw.get("final")),
        structured=raw.get("structured"),
        data_fields=raw.get("data_fields"),
        usage=Usage(**(raw.get("usage") or {})),
    )
