"""The model that extraction may ask, as extraction sees it: chat messages in, text out.

`extraction/` imports nothing above it, so the runtime's model providers reach it through this
protocol: the layer that knows the providers (`actors.models.extraction`) builds a `ModelCaller`
from the settings, and the coordinator receives that builder when it is created.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel

from core.infra.settings import Settings


class ModelUnavailable(Exception):
    """The model call failed; the message is safe to show (it never quotes the document)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ModelReplyError(ValueError):
    """The model could not be used for this document (it failed, or answered with something else
    than what was asked); the job fails with this message."""


class ModelCaller(Protocol):
    async def __call__(self, messages: list[dict[str, Any]]) -> str:
        """The model's reply text to OpenAI-style chat `messages`; raises `ModelUnavailable`."""
        ...


class TaskModel(BaseModel):
    """The model of the task a job runs for: its agent's `model` setting (None: the default model)
    and the workspace that setting is read in. It names a connection or a provider, never a key:
    a connection's key is read (sealed in the store) where the model is built, inside the pool.
    `workspace_id` is the task's workspace, where the connections it uses live (also when it runs
    another workspace's public agent)."""

    workspace_id: str
    setting: str | dict[str, Any] | None = None
    #: The task the model's calls are charged to, under `usage.by_purpose.<purpose>`.
    task_workspace_id: str | None = None
    task_id: str | None = None
    #: `documents` (parse and extract) or `classification`.
    purpose: str = "documents"


class ModelFactory(Protocol):
    """Builds the models extraction asks (`actors.models.extraction.extraction_model`)."""

    def __call__(self, settings: Settings) -> ModelCaller | None:
        """The operator's extraction model, for jobs no task causes; None when none is configured."""
        ...

    async def for_task(self, settings: Settings, redis: Any, task_model: TaskModel) -> ModelCaller | None:
        """The task's own model, each call charged to the task; None when the task has none
        (scripted: rules only). Raises
        `ModelUnavailable` when its setting cannot be used (a connection deleted since, say)."""
        ...


def model_configured(settings: Settings) -> bool:
    """docs/contract.md section 7 `prompt_mode`: a model is configured when OPENAI_API_KEY is set."""
    return bool(settings.openai_api_key)
