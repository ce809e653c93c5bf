"""The model extraction asks (prompt_mode `auto` and `model`).

For a job no task causes (the /api/v2 routes), the operator's: a model is configured when
OPENAI_API_KEY is set (docs/contract.md section 7). It is the `openai` provider, named by
AGENTRY_DEFAULT_MODEL when that is an `openai:<name>` model, else `DEFAULT_EXTRACTION_MODEL`;
OPENAI_BASE_URL points it at any OpenAI-compatible server.

For a job a task's document tool causes, the task's own model, resolved as its steps resolve it
(`actors.models.resolve.resolve_model`): the document goes only where the agent's model goes, and a
task on no real model (scripted) extracts and classifies by the rules alone.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass
from typing import Any

from actors.models.base import ModelConfigError, ModelError, ModelProvider, ModelRequest, ModelResponse, Usage
from actors.models.resolve import provider_for, resolve_model
from actors.models.targets import operator_target
from actors.models.templates import TemplateContext
from actors.usage import record_model_call
from core import tasks
from core.infra.errors import AgentryError
from core.infra.settings import Settings
from extraction.jobs.model import ModelCaller, ModelUnavailable, TaskModel, model_configured

#: The openai model used for extraction when AGENTRY_DEFAULT_MODEL names no openai model.
DEFAULT_EXTRACTION_MODEL = "openai:gpt-4o-mini"


@dataclass(frozen=True)
class ProviderCaller:
    """A `ModelCaller` over one of the runtime's model providers."""

    provider: ModelProvider

    async def __call__(self, messages: list[dict[str, Any]]) -> str:
        return (await _complete(self.provider, messages)).text or ""


@dataclass(frozen=True)
class TaskCaller:
    """The task's model, each call charged to the task (`usage.by_purpose`, the tree)."""

    provider: ModelProvider
    redis: Any
    task_model: TaskModel

    async def __call__(self, messages: list[dict[str, Any]]) -> str:
        response = await _complete(self.provider, messages)
        await charge_task(self.redis, self.task_model, response.usage)
        return response.text or ""


async def _complete(provider: ModelProvider, messages: list[dict[str, Any]]) -> ModelResponse:
    request = ModelRequest(messages=messages, tools=[], call_index=0, context=TemplateContext(query=""))
    try:
        return await provider.complete(request)
    except ModelError as exc:
        raise ModelUnavailable(f"the extraction model failed: {exc.message}") from None


async def charge_task(redis: Any, task_model: TaskModel, usage: Usage) -> None:
    """Add one document model call to the task's usage under its purpose, once (its own step
    marker), and to its tree's.

    A task that is no longer running (stopped while its tool waited) is not charged: its usage is final.
    """
    if task_model.task_id is None or task_model.task_workspace_id is None:
        return
    try:
        task = await tasks.load_task(redis, task_model.task_workspace_id, task_model.task_id)
    except AgentryError:
        return
    await record_model_call(
        redis,
        task,
        f"{task_model.purpose}:{uuid.uuid4()}",
        {"usage": asdict(usage)},
        task_model.purpose,
        usage,
    )


class ExtractionModels:
    """The `extraction.jobs.model.ModelFactory` of the runtime (a plain class, so Ray ships it by name)."""

    def __call__(self, settings: Settings) -> ModelCaller | None:
        """The operator's extraction model, or None when none is configured (prompt_mode `model` is
        then a 400)."""
        if not model_configured(settings):
            return None
        name = (
            settings.default_model
            if settings.default_model.startswith("openai:")
            else DEFAULT_EXTRACTION_MODEL
        )
        return ProviderCaller(provider_for(operator_target(settings, "openai", name.split(":", 1)[1])))

    async def for_task(self, settings: Settings, redis: Any, task_model: TaskModel) -> ModelCaller | None:
        try:
            resolved = await resolve_model(
                task_model.setting, settings, redis=redis, workspace_id=task_model.workspace_id
            )
        except ModelConfigError as exc:
            raise ModelUnavailable(f"the task's model cannot be used: {exc}") from None
        if resolved.target is None:
            return None
        return TaskCaller(resolved.provider, redis, task_model)


extraction_model = ExtractionModels()
