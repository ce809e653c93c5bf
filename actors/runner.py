"""The task runner: decision steps until the task pauses or ends.

A step is one model call and then the tool calls it asked for, in parallel. Every piece of a step is
recorded once under a marker (`actors.step_markers`: `s<step>:model`, `s<step>:tool:<call id>`), so a runner started again
after a crash resumes after the last recorded piece: a recorded model call or tool side effect never
runs twice. The runner holds the task's lease while it works and exits when the task leaves
`running`, so a paused task holds no process.

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

import httpx
import redis.asyncio as aioredis

from actors import completion, mcp_tools, spend_caps, step_load, tree_budget
from actors.context_budget import elision_note, fit_window, offered_tools, stored_results
from actors.conversation import build_messages, template_context
from actors.lease import Lease, hold_while
from actors.models.base import ModelError, ModelRequest, ModelResponse, ToolCall, Usage
from actors.models.resolve import resolve_model
from actors.models.structured import checked_answer, matching_answer
from actors.outcomes import AskUser, CallOutcome, Delegated, Failed, Recorded, StepOutcome, Stopped
from actors.policy import AgentPolicy
from actors.review_binding import binding_of, runs_as_approved
from actors.step_markers import Piece, step_marker
from actors.usage import model_call_increments, record_model_call
from core import delegation, keys, metrics, tasks
from core.errors import NotFound
from core.models import AgentGroup
from core.settings import Settings
from core.state_machine import TaskStatus
from core.store import STORE_ERRORS
from core.tasks import Task, dumps
from extraction.jobs.model import TaskModel
from tools.context import ToolContext
from tools.errors import ToolError
from tools.read_result import READ_RESULT
from tools.registry import ToolRegistry
from tools.selection import resolve_tool_names
from tools.signals import PauseForChildren, PauseForInput

log = logging.getLogger(__name__)


@dataclass
class RunState:
    """One run of one task (a runner object is shared by the tasks of a pooled host)."""

    lease_holder: str
    #: Completed by this run: the completion released its lease and freed its slot.
    completed: bool = False


RUNNING = (TaskStatus.RUNNING.value,)
#: A runner stops after this many steps of one task, so a model that never finishes cannot loop forever.
MAX_STEPS = 200


class TaskRunner:
    #: The task's remote MCP tools (actors.mcp_tools), offered beside the agent's native tools.
    mcp_names: tuple[str, ...] = ()

    def __init__(
        self, *, settings: Settings, redis: aioredis.Redis, registry: ToolRegistry, http: httpx.AsyncClient
    ) -> None:
        self.settings = settings
        self.redis = redis
        self.registry = registry
        self.http = http

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
            raise
        finally:
            if not run.completed:
                # A no-op when another runner holds it; when the store is down, the lease lapses by itself.
                with contextlib.suppress(*STORE_ERRORS):
                    await lease.release()
        if not finished:
            log.warning("task %s: another runner took over its lease; this one stopped", task_id)
            return
        if run.completed:
            return  # its completion freed its slot, released the lease and woke its agent's queue
        task = await tasks.find_task(self.redis, workspace_id, task_id)
        if task is not None and task.status != TaskStatus.RUNNING.value:
            # The task gave back its running slot: the agent's next queued task may start.
            await delegation.emit(self.redis, "drain_queue", ws=workspace_id, group=task.spec.agent_group_id)

    async def _loop(self, first: step_load.StepView, run: RunState) -> None:
        task = first.task
        if task is None:
            return
        try:
            version, first.group = await step_load.agent_of(self.redis, task)
        except NotFound as exc:
            # No run can ever read an agent that is not in the store (a task written around the API):
            # a crash here would be relaunched by the reconciler forever, a new actor each time.
            await self._fail(task, str(exc))
            return
        policy = AgentPolicy.of(version.config, task.spec.output_config, self.settings)
        runner = self
        toolset = await mcp_tools.toolset_for(self.redis, self.settings, task, version.config)
        if toolset.specs:
            # This task's own runner: the shared one's registry stays the native tools alone.
            runner = copy.copy(self)
            runner.registry = self.registry.with_tools(toolset.specs)
            runner.mcp_names = toolset.names
            policy = toolset.policy(policy)
        view: step_load.StepView | None = first
        for _ in range(MAX_STEPS):
            if view is None:
                view = await step_load.load_step(self.redis, task.workspace_id, task.id, known=task)
            if view.task is None or view.task.status != TaskStatus.RUNNING.value:
                return
            task = view.task
            if await runner._step(view, policy, run) is StepOutcome.STOP:
                return
            view = None
        await runner._fail(task, f"the task exceeded {MAX_STEPS} steps")

    def _tool_names(self, task: Task, policy: AgentPolicy) -> list[str]:
        """The tools the task's model may call: the agent's native ones, then its MCP tools."""
        native = resolve_tool_names(
            policy.config, disable_delegation=task.spec.disable_delegation, available=tuple(self.registry)
        )
        return native + [name for name in self.mcp_names if name not in native]

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
        outcome = await self._run_tools(task, policy, step, response.tool_calls, steps)
        if outcome is not StepOutcome.CONTINUE:
            return outcome
        if response.final:
            run.completed = await completion.complete(
                self.redis, self.settings, task, policy, response, steps, lease_holder=run.lease_holder
            )
            return StepOutcome.STOP
        written = await tasks.record(
            self.redis, task, step_marker(step, Piece.DONE), True, fields={"step": str(step + 1)}
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
        await self._pause_failure(task, text, reason=reason)
        return True

    async def _call_model(
        self, task: Task, policy: AgentPolicy, step: int, feed: list[dict[str, Any]]
    ) -> tuple[ModelResponse, Task] | StepOutcome:
        """One model call on the task's `feed`. Returns the response and the task as its record left
        it, CONTINUE to try again, or STOP when the task left running."""
        tool_names = self._tool_names(task, policy)
        schema_ctx = self._context(task, policy, step, call_id="")
        messages = build_messages(policy.system_prompt, feed)
        request = ModelRequest(
            messages=messages,
            tools=await self.registry.model_schemas_for(offered_tools(tool_names, messages), schema_ctx),
            call_index=task.model_calls,
            context=template_context(task.spec.query, feed),
            output_schema=policy.output_schema,
        )
        elided: list[str] = []
        try:
            model = await resolve_model(
                policy.model, self.settings, redis=self.redis, workspace_id=task.agent_workspace_id
            )
            if model.target is not None and model.target.context_window:
                fitted, elided = fit_window(request.messages, model.target.context_window)
                request = replace(request, messages=fitted)
            with metrics.timed(metrics.MODEL_CALL_SECONDS, model=model.label):
                response = await model.provider.complete(request)
                if response.final and policy.output_schema is not None:
                    # A real model gets a repair turn; the scripted one plays what its turns say.
                    response = (
                        checked_answer(response, policy.output_schema)
                        if model.target is None
                        else await matching_answer(model.provider, request, response, policy.output_schema)
                    )
        except (ModelError, ValueError) as exc:
            message = getattr(exc, "message", str(exc))
            marker = step_marker(step, Piece.MODEL_ERROR, task.model_calls)
            retried: dict[str, float] = {"model_calls": 1, "retries_used": 1}
            paid = getattr(exc, "usage", None)
            # A failed call the provider charged for all the same (an answer that failed the output
            # schema) is counted in the task's usage and its tree's spend.
            written = await (
                record_model_call(self.redis, task, marker, message, "steps", paid, increments=retried)
                if paid is not None
                else tasks.record(self.redis, task, marker, message, increments=retried)
            )
            if written < 0:
                return StepOutcome.STOP
            if task.retries_used + 1 > policy.max_retries:
                await self._handle_failure(task, f"model call failed: {message}", policy)
                return StepOutcome.STOP
            # The provider asked for a pause (a 429's Retry-After): the retry waits it out.
            wait = getattr(exc, "retry_after_seconds", None)
            if wait:
                await asyncio.sleep(wait)
            return StepOutcome.CONTINUE
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

    async def _run_tools(
        self, task: Task, policy: AgentPolicy, step: int, calls: list[ToolCall], steps: dict[str, Any]
    ) -> StepOutcome:
        todo = [c for c in calls if step_marker(step, Piece.TOOL, c.id) not in steps]
        if not todo:
            return StepOutcome.CONTINUE
        awaiting_review = [
            c
            for c in todo
            if c.name in policy.review_tools and step_marker(step, Piece.REVIEW, c.id) not in steps
        ]
        runnable = [c for c in todo if c not in awaiting_review]
        rejected = {
            c.id
            for c in runnable
            if (steps.get(step_marker(step, Piece.REVIEW, c.id)) or {}).get("decision") == "reject"
        }
        results = await asyncio.gather(
            *(self._run_one(task, policy, step, c, c.id in rejected, steps) for c in runnable)
        )
        outcomes = list(zip(runnable, results, strict=True))
        failures = [(c, r.error) for c, r in outcomes if isinstance(r, Failed)]
        pauses = [(c, r.question) for c, r in outcomes if isinstance(r, AskUser)]
        waits = [(c, r.group_id) for c, r in outcomes if isinstance(r, Delegated)]
        if any(isinstance(r, Stopped) for r in results):
            return StepOutcome.STOP
        if failures:
            written = await tasks.record(
                self.redis,
                task,
                step_marker(step, Piece.TOOL_FAILURE, task.retries_used),
                [c.id for c, _ in failures],
                increments={"retries_used": 1},
            )
            if written < 0:
                return StepOutcome.STOP
            if task.retries_used + 1 > policy.max_retries:
                names = [c.name for c, _ in failures]
                await self._handle_failure(
                    task,
                    f"tool {names[0]} failed: {failures[0][1]}",
                    policy,
                    tool_name=names[0],
                    tool_names=names if len(names) > 1 else None,
                )
            return StepOutcome.STOP if task.retries_used + 1 > policy.max_retries else StepOutcome.RETRY
        if waits:
            call, group_id = waits[0]
            pause = {"kind": "delegation", "group_id": group_id, "call_id": call.id, "step": step}
            await tasks.transition(
                self.redis,
                task,
                TaskStatus.WAITING_FOR_INPUT.value,
                fields={"pause": dumps(pause)},
                expected=TaskStatus.RUNNING.value,
            )
            # Fast children may all have finished before the parent paused: the scheduler resumes
            # it if so (a no-op otherwise).
            await delegation.emit(self.redis, "await_completed", ws=task.workspace_id, group=group_id)
            return StepOutcome.STOP
        if pauses:
            call, question = pauses[0]
            pause = {"kind": "ask_user", "question": question, "call_id": call.id, "step": step}
            await tasks.transition(
                self.redis,
                task,
                TaskStatus.WAITING_FOR_INPUT.value,
                fields={"pause": dumps(pause)},
                expected=TaskStatus.RUNNING.value,
            )
            return StepOutcome.STOP
        if awaiting_review:
            call = awaiting_review[0]
            binding = await binding_of(
                self.registry, call.name, call.arguments, self._context(task, policy, step, call_id=call.id)
            )
            pending: dict[str, Any] = {
                "call_id": call.id,
                # Shown beside the call id: the two a review names to say which preview it answers.
                "arguments_sha256": binding["arguments_sha256"],
                "tool_name": call.name,
                "arguments": call.arguments,
                "step": step,
            }
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
                call.name, call.arguments, self._context(task, policy, step, call_id=call.id)
            )
        except ToolError as exc:
            return {"error": exc.message}

    async def _run_one(
        self,
        task: Task,
        policy: AgentPolicy,
        step: int,
        call: ToolCall,
        rejected: bool,
        steps: dict[str, Any],
    ) -> CallOutcome:
        """Run one call and record its result (or say why it was not recorded)."""
        review = steps.get(step_marker(step, Piece.REVIEW, call.id)) or {}
        if rejected:
            comment = review.get("comment")
            note = f": {comment}" if comment else ""
            return await self._record_result(task, step, call, error=f"a reviewer rejected this call{note}")
        ctx = self._context(task, policy, step, call_id=call.id)
        if review.get("decision") == "approve":
            if not runs_as_approved(review, call.arguments):
                return await self._record_result(
                    task, step, call, error="this call is not the one a reviewer approved; it did not run"
                )
            if review.get("target") is not None:
                ctx = replace(ctx, approved_target=review["target"])
        try:
            # read_result only reads this task's own stored results, so every task may call it.
            if call.name != READ_RESULT and call.name not in self._tool_names(task, policy):
                raise ToolError(f"tool {call.name!r} is not available to this agent")
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

    def _context(self, task: Task, policy: AgentPolicy, step: int, *, call_id: str) -> ToolContext:
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
                workspace_id=task.agent_workspace_id,
                setting=policy.model,
                task_workspace_id=task.workspace_id,
                task_id=task.id,
            ),
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

    async def _handle_failure(
        self,
        task: Task,
        error: str,
        policy: AgentPolicy,
        *,
        tool_name: str | None = None,
        tool_names: list[str] | None = None,
    ) -> None:
        if policy.pauses_on_failure(task.spec.source):
            await self._pause_failure(task, error, tool_name=tool_name, tool_names=tool_names)
        else:
            await self._fail(task, error)

    async def _pause_failure(
        self,
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
        await tasks.transition(
            self.redis,
            task,
            TaskStatus.WAITING_FOR_INPUT.value,
            fields={"pause": dumps(pause)},
            items=[item],
            expected=TaskStatus.RUNNING.value,
        )

    async def _fail(self, task: Task, error: str) -> None:
        # Refused when the task was stopped meanwhile: a task stopped during error handling stays stopped.
        await tasks.transition(
            self.redis,
            task,
            TaskStatus.FAILED.value,
            fields={"error": error},
            expected=TaskStatus.RUNNING.value,
        )


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
