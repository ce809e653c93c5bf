"""Ending a task well: its summary, structured output, data fields and citations, written with the
transition."""

from __future__ import annotations

import uuid
from typing import Any

import redis.asyncio as aioredis

from actors.citations import ground_structured
from actors.models.base import ModelResponse
from actors.models.extraction import extraction_model
from actors.policy import AgentPolicy
from core import tasks
from core.settings import Settings
from core.state_machine import TaskStatus
from core.tasks import Task, dumps

_FIELD_NAMESPACE = uuid.UUID("6f1d2a3e-8c4b-4e59-9a77-2f6c1b0e5d41")


def data_field_values(steps: dict[str, Any]) -> dict[str, Any]:
    """Data field values written by the model over the task's steps; a later step wins."""
    values: dict[str, Any] = {}
    numbered = sorted(
        (int(marker[1:].split(":", 1)[0]), record)
        for marker, record in steps.items()
        if marker.endswith(":model") and isinstance(record, dict)
    )
    for _, record in numbered:
        values |= record.get("data_fields") or {}
    return values


def data_fields_payload(task: Task, policy: AgentPolicy, values: dict[str, Any]) -> list[dict[str, Any]]:
    """docs/spec.md's Data field items: the agent's declared fields that have a value."""
    items = []
    for spec in policy.data_fields:
        key = str(spec["key"])
        if key not in values:
            continue
        items.append(
            {
                "id": str(uuid.uuid5(_FIELD_NAMESPACE, f"{task.id}:{key}")),
                "logical_field_id": str(uuid.uuid5(_FIELD_NAMESPACE, f"{task.spec.agent_group_id}:{key}")),
                "key": key,
                "value": values[key],
                "key_type": str(spec.get("key_type") or "string"),
                "description": str(spec.get("description") or ""),
            }
        )
    return items


async def complete(
    redis: aioredis.Redis,
    settings: Settings,
    task: Task,
    policy: AgentPolicy,
    response: ModelResponse,
    steps: dict[str, Any],
) -> bool:
    fields: dict[str, str] = {"summary": response.text or ""}
    values = data_field_values(steps)
    fields["data_fields"] = dumps(data_fields_payload(task, policy, values))
    if policy.keep_citations and task.has_structured:
        citations = await ground_structured(
            redis, settings, task.workspace_id, task.id, task.structured, model_factory=extraction_model
        )
        if citations is not None:
            fields["citations"] = dumps(citations)
    applied, _ = await tasks.transition(
        redis,
        task,
        TaskStatus.COMPLETED.value,
        fields=fields,
        drop=["pause"],
        expected=TaskStatus.RUNNING.value,
    )
    return applied
