"""The model's name in metrics is short and bounded, whatever the agent's model setting holds."""

from __future__ import annotations

import pytest

from actors.models.resolve import model_label

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("setting", "label"),
    [
        (None, "scripted"),
        ("scripted", "scripted"),
        ("openai:gpt-4o-mini", "openai:gpt-4o-mini"),
        ({"provider": "scripted", "turns": [{"answer": "a long scripted answer"}]}, "scripted"),
        ({"provider": "openai", "name": " gpt-4o "}, "openai:gpt-4o"),
        ("openai:", "invalid"),
        ("some free text a user typed", "invalid"),
        ({"provider": "other"}, "invalid"),
        ({"provider": "openai"}, "invalid"),
        (42, "invalid"),
    ],
)
def test_model_label(setting: object, label: str) -> None:
    assert model_label(setting, "scripted") == label  # type: ignore[arg-type]
