"""What a worker task is asked to do with one document, and what its finishing step hands back.

Plain data shared by the pool (`extraction.jobs.pool`, which schedules the tasks) and the finishing
step (`extraction.jobs.results`, which runs inside them), so neither imports the other's module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from extraction.jobs.model import ModelFactory, TaskModel


@dataclass(frozen=True)
class DocumentSpec:
    """What a job asks of one document; plain data, so it travels to the workers."""

    kind: str
    params: dict[str, Any]
    filename: str
    format: str
    file_size: int = 0
    sha256: str = ""
    #: Whether a model may be asked (prompt_mode `auto` asks it only when the rules leave gaps).
    model_available: bool = False
    #: Builds the model inside a worker, for steps that call it themselves (classification).
    model_factory: ModelFactory | None = None
    #: The task's model, built by `model_factory.for_task` in place of the operator's (None: no task).
    task_model: TaskModel | None = None


@dataclass(frozen=True)
class ModelReply:
    """The model's answer, handed back to the finishing step with what the rules found."""

    text: str
    pending: Any = None


@dataclass
class Stage:
    """The outcome of a finishing step: the result, or the messages to ask the model first."""

    result: dict[str, Any] | None = None
    model_messages: list[dict[str, Any]] | None = None
    pending: Any = None
