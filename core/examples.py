"""Examples of saved extract configs: one corrected document of a form design, kept to read later ones.

An example holds patient data: the values a reviewer confirmed and the layout the engine taught from
them (`extraction.examples.Taught`, as JSON). Both are sealed at rest (core.secretbox, purpose
`examples`); only the ids, the file it came from, its size and its time stay readable. Everything of
an example lives in its workspace's hash slot, beside its config:

- `ag:{ws}:config:<config uuid>:example:<example id>`: the record;
- `ag:{ws}:config:<config uuid>:examples`: the config's examples, newest first.

Teaching and deleting the config race safely: an example is stored only while its config still
exists (the config's key is watched), and the config's delete takes every example listed at that
moment in the same MULTI (the index is watched), so no example outlives its config.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis
from redis.exceptions import WatchError

from core import keys
from core.configs import ConfigRecord, config_key, public_config_id
from core.errors import BadRequest, NotFound
from core.ids import new_id, now_iso, parse_uuid, sort_key, utcnow
from core.models import PageOf, Record
from core.pagination import check_limit, member_id, newest_first

if TYPE_CHECKING:
    from core.secretbox import SecretBox
    from core.settings import Settings

#: Key purpose of the sealed part of an example (core.secretbox).
SEAL_PURPOSE = "examples"
#: Most examples one config keeps: matching reads every one of them for each document.
MAX_EXAMPLES_PER_CONFIG = 100


class ExampleRecord(Record):
    """What Redis holds: the readable ids, and `sealed` = the values and the taught layout."""

    id: str
    config_uuid: str
    config_id: str
    file_id: str
    created_at: str
    index_member: str
    #: The bytes the example takes in the store (its sealed part), counted as the workspace's data.
    stored_bytes: int
    sealed: str


class Example(Record):
    """An example opened: the public fields and the taught layout the engine reads from."""

    example_id: str
    config_id: str
    file_id: str
    fields: dict[str, dict[str, Any] | None]
    created_at: str
    stored_bytes: int
    taught: dict[str, Any]

    def resource(self) -> dict[str, Any]:
        """The example as the API shows it (no taught layout: it is the engine's own)."""
        return {
            "example_id": self.example_id,
            "config_id": self.config_id,
            "file_id": self.file_id,
            "fields": self.fields,
            "created_at": self.created_at,
        }


def _box(settings: Settings) -> SecretBox:
    from core.secretbox import SecretBox

    return SecretBox(settings.resolved_secret(), SEAL_PURPOSE)


def parse_example_id(value: str) -> str:
    return parse_uuid(value.strip(), what="example_id")


def seal_example(
    settings: Settings,
    *,
    config_uuid: str,
    config_id: str,
    file_id: str,
    fields: dict[str, dict[str, Any] | None],
    taught: dict[str, Any],
) -> ExampleRecord:
    """A new example's record, its values and layout sealed (nothing stored yet)."""
    example_id = new_id()
    sealed = _box(settings).seal(json.dumps({"fields": fields, "taught": taught}, ensure_ascii=False))
    return ExampleRecord(
        id=example_id,
        config_uuid=config_uuid,
        config_id=config_id,
        file_id=file_id,
        created_at=now_iso(),
        index_member=sort_key(utcnow(), example_id),
        stored_bytes=len(sealed),
        sealed=sealed,
    )


def open_example(settings: Settings, record: ExampleRecord) -> Example:
    opened = json.loads(_box(settings).open(record.sealed))
    return Example(
        example_id=record.id,
        config_id=record.config_id,
        file_id=record.file_id,
        fields=opened["fields"],
        created_at=record.created_at,
        stored_bytes=record.stored_bytes,
        taught=opened["taught"],
    )


async def store_example(redis: aioredis.Redis, workspace_id: str, record: ExampleRecord) -> None:
    """Store the example while its config exists (404 once the config is gone); 400 past
    `MAX_EXAMPLES_PER_CONFIG`. One MULTI in the workspace's slot."""
    config = config_key(workspace_id, record.config_uuid)
    index = keys.config_examples(workspace_id, record.config_uuid)
    while True:
        async with redis.pipeline(transaction=True) as pipe:
            try:
                await pipe.watch(config, index)
                # GET, not EXISTS: a cluster pipeline splits EXISTS by slot and, once watching, never sends it.
                if await pipe.get(config) is None:
                    raise NotFound(f"config {public_config_id(record.config_uuid)} not found")
                if await pipe.zcard(index) >= MAX_EXAMPLES_PER_CONFIG:
                    raise BadRequest(f"a config keeps at most {MAX_EXAMPLES_PER_CONFIG} examples")
                pipe.multi()
                pipe.set(
                    keys.config_example(workspace_id, record.config_uuid, record.id), record.model_dump_json()
                )
                pipe.zadd(index, {record.index_member: 0})
                await pipe.execute()
                return
            except WatchError:
                continue


async def load_record(
    redis: aioredis.Redis, workspace_id: str, config_uuid: str, example_id: str
) -> ExampleRecord:
    example_uuid = parse_example_id(example_id)
    raw = await redis.get(keys.config_example(workspace_id, config_uuid, example_uuid))
    if not raw:
        raise NotFound(f"example {example_uuid} not found")
    return ExampleRecord.model_validate_json(raw)


async def list_examples(
    redis: aioredis.Redis,
    settings: Settings,
    workspace_id: str,
    config_uuid: str,
    *,
    cursor: str | None = None,
    limit: int | None = None,
) -> PageOf:
    """One cursor page of the config's examples, newest first, as the API shows them."""
    index = keys.config_examples(workspace_id, config_uuid)
    page = await newest_first(redis, index, cursor=cursor, limit=check_limit(limit))
    ids = [member_id(m) for m in page.members]
    raws = await redis.mget([keys.config_example(workspace_id, config_uuid, i) for i in ids]) if ids else []
    data = [open_example(settings, ExampleRecord.model_validate_json(r)).resource() for r in raws if r]
    return PageOf(data=data, has_more=page.has_more, next_cursor=page.next_cursor)


async def all_examples(
    redis: aioredis.Redis, settings: Settings, workspace_id: str, config_uuid: str
) -> list[Example]:
    """Every example of the config, newest first (what an extraction with the config follows)."""
    index = keys.config_examples(workspace_id, config_uuid)
    members: list[str] = await redis.zrevrangebylex(index, "+", "-")
    ids = [member_id(m) for m in members]
    raws = await redis.mget([keys.config_example(workspace_id, config_uuid, i) for i in ids]) if ids else []
    return [open_example(settings, ExampleRecord.model_validate_json(r)) for r in raws if r]


async def delete_example(redis: aioredis.Redis, workspace_id: str, record: ExampleRecord) -> None:
    """Forget the example and its taught layout (they are one record) in one MULTI."""
    async with redis.pipeline(transaction=True) as pipe:
        pipe.delete(keys.config_example(workspace_id, record.config_uuid, record.id))
        pipe.zrem(keys.config_examples(workspace_id, record.config_uuid), record.index_member)
        await pipe.execute()


async def examples_for_job(
    redis: aioredis.Redis, settings: Settings, workspace_id: str, config: ConfigRecord
) -> list[dict[str, Any]]:
    """What an extract job run with `config` carries in its params: `[{example_id, taught}]`,
    newest first; [] for a config of another type or without examples."""
    if config.type != "extract":
        return []
    found = await all_examples(redis, settings, workspace_id, config.id)
    return [{"example_id": e.example_id, "taught": e.taught} for e in found]


def with_examples(params: dict[str, Any], taught: list[dict[str, Any]]) -> dict[str, Any]:
    """A job's params carrying its config's examples (`examples_for_job`); unchanged without any."""
    return {**params, "examples": taught} if taught else params
