"""A reviewer's corrections of extracted values: an extraction job's fields and a task's
structured output leaves, each with who made it and when.

`ag:{ws}:corrections:<job|task>:<id>` is a hash, one member per field name (a job) or leaf path (a
task, as `a.b[0].c`) whose value is `{value, checked, by: {key_id, name}, at}` as JSON. A PUT merges
its entries into the hash in one MULTI with its audit entry (the entry names the fields, never
their values): a correction is kept with its audit trail, or neither is. A null entry withdraws
that field's correction. The hash lives in the resource's workspace, so an id of another
workspace never reaches it. It holds patient data: it is never logged.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import redis.asyncio as aioredis
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

from core.infra import keys
from core.infra.errors import AgentryError, Unprocessable
from core.infra.ids import now_iso
from core.stores import apikeys, audit

#: Entries one request may set (a document's fields, a task output's leaves, with room to spare).
MAX_ENTRIES = 200
#: Longest corrected text value, and longest field name or leaf path.
MAX_VALUE_CHARS = 10_000
MAX_NAME_CHARS = 500

Kind = Literal["job", "task"]
Value = Annotated[StrictStr, Field(max_length=MAX_VALUE_CHARS)] | StrictInt | StrictFloat | StrictBool | None


class Correction(BaseModel):
    """The right value of one field, and whether a reviewer checked it against the document."""

    model_config = ConfigDict(extra="forbid")

    value: Value = Field(
        description="The right value (text, number, boolean), null when the document has none."
    )
    checked: StrictBool = Field(
        default=False, description="Whether a reviewer checked it against the document."
    )


Entries = Annotated[
    dict[Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS)], Correction | None],
    Field(min_length=1, max_length=MAX_ENTRIES),
]


class JobCorrections(BaseModel):
    """`PUT /api/v2/jobs/{record_id}/corrections`: `{fields: {name: {value, checked} | null}}`."""

    model_config = ConfigDict(extra="forbid")

    fields: Entries


class TaskCorrections(BaseModel):
    """`PUT /api/v1/tasks/{task_id}/corrections`: `{paths: {path: {value, checked} | null}}`."""

    model_config = ConfigDict(extra="forbid")

    paths: Entries


class KeptBy(BaseModel):
    key_id: str = Field(description="The id of the API key the correction was made with.")
    name: str = Field(description="That key's label (empty when it has none).")


class KeptCorrection(BaseModel):
    """A correction as the service keeps it."""

    value: Value
    checked: bool
    by: KeptBy
    at: str = Field(description="When it was made (ISO 8601, UTC).")


class JobCorrectionsReply(BaseModel):
    success: bool
    record_id: str
    corrections: dict[str, KeptCorrection]


class TaskCorrectionsReply(BaseModel):
    task_id: str
    corrections: dict[str, KeptCorrection]


def corrections_key(workspace_id: str, kind: Kind, resource_id: str) -> str:
    return keys.ws(workspace_id, "corrections", kind, resource_id)


def leaf_paths(value: Any, path: str = "") -> set[str]:
    """The paths of a structured output's leaves, written as its citations name them (`a.b[0].c`);
    keys starting with `__` are the service's own and name nothing."""
    if isinstance(value, dict):
        found: set[str] = set()
        for key, child in value.items():
            if not str(key).startswith("__"):
                found |= leaf_paths(child, f"{path}.{key}" if path else str(key))
        return found
    if isinstance(value, list):
        return set().union(*(leaf_paths(child, f"{path}[{i}]") for i, child in enumerate(value)))
    return {path} if path else set()


def check_names(
    given: dict[str, Any], known: set[str], what: str, error: type[AgentryError] = Unprocessable
) -> None:
    """`error` (422 on /api/v2; /api/v1 answers bad input 400) naming every entry that is not one
    of the resource's `what`."""
    unknown = sorted(name for name in given if name not in known)
    if unknown:
        raise error(f"not {what} of this result: {', '.join(unknown)}")


async def save(
    redis: aioredis.Redis,
    workspace_id: str,
    kind: Kind,
    resource_id: str,
    entries: dict[str, Correction | None],
    *,
    key_id: str,
) -> dict[str, Any]:
    """Merge `entries` into the resource's corrections (a null entry withdraws one) and return them
    all, each made `by` the API key `key_id` (its id and its name, the label it was issued with).
    The audit entry `<kind>.corrected` commits with them."""
    at = now_iso()
    by = {"key_id": key_id, "name": (await apikeys.load_key(redis, key_id)).label}
    kept = {
        name: json.dumps({"value": c.value, "checked": c.checked, "by": by, "at": at}, ensure_ascii=False)
        for name, c in entries.items()
        if c is not None
    }
    withdrawn = [name for name, c in entries.items() if c is None]
    key = corrections_key(workspace_id, kind, resource_id)
    async with redis.pipeline(transaction=True) as pipe:
        if kept:
            pipe.hset(key, mapping=kept)
        if withdrawn:
            pipe.hdel(key, *withdrawn)
        audit.queue(
            pipe,
            workspace_id,
            f"{kind}.corrected",
            key_id=key_id,
            task_ids=[resource_id] if kind == "task" else [],
            details={
                f"{kind}_id": resource_id,
                "corrected": sorted(kept),
                "withdrawn": sorted(withdrawn),
                "checked": sum(1 for c in entries.values() if c is not None and c.checked),
            },
        )
        pipe.hgetall(key)
        replies = await pipe.execute()
    return _decoded(replies[-1])


async def read(redis: aioredis.Redis, workspace_id: str, kind: Kind, resource_id: str) -> dict[str, Any]:
    """The resource's corrections, `{name: {value, checked, by, at}}` ({} for none)."""
    return _decoded(await redis.hgetall(corrections_key(workspace_id, kind, resource_id)))


def _decoded(raw: dict[Any, Any]) -> dict[str, Any]:
    def text(x: Any) -> str:
        return x.decode() if isinstance(x, bytes) else str(x)

    return {text(name): json.loads(text(value)) for name, value in sorted(raw.items())}
