"""Ending a task well: its summary, structured output, data fields and citations, written with the
transition."""

from __future__ import annotations

import logging
import uuid
from typing import Any

import redis.asyncio as aioredis

from actors import data_fields
from actors.citations import ground_structured
from actors.conversation import build_messages
from actors.models.base import ModelConfigError, ModelError, ModelResponse
from actors.models.extraction import extraction_model
from actors.models.resolve import resolve_model
from actors.policy import AgentPolicy
from actors.step_markers import model_step
from actors.usage import record_model_call
from core import tasks
from core.infra.settings import Settings
from core.tasks import Task, dumps
from core.tasks import finish as task_finish

log = logging.getLogger(__name__)

_FIELD_NAMESPACE = uuid.UUID("6f1d2a3e-8c4b-4e59-9a77-2f6c1b0e5d41")


def data_field_values(steps: dict[str, Any]) -> dict[str, Any]:
    """Data field values written by the model over the task's steps; a later step wins."""
    values: dict[str, Any] = {}
    numbered = sorted(
        (step, record)
        for marker, record in steps.items()
        if (step := model_step(marker)) is not None and isinstance(record, dict)
    )
    for _, record in numbered:
        values |= record.get("data_fields") or {}
    return values


def data_fields_payload(
    task: Task,
    policy: AgentPolicy,
    values: dict[str, Any],
    citations: dict[str, list[dict[str, Any]]] | None = None,
) -> list[dict[str, Any]]:
    """docs/spec.md's Data field items: the agent's declared fields that have a value; a value found in
    the task's documents carries its `citations`."""
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
        if citations and citations.get(key):
            items[-1]["citations"] = citations[key]
    return items


async def extracted_fields(
    redis: aioredis.Redis,
    settings: Settings,
    task: Task,
    policy: AgentPolicy,
    response: ModelResponse,
    steps: dict[str, Any],
) -> dict[str, Any]:
    """The declared data fields' values, extracted by the task's own model in one structured call.

    Recorded once (marker `data_fields`), so a runner started again after a crash does not pay
    twice. A scripted model sets its values in its turns instead. Best effort: a failed call leaves
    the fields absent rather than failing a task whose work is done.
    """
    recorded = steps.get("data_fields")
    if isinstance(recorded, dict):
        return dict(recorded.get("values") or {})
    try:
        model = await resolve_model(policy.model, settings, redis=redis, workspace_id=task.workspace_id)
    except ModelConfigError:
        return {}
    if model.label == "scripted":
        return {}
    feed = await tasks.read_feed(redis, task.workspace_id, task.id)
    try:
        values, answer = await data_fields.extract(
            model.provider,
            policy.data_fields,
            build_messages(policy.system_prompt, feed),
            response.text,
            task.structured if task.has_structured else response.structured,
            call_index=task.model_calls,
            query=task.spec.query,
        )
    except ModelError as exc:
        log.warning("task %s: data fields could not be extracted (%s)", task.id, exc.message[:200])
        return {}
    await record_model_call(
        redis,
        task,
        "data_fields",
        {"values": values},
        "data_fields",
        answer.usage,
        increments={"model_calls": 1},
    )
    return values


async def complete(
    redis: aioredis.Redis,
    settings: Settings,
    task: Task,
    policy: AgentPolicy,
    response: ModelResponse,
    steps: dict[str, Any],
    *,
    lease_holder: str,
) -> bool:
    """Complete the task (`core.tasks.finish`); True when it was still running and is now completed,
    its slot freed and the lease of `lease_holder` released."""
    fields: dict[str, str] = {"summary": response.text or ""}
    values = data_field_values(steps)
    if policy.data_fields and not values:
        values = await extracted_fields(redis, settings, task, policy, response, steps)
    value_citations: dict[str, list[dict[str, Any]]] = {}
    if values:
        grounded = await ground_structured(
            redis, settings, task.workspace_id, task.id, values, model_factory=extraction_model
        )
        value_citations = (grounded or {}).get("leaves") or {}
    fields["data_fields"] = dumps(data_fields_payload(task, policy, values, value_citations))
    if policy.keep_citations and task.has_structured:
        citations = await ground_structured(
            redis, settings, task.workspace_id, task.id, task.structured, model_factory=extraction_model
        )
        if citations is not None:
            fields["citations"] = dumps(citations)
    done = await task_finish.complete(redis, task, fields=fields, drop=["pause"], lease_holder=lease_holder)
    if done.applied:
        await task_finish.after_complete(redis, done)
    return done.applied
