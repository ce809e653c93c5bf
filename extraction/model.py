"""The model that extraction may ask, as extraction sees it: chat messages in, text out.

`extraction/` imports nothing above it, so the runtime's model providers reach it through this
protocol: the layer that knows the providers (`actors.models.extraction`) builds a `ModelCaller`
from the settings, and the coordinator receives that builder when it is created.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from core.settings import Settings


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


#: Builds the extraction model from the settings; None when no model is configured.
ModelFactory = Callable[[Settings], ModelCaller | None]


def model_configured(settings: Settings) -> bool:
    """docs/contract.md section 7 `prompt_mode`: a model is configured when OPENAI_API_KEY is set."""
    return bool(settings.openai_api_key)
