"""The model's name in metrics is short and bounded: `<provider>:<model>`, never a URL or a key."""

from __future__ import annotations

import pytest

from actors.models.resolve import resolve_model
from core.infra.settings import Settings

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("setting", "label"),
    [
        (None, "scripted"),
        ("scripted", "scripted"),
        ("openai:gpt-4o-mini", "openai:gpt-4o-mini"),
        ("anthropic:claude-3-5-haiku-latest", "anthropic:claude-3-5-haiku-latest"),
        ({"provider": "scripted", "turns": [{"answer": "a long scripted answer"}]}, "scripted"),
        ({"provider": "openai", "name": " gpt-4o "}, "openai:gpt-4o"),
        ({"provider": "openai", "name": "m", "base_url": "http://127.0.0.1:9/v1"}, "openai:m"),
    ],
)
async def test_model_label(setting: object, label: str) -> None:
    settings = Settings.model_validate({"allow_private_urls": True, "openai_api_key": "sk-secret"})
    resolved = await resolve_model(setting, settings, redis=None, workspace_id="ws")  # type: ignore[arg-type]
    assert resolved.label == label
