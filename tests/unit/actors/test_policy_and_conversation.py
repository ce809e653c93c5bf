from __future__ import annotations

import pytest

from actors.completion import data_field_values
from actors.conversation import build_messages, template_context
from actors.policy import DEFAULT_MAX_RETRIES, AgentPolicy
from core.infra.settings import Settings

pytestmark = pytest.mark.unit


def settings(**env: str) -> Settings:
    return Settings(**env)  # type: ignore[arg-type]


def test_agent_on_failure_wins_over_the_platform_default() -> None:
    platform_ask = settings(ORCHESTRATOR_DEFAULT_ON_FAILURE="ask_user")
    assert AgentPolicy.of({"on_failure": "fail"}, None, platform_ask).on_failure == "fail"
    assert AgentPolicy.of({}, None, platform_ask).on_failure == "ask_user"
    assert AgentPolicy.of({"on_failure": "ask_user"}, None, settings()).on_failure == "ask_user"
    assert AgentPolicy.of({"on_failure": "bogus"}, None, settings()).on_failure == "fail"


def test_spawned_and_unattended_tasks_never_pause_on_failure() -> None:
    policy = AgentPolicy.of({"on_failure": "ask_user"}, None, settings())
    assert policy.pauses_on_failure("production") and not policy.pauses_on_failure("spawned")
    unattended = AgentPolicy.of(
        {"on_failure": "ask_user", "settings": {"disable_ask_user": True}}, None, settings()
    )
    assert not unattended.pauses_on_failure("production")


def test_output_config_overrides_schema_and_adds_instructions() -> None:
    policy = AgentPolicy.of(
        {"system_prompt": "Be brief.", "output_schema": {"type": "object", "title": "agent"}},
        {"output_schema": {"type": "object", "title": "run"}, "instructions": "Use JSON."},
        settings(),
    )
    assert policy.output_schema == {"type": "object", "title": "run"}
    assert policy.system_prompt == "Be brief.\n\nUse JSON."
    assert policy.max_retries == DEFAULT_MAX_RETRIES
    assert (
        AgentPolicy.of({"settings": {"max_retries": 0, "spend_cap_usd": 2}}, None, settings()).spend_cap_usd
        == 2.0
    )


def test_messages_rebuilt_from_the_feed() -> None:
    feed = [
        {"type": "user_message", "text": "hi", "files": [{"file": "a.pdf", "file_id": "file://1"}]},
        {"type": "assistant_message", "text": "asking"},
        {"type": "tool_call", "call_id": "c1", "tool_name": "ask_user", "arguments": {"question": "name?"}},
        {"type": "status_changed", "from": "running", "to": "waiting_for_input"},
        {"type": "user_message", "text": "Ada", "in_reply_to": "c1"},
        {
            "type": "tool_result",
            "call_id": "c1",
            "tool_name": "ask_user",
            "status": "ok",
            "output": {"reply": "Ada"},
        },
        {"type": "tool_result", "call_id": "c2", "tool_name": "x", "status": "error", "error": "bad"},
    ]
    messages = build_messages("sys", feed)
    assert messages[0] == {"role": "system", "content": "sys"}
    assert messages[1]["role"] == "user" and "a.pdf (file://1)" in messages[1]["content"]
    assert messages[2]["role"] == "assistant" and messages[2]["tool_calls"][0]["id"] == "c1"
    assert messages[3] == {"role": "tool", "tool_call_id": "c1", "content": '{"reply": "Ada"}'}
    assert messages[4]["content"] == '{"error": "bad"}'
    context = template_context("hi", feed)
    assert context.last_user_message == "Ada" and context.last_tool_result == {"error": "bad"}


def test_later_steps_win_for_data_field_values() -> None:
    steps = {
        "s0:model": {"data_fields": {"a": 1, "b": 1}},
        "s10:model": {"data_fields": {"a": 3}},
        "s2:model": {"data_fields": {"a": 2}},
        "s1:tool:c": {"status": "ok"},
    }
    assert data_field_values(steps) == {"a": 3, "b": 1}
