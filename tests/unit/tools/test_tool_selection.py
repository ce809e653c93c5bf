from typing import Any

import pytest

from tools.selection import DEFAULT_TOOLS, KNOWN_TOOLS, OPT_IN_TOOLS, resolve_tool_names

pytestmark = pytest.mark.unit


def test_the_sets_are_the_contract_s() -> None:
    assert DEFAULT_TOOLS == (
        "ask_user",
        "delegate_tasks",
        "parse_document",
        "extract_document",
        "classify_document",
    )
    assert OPT_IN_TOOLS == ("practice_save_patient", "practice_get_patient")
    assert set(KNOWN_TOOLS) == set(DEFAULT_TOOLS) | set(OPT_IN_TOOLS)


@pytest.mark.parametrize("config", [{}, {"tools": None}, {"system_prompt": "x"}])
def test_absent_tools_give_the_default_set_without_practice_tools(config: dict[str, Any]) -> None:
    assert resolve_tool_names(config, disable_delegation=False) == list(DEFAULT_TOOLS)


def test_listed_tools_are_exactly_the_listed_known_names_in_order() -> None:
    config = {"tools": ["practice_get_patient", "no_such_tool", "ask_user", "practice_get_patient"]}
    assert resolve_tool_names(config, disable_delegation=False) == ["practice_get_patient", "ask_user"]


def test_an_empty_list_means_no_tools() -> None:
    assert resolve_tool_names({"tools": []}, disable_delegation=False) == []


def test_practice_tools_only_when_listed() -> None:
    listed = resolve_tool_names({"tools": ["practice_save_patient"]}, disable_delegation=False)
    assert listed == ["practice_save_patient"]
    assert not set(OPT_IN_TOOLS) & set(resolve_tool_names({}, disable_delegation=False))


@pytest.mark.parametrize(
    ("config", "disable_delegation", "has_delegation"),
    [
        ({}, False, True),
        ({}, True, False),
        ({"auto_delegate": False}, False, False),
        ({"auto_delegate": True}, False, True),
        ({"auto_delegate": None}, False, True),
        ({"tools": ["delegate_tasks", "ask_user"]}, False, True),
        ({"tools": ["delegate_tasks", "ask_user"]}, True, False),
        ({"tools": ["delegate_tasks", "ask_user"], "auto_delegate": False}, False, False),
    ],
)
def test_delegation_removal(config: dict[str, Any], disable_delegation: bool, has_delegation: bool) -> None:
    names = resolve_tool_names(config, disable_delegation=disable_delegation)
    assert ("delegate_tasks" in names) is has_delegation
    assert "ask_user" in names


def test_available_narrows_to_registered_tools() -> None:
    names = resolve_tool_names({}, disable_delegation=False, available={"ask_user", "parse_document"})
    assert names == ["ask_user", "parse_document"]


@pytest.mark.parametrize("tools", ["ask_user", [1, 2], {"ask_user": True}])
def test_malformed_tools_key_is_refused(tools: Any) -> None:
    with pytest.raises(ValueError, match="list of tool names"):
        resolve_tool_names({"tools": tools}, disable_delegation=False)
