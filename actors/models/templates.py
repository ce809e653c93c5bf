"""Template rendering for scripted model turns (docs/scripted-model.md, "Templates").

Four templates are known: `{{query}}`, `{{last_user_message}}`, `{{last_tool_result}}` and
`{{last_tool_result.<path>}}`, where the path walks dict keys and list indexes (`items.0.name`).
Rendering rules:

- `{{last_tool_result}}` is always the JSON text of the last tool call's output.
- A string that is exactly one path template (spaces inside the braces allowed) becomes the value
  itself, keeping its JSON type: a number stays a number, an object an object.
- Inside a longer string a path value is inserted as text: strings as they are, anything else as
  JSON text.
- A path that does not resolve (missing key, index out of range, no tool result yet) yields null.
- Any other `{{...}}` (for example `{{item}}` in a delegation prompt) is left as written, so it
  reaches the tool that owns it. Substituted text is never rendered again.
- Dict keys are not templates; only values are rendered, recursively through dicts and lists.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_TEMPLATE = re.compile(r"\{\{\s*(query|last_user_message|last_tool_result(?:\.[^\s{}]+)?)\s*\}\}")

_RESULT_PREFIX = "last_tool_result."


@dataclass(frozen=True)
class TemplateContext:
    """What a turn's templates can refer to.

    `query` is the task's first user message, `last_user_message` the newest user message, and
    `last_tool_result` the output value (not its JSON text) of the last tool call, None before any.
    """

    query: str = ""
    last_user_message: str = ""
    last_tool_result: Any = None


def render(value: Any, context: TemplateContext) -> Any:
    """Return `value` with every template in its strings replaced; the input is not modified."""
    if isinstance(value, str):
        return _render_string(value, context)
    if isinstance(value, dict):
        return {key: render(item, context) for key, item in value.items()}
    if isinstance(value, list):
        return [render(item, context) for item in value]
    return value


def _render_string(text: str, context: TemplateContext) -> Any:
    whole = _TEMPLATE.fullmatch(text)
    if whole is not None and whole.group(1).startswith(_RESULT_PREFIX):
        return _lookup(context.last_tool_result, whole.group(1)[len(_RESULT_PREFIX) :])
    return _TEMPLATE.sub(lambda match: _as_text(match.group(1), context), text)


def _as_text(name: str, context: TemplateContext) -> str:
    if name == "query":
        return context.query
    if name == "last_user_message":
        return context.last_user_message
    if name == "last_tool_result":
        return _json_text(context.last_tool_result)
    value = _lookup(context.last_tool_result, name[len(_RESULT_PREFIX) :])
    return value if isinstance(value, str) else _json_text(value)


def _lookup(value: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list):
            try:
                value = value[int(part)]
            except (ValueError, IndexError):
                return None
        else:
            return None
    return value


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
