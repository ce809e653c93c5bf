"""The typed keys of an agent's `config.settings` (core.stores.agent_settings): numbers are numbers, not
text; booleans are booleans; each problem names its field."""

from __future__ import annotations

from typing import Any

import pytest

from core.stores.agent_settings import AgentSettings, settings_problem

pytestmark = pytest.mark.unit


def test_well_typed_settings_and_unknown_keys_pass() -> None:
    config = {
        "settings": {
            "spend_cap_usd": 0.5,
            "tree_spend_cap_usd": 2,
            "max_retries": 0,
            "max_concurrent_tasks": 3,
            "max_tokens_per_task": 1000,
            "placement": "pooled",
            "sync_result": "tool:lookup",
            "disable_ask_user": True,
            "delegate_source_mode": False,
            "something_of_my_own": "opaque",
        }
    }
    assert settings_problem(config) is None
    assert settings_problem({}) is None and settings_problem({"settings": None}) is None
    # Null is the default, as absent is.
    assert settings_problem({"settings": {"spend_cap_usd": None, "max_retries": None}}) is None
    parsed = AgentSettings.model_validate(config["settings"])
    assert parsed.tree_spend_cap_usd == 2.0 and isinstance(parsed.tree_spend_cap_usd, float)


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("spend_cap_usd", "0.5", "a number of USD, 0 or more (got '0.5')"),
        ("spend_cap_usd", -1, "a number of USD, 0 or more (got -1)"),
        ("spend_cap_usd", True, "a number of USD, 0 or more (got True)"),
        ("tree_spend_cap_usd", [1], "a number of USD, 0 or more (got list)"),
        ("max_retries", "2", "an integer, 0 or more (got '2')"),
        ("max_retries", 1.0, "an integer, 0 or more (got 1.0)"),
        ("max_concurrent_tasks", 0, "an integer, 1 or more (got 0)"),
        ("max_tokens_per_task", False, "an integer, 1 or more (got False)"),
        ("placement", "anywhere", "`dedicated` or `pooled` (got 'anywhere')"),
        ("sync_result", "tool:", "`structured`, `summary`, `feed` or `tool:<tool_name>` (got 'tool:')"),
        ("disable_ask_user", "false", "a boolean (got 'false')"),
        ("delegate_source_mode", 1, "a boolean (got 1)"),
    ],
)
def test_a_wrong_type_names_the_field_and_what_it_must_be(name: str, value: Any, expected: str) -> None:
    assert settings_problem({"settings": {name: value}}) == f"config.settings.{name} must be {expected}"


def test_every_wrong_field_is_named_once_and_settings_must_be_an_object() -> None:
    problem = settings_problem({"settings": {"spend_cap_usd": "1", "max_retries": "x"}}, "agent")
    # In the order the settings are declared.
    assert problem == (
        "agent.settings.max_retries must be an integer, 0 or more (got 'x'); "
        "agent.settings.spend_cap_usd must be a number of USD, 0 or more (got '1')"
    )
    assert settings_problem({"settings": ["spend_cap_usd", 1]}) == "config.settings must be an object"
    long = "x" * 100
    assert settings_problem({"settings": {"placement": long}}) == (
        f"config.settings.placement must be `dedicated` or `pooled` (got {repr(long)[:37]}...)"
    )
