"""The `ask_user` tool: the agent asks the user a question and the task waits for the reply."""

from __future__ import annotations

from typing import Any, NoReturn

from tools.context import ToolContext
from tools.registry import ToolSpec
from tools.signals import PauseForInput


async def _ask_user(arguments: dict[str, Any], ctx: ToolContext) -> NoReturn:
    raise PauseForInput(arguments["question"].strip())


ASK_USER = ToolSpec(
    name="ask_user",
    description=(
        "Ask the user a question when you need information or a decision only they can give. "
        "The task pauses until the user replies; their reply arrives as the next user message."
    ),
    parameters={
        "type": "object",
        "properties": {
            "question": {
                "type": "string",
                "pattern": r"\S",
                "description": "The question for the user, complete and self-contained.",
            }
        },
        "required": ["question"],
        "additionalProperties": False,
    },
    handler=_ask_user,
    display_name="Ask User",
)
