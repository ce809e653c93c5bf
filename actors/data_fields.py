"""Data field values extracted at completion by the task's own model, in one structured call.

docs/spec.md: "Data field values are extracted by a model when the task completes". The agent's config
declares the fields (`data_fields: [{key, description, key_type}]`); the model reads the task's
input and outputs (its messages, the tool results and the final answer) and answers one JSON object.
A field the model leaves out or sets to null is absent; a value of the wrong type is dropped rather
than guessed at.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from actors.models.base import ModelProvider, ModelRequest, ModelResponse, TemplateContext

#: key_type values an agent may declare; anything else is treated as `string`.
KEY_TYPES = ("string", "number", "boolean", "date")
#: Longest slice of one tool result shown to the extraction call: enough for a document's values.
MAX_RESULT_CHARS = 12_000
#: Longest whole transcript shown; the oldest tool results are shortened first beyond it.
MAX_TRANSCRIPT_CHARS = 60_000

_INSTRUCTIONS = (
    "You fill in data fields from a finished task. Read the task's conversation below (the user's "
    "messages, tool results and the final answer) and answer one JSON object whose keys are the "
    "field keys. Use only values stated in the conversation; leave a field out when the "
    "conversation does not contain it. Dates are YYYY-MM-DD. Fields:\n"
)


def key_type(spec: dict[str, Any]) -> str:
    value = str(spec.get("key_type") or "string")
    return value if value in KEY_TYPES else "string"


def fields_schema(fields: list[dict[str, Any]]) -> dict[str, Any]:
    """The JSON schema of the extraction's answer: every field optional, typed by its key_type."""
    properties: dict[str, Any] = {}
    for spec in fields:
        kind = key_type(spec)
        schema: dict[str, Any] = {"type": [kind if kind != "date" else "string", "null"]}
        if kind == "date":
            schema["format"] = "date"
        if spec.get("description"):
            schema["description"] = str(spec["description"])
        properties[str(spec["key"])] = schema
    return {"type": "object", "properties": properties, "additionalProperties": False}


def _transcript(messages: list[dict[str, Any]], answer: str | None, structured: Any) -> str:
    parts: list[str] = []
    for message in messages:
        role = message.get("role")
        if role == "system":
            continue
        content = message.get("content")
        if role == "tool":
            text = str(content or "")[:MAX_RESULT_CHARS]
            parts.append(f"[tool result]\n{text}")
        elif role == "user" and content:
            parts.append(f"[user]\n{content}")
        elif role == "assistant" and content:
            parts.append(f"[assistant]\n{content}")
    if answer:
        parts.append(f"[final answer]\n{answer}")
    if structured is not None:
        parts.append(f"[structured output]\n{json.dumps(structured, ensure_ascii=False, default=str)}")
    text = "\n\n".join(parts)
    # Keep the newest part (the answer) when the whole is too long: cut from the start.
    return text[-MAX_TRANSCRIPT_CHARS:]


def extraction_request(
    fields: list[dict[str, Any]],
    messages: list[dict[str, Any]],
    answer: str | None,
    structured: Any,
    *,
    call_index: int,
    query: str,
) -> ModelRequest:
    listing = "\n".join(
        f"- {spec['key']} ({key_type(spec)}): {spec.get('description') or ''}".rstrip(": ") for spec in fields
    )
    return ModelRequest(
        messages=[
            {"role": "system", "content": _INSTRUCTIONS + listing},
            {"role": "user", "content": _transcript(messages, answer, structured)},
        ],
        tools=[],
        call_index=call_index,
        context=TemplateContext(query=query),
        output_schema=fields_schema(fields),
    )


def coerce(value: Any, kind: str) -> Any:
    """`value` as `kind`, or None when it is absent or not of that kind."""
    if value is None or value == "":
        return None
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        lowered = str(value).strip().lower()
        return {"true": True, "yes": True, "false": False, "no": False}.get(lowered)
    if kind == "number":
        if isinstance(value, bool):
            return None
        if isinstance(value, int | float):
            return value
        try:
            number = float(str(value).replace(",", "").strip())
        except ValueError:
            return None
        return int(number) if number.is_integer() else number
    if kind == "date":
        try:
            return dt.date.fromisoformat(str(value).strip()[:10]).isoformat()
        except ValueError:
            return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def values_from(fields: list[dict[str, Any]], answer: Any) -> dict[str, Any]:
    """The declared fields the answer gave a value of the right type."""
    if not isinstance(answer, dict):
        return {}
    values: dict[str, Any] = {}
    for spec in fields:
        key = str(spec["key"])
        value = coerce(answer.get(key), key_type(spec))
        if value is not None:
            values[key] = value
    return values


async def extract(
    provider: ModelProvider,
    fields: list[dict[str, Any]],
    messages: list[dict[str, Any]],
    answer: str | None,
    structured: Any,
    *,
    call_index: int,
    query: str,
) -> tuple[dict[str, Any], ModelResponse]:
    """The data field values and the model response (for its usage); raises ModelError."""
    request = extraction_request(fields, messages, answer, structured, call_index=call_index, query=query)
    response = await provider.complete(request)
    return values_from(fields, response.structured), response
