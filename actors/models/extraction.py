"""The model extraction asks (prompt_mode `auto` and `model`), built from the settings.

A model is configured when OPENAI_API_KEY is set (docs/contract.md section 7). It is the `openai`
provider, named by AGENTRY_DEFAULT_MODEL when that is an `openai:<name>` model, else
`DEFAULT_EXTRACTION_MODEL`; OPENAI_BASE_URL points it at any OpenAI-compatible server.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from actors.models.base import ModelError, ModelProvider, ModelRequest
from actors.models.resolve import provider_for
from actors.models.targets import operator_target
from actors.models.templates import TemplateContext
from core.settings import Settings
from extraction.model import ModelCaller, ModelUnavailable, model_configured

#: The openai model used for extraction when AGENTRY_DEFAULT_MODEL names no openai model.
DEFAULT_EXTRACTION_MODEL = "openai:gpt-4o-mini"


@dataclass(frozen=True)
class ProviderCaller:
    """A `ModelCaller` over one of the runtime's model providers."""

    provider: ModelProvider

    async def __call__(self, messages: list[dict[str, Any]]) -> str:
        request = ModelRequest(messages=messages, tools=[], call_index=0, context=TemplateContext(query=""))
        try:
            response = await self.provider.complete(request)
        except ModelError as exc:
            raise ModelUnavailable(f"the extraction model failed: {exc.message}") from None
        return response.text or ""


def extraction_model(settings: Settings) -> ModelCaller | None:
    """The extraction model, or None when none is configured (prompt_mode `model` is then a 400)."""
    if not model_configured(settings):
        return None
    name = (
        settings.default_model if settings.default_model.startswith("openai:") else DEFAULT_EXTRACTION_MODEL
    )
    return ProviderCaller(provider_for(operator_target(settings, "openai", name.split(":", 1)[1])))
