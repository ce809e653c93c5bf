"""The typed keys of an agent config's `settings` object (docs/spec.md "Agent config keys that are
named", docs/contract.md section 2).

The config is free-form JSON, but a setting the runtime reads must have the type it is read as: a
cap written as a string (`"spend_cap_usd": "0.5"`) used to be read as no cap at all. Each door
that saves or runs an agent asks `settings_problem` first and answers 400 naming the field; keys
not named here stay opaque.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

#: docs/spec.md, run endpoint: the payloads `result` (and so `settings.sync_result`) may select.
SYNC_RESULT_PATTERN = r"^(structured|summary|feed|tool:.+)$"


class AgentSettings(BaseModel):
    """`config.settings`: strict types (no string for a number, no number for a boolean); null or
    absent means the default."""

    model_config = ConfigDict(strict=True, extra="allow")

    max_concurrent_tasks: int | None = Field(None, ge=1, description="an integer, 1 or more")
    max_retries: int | None = Field(None, ge=0, description="an integer, 0 or more")
    spend_cap_usd: float | None = Field(None, ge=0, description="a number of USD, 0 or more")
    tree_spend_cap_usd: float | None = Field(None, ge=0, description="a number of USD, 0 or more")
    max_tokens_per_task: int | None = Field(None, ge=1, description="an integer, 1 or more")
    placement: Literal["dedicated", "pooled"] | None = Field(None, description="`dedicated` or `pooled`")
    sync_result: str | None = Field(
        None,
        pattern=SYNC_RESULT_PATTERN,
        description="`structured`, `summary`, `feed` or `tool:<tool_name>`",
    )
    disable_ask_user: bool | None = Field(None, description="a boolean")
    delegate_source_mode: bool | None = Field(None, description="a boolean")


def _shown(value: Any) -> str:
    text = repr(value) if isinstance(value, str | int | float) else type(value).__name__
    return text if len(text) <= 40 else f"{text[:37]}..."


def settings_problem(config: Mapping[str, Any], where: str = "config") -> str | None:
    """Why `config["settings"]` does not hold the types its named keys need, naming each field as
    `<where>.settings.<key>`; None when it does (or sets nothing)."""
    raw = config.get("settings")
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        return f"{where}.settings must be an object"
    try:
        AgentSettings.model_validate(dict(raw))
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            name = str(error["loc"][0])
            field = AgentSettings.model_fields[name]
            problems.append(
                f"{where}.settings.{name} must be {field.description} (got {_shown(error['input'])})"
            )
        return "; ".join(dict.fromkeys(problems))
    return None
