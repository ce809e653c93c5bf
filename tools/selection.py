"""Which tools a task's model may call (docs/contract.md section 2 `tools`; docs/spec.md delegate_tasks rule 8)."""

from __future__ import annotations

from collections.abc import Container, Mapping
from typing import Any

#: The tools an agent gets when its config has no `tools` key (docs/contract.md section 2).
DEFAULT_TOOLS: tuple[str, ...] = (
    "ask_user",
    "delegate_tasks",
    "parse_document",
    "extract_document",
    "classify_document",
)

#: Tools an agent gets only when its config lists them (docs/contract.md section 2).
OPT_IN_TOOLS: tuple[str, ...] = ("practice_save_patient", "practice_get_patient")

#: Every tool name an agent config may list.
KNOWN_TOOLS: tuple[str, ...] = DEFAULT_TOOLS + OPT_IN_TOOLS

_DELEGATION_TOOL = "delegate_tasks"


def resolve_tool_names(
    config: Mapping[str, Any],
    *,
    disable_delegation: bool,
    available: Container[str] = KNOWN_TOOLS,
) -> list[str]:
    """The tool names a task of an agent with `config` may call, in a stable order.

    No `tools` key (or null): `DEFAULT_TOOLS`. A list: exactly the listed names that are in
    `available`, in listed order, each once; other names are dropped. `delegate_tasks` is removed
    when the agent's `auto_delegate` is false or the task was created with `disable_delegation`.
    Raises ValueError when `tools` is neither absent, null nor a list of strings.
    """
    listed = config.get("tools")
    if listed is None:
        names = [name for name in DEFAULT_TOOLS if name in available]
    elif isinstance(listed, list) and all(isinstance(name, str) for name in listed):
        names = [name for name in dict.fromkeys(listed) if name in available]
    else:
        raise ValueError("the agent config's `tools` must be a list of tool names")
    if disable_delegation or config.get("auto_delegate") is False:
        names = [name for name in names if name != _DELEGATION_TOOL]
    return names
