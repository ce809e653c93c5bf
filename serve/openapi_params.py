"""Path and query parameters as the OpenAPI document declares them: formats, patterns, enums, bounds.

The routes keep reading them as plain strings and `core` judges them (so its 400/403/404 messages
stay the same); these declarations only make the document say what the service accepts, so that
generated clients and fuzzers send ids and values that reach past validation.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path, Query

from core.state_machine import TaskStatus
from core.task_queries import BUCKETS

#: A uuid as `uuid.UUID` reads it in its canonical, hyphenated form.
UUID_PATTERN = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_STATUS = "|".join(s.value for s in TaskStatus)


def _uuid_path(what: str) -> Any:
    return Path(description=f"The {what}'s id (a uuid).", json_schema_extra={"format": "uuid"})


def _prefixed_path(what: str, scheme: str) -> Any:
    return Path(
        description=f"The {what}'s id: the uuid, or `{scheme}<uuid>` URL-encoded.",
        json_schema_extra={"pattern": f"^({scheme})?{UUID_PATTERN}$"},
    )


AgentIdPath = Annotated[str, _uuid_path("agent version")]
TaskIdPath = Annotated[str, _uuid_path("task")]
WebhookIdPath = Annotated[str, _uuid_path("webhook subscription")]
McpServerIdPath = Annotated[str, _uuid_path("MCP server")]
RecordIdPath = Annotated[str, _uuid_path("job")]
BatchIdPath = Annotated[str, _uuid_path("batch")]
FileIdPath = Annotated[str, _prefixed_path("file", "file://")]
ConfigIdPath = Annotated[str, _prefixed_path("config", "config://")]
ExampleIdPath = Annotated[str, _uuid_path("example")]
PagePath = Annotated[int, Path(description="1-based page number.", json_schema_extra={"minimum": 1})]

UuidQuery = Annotated[
    str | None, Query(description="A uuid; only tasks that match it.", json_schema_extra={"format": "uuid"})
]
StatusQuery = Annotated[
    str | None,
    Query(
        description="One status or several, comma-separated.",
        json_schema_extra={"pattern": rf"^\s*({_STATUS})\s*(,\s*({_STATUS})\s*)*$"},
    ),
]
CreatedQuery = Annotated[
    str | None,
    Query(
        description="An ISO 8601 date-time (or date); naive means UTC.",
        json_schema_extra={"format": "date-time"},
    ),
]
BucketQuery = Annotated[
    str | None,
    Query(description="`production` (default), `test` or `all`.", json_schema_extra={"enum": list(BUCKETS)}),
]
EventIdQuery = Annotated[
    str | None,
    Query(
        description="Resume after this event id (`<ms>-<seq>`).",
        json_schema_extra={"pattern": r"^\d{1,20}-\d{1,20}$"},
    ),
]
