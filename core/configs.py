"""Saved extraction configs (`config://<uuid>`) and the params of parse, extract and classify.

The params models are the one definition of what each job accepts: inline configs in a request,
saved configs and the agent tools all validate through them, so a saved config can always be used
where an inline one could. Records live at `ag:{ws}:config:<uuid>`, indexed newest first at
`ag:{ws}:configs`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NoReturn
from urllib.parse import unquote

import redis.asyncio as aioredis
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator
from redis.exceptions import WatchError

from core import keys, slots
from core.errors import Forbidden, NotFound
from core.ids import new_id, now_iso, parse_uuid, sort_key, utcnow
from core.models import PageOf, Record
from core.pagination import check_limit, member_id, newest_first

#: docs/spec.md, Saved config: `config_id` has the format `config://<uuid>`.
CONFIG_SCHEME = "config://"
#: Longest `custom_instructions` accepted (they go into a model prompt).
MAX_INSTRUCTIONS_CHARS = 4000
#: Most fields one extraction may name.
MAX_FIELDS = 200
#: Most categories one classification may name.
MAX_CATEGORIES = 100
#: Longest field name, category name or description.
MAX_NAME_CHARS = 200
MAX_DESCRIPTION_CHARS = 1000
#: Longest config name.
MAX_CONFIG_NAME_CHARS = 200

ConfigType = Literal["parse", "extract", "classify"]
#: docs/contract.md section 7: `auto` (rules, then the model when one is configured and the rules leave
#: fields empty), `rules` (no model call), `model` (model only).
PromptMode = Literal["auto", "rules", "model"]

#: A field or category name: one line of text (it heads a CSV column and keys a JSON object).
Name = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, min_length=1, max_length=MAX_NAME_CHARS, pattern=r"^[^\x00-\x1f\x7f]+$"
    ),
]
Instructions = Annotated[str, StringConstraints(max_length=MAX_INSTRUCTIONS_CHARS)]


class Params(BaseModel):
    """Unknown keys are refused (422), so a typo never silently falls back to a default."""

    model_config = ConfigDict(extra="forbid")


class MarkdownOptions(Params):
    #: Keep the `<!-- page N -->` comment that opens each page (it lets a reader cite pages).
    page_markers: bool = True


class ParseParams(Params):
    #: `markdown` (default), `text` (plain text) or `json` (the elements as JSON text).
    output_format: Literal["markdown", "text", "json"] = "markdown"
    #: Accepted as docs/spec.md lists it; parsing reads the document itself and asks no model, so
    #: neither this nor `prompt_mode` changes a parse (`model` still needs a configured model).
    custom_instructions: Instructions | None = None
    prompt_mode: PromptMode = "auto"
    markdown_options: MarkdownOptions = Field(default_factory=MarkdownOptions)
    #: Add `result.metadata` (format, page count, file size, sha256).
    include_metadata: bool = False


class CsvOptions(Params):
    #: Start the CSV with a row of the field names.
    include_header: bool = True


class ExtractParams(Params):
    output_format: Literal["json", "csv"] = "json"
    #: The names of the fields to extract (docs/spec.md: "array of field names to extract").
    json_options: list[Name] = Field(min_length=1, max_length=MAX_FIELDS)
    csv_options: CsvOptions = Field(default_factory=CsvOptions)
    custom_instructions: Instructions | None = None
    prompt_mode: PromptMode = "auto"
    include_metadata: bool = False
    #: How a numeric date whose day and month could swap is read: `MDY` (12/03/2001 is December 3),
    #: `DMY` or `YMD`; unset, the server's `AGENTRY_DATE_ORDER`, else the document's own dates and
    #: locale decide. Date values come back as ISO dates.
    date_order: Literal["MDY", "DMY", "YMD"] | None = None

    @field_validator("json_options")
    @classmethod
    def _distinct(cls, names: list[str]) -> list[str]:
        if len({n.casefold() for n in names}) != len(names):
            raise ValueError("field names must be distinct")
        return names


class Category(Params):
    name: Name
    description: Annotated[str, StringConstraints(max_length=MAX_DESCRIPTION_CHARS)] = ""


class ClassifyParams(Params):
    #: Each item is a name or `{name, description}` (docs/contract.md section 7).
    categories: list[Category | Name] = Field(min_length=1, max_length=MAX_CATEGORIES)
    mode: Literal["document", "split"] = "document"
    #: `rules` never asks the model; `auto` and `model` let it decide what the rules are unsure of.
    prompt_mode: PromptMode = "auto"

    @field_validator("categories")
    @classmethod
    def _distinct(cls, items: list[Category | str]) -> list[Category | str]:
        names = [item.name if isinstance(item, Category) else item for item in items]
        if len({n.casefold() for n in names}) != len(names):
            raise ValueError("category names must be distinct")
        return items

    def category_list(self) -> list[Category]:
        return [item if isinstance(item, Category) else Category(name=item) for item in self.categories]


AnyParams = ParseParams | ExtractParams | ClassifyParams

PARAMS_BY_TYPE: dict[str, type[Params]] = {
    "parse": ParseParams,
    "extract": ExtractParams,
    "classify": ClassifyParams,
}


class ConfigRecord(Record):
    id: str
    config_id: str
    workspace_id: str
    name: str
    type: ConfigType
    params: dict[str, Any]
    created_at: str
    updated_at: str
    index_member: str

    def resource(self) -> dict[str, Any]:
        """The Saved config fields of docs/spec.md (without `success`)."""
        return {
            "config_id": self.config_id,
            "name": self.name,
            "type": self.type,
            "params": self.params,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }

    def typed_params(self) -> AnyParams:
        params = PARAMS_BY_TYPE[self.type].model_validate(self.params)
        assert isinstance(params, ParseParams | ExtractParams | ClassifyParams)
        return params


def config_key(workspace_id: str, config_uuid: str) -> str:
    return keys.ws(workspace_id, "config", config_uuid)


def configs_index(workspace_id: str) -> str:
    return keys.ws(workspace_id, "configs")


def parse_config_id(value: str) -> str:
    """The uuid of `<uuid>`, `config://<uuid>` or its URL-encoded form; 400 otherwise."""
    text = unquote(value.strip()) if "%" in value else value.strip()
    if text.startswith(CONFIG_SCHEME):
        text = text[len(CONFIG_SCHEME) :]
    return parse_uuid(text, what="config_id")


def public_config_id(config_uuid: str) -> str:
    return f"{CONFIG_SCHEME}{config_uuid}"


async def create_config(
    redis: aioredis.Redis, workspace_id: str, *, name: str, type: ConfigType, params: AnyParams
) -> ConfigRecord:
    """Store validated params; they are kept with their defaults filled in."""
    config_uuid = new_id()
    moment = utcnow()
    stamp = now_iso()
    record = ConfigRecord(
        id=config_uuid,
        config_id=public_config_id(config_uuid),
        workspace_id=workspace_id,
        name=name,
        type=type,
        params=params.model_dump(mode="json"),
        created_at=stamp,
        updated_at=stamp,
        index_member=sort_key(moment, config_uuid),
    )
    # On a cluster the global pointers (owner, indexes) commit first: a crash before the rest leaves a
    # pointer to nothing, read as 404 or dropped, never a record nobody can find (core.slots).
    async with slots.transaction(redis, global_first=True) as pipe:
        pipe.set(keys.owner(config_uuid), workspace_id)
        pipe.set(config_key(workspace_id, config_uuid), record.model_dump_json())
        pipe.zadd(configs_index(workspace_id), {record.index_member: 0})
        await pipe.execute()
    return record


async def _owned(redis: aioredis.Redis, workspace_id: str, config_uuid: str) -> NoReturn:
    owner = await redis.get(keys.owner(config_uuid))
    if owner and owner != workspace_id:
        raise Forbidden(f"config {public_config_id(config_uuid)} belongs to another workspace")
    raise NotFound(f"config {public_config_id(config_uuid)} not found")


async def get_config(redis: aioredis.Redis, workspace_id: str, config_id: str) -> ConfigRecord:
    config_uuid = parse_config_id(config_id)
    raw = await redis.get(config_key(workspace_id, config_uuid))
    if not raw:
        await _owned(redis, workspace_id, config_uuid)
    return ConfigRecord.model_validate_json(raw)


async def list_configs(
    redis: aioredis.Redis, workspace_id: str, *, cursor: str | None = None, limit: int | None = None
) -> PageOf:
    page = await newest_first(redis, configs_index(workspace_id), cursor=cursor, limit=check_limit(limit))
    ids = [member_id(m) for m in page.members]
    raws = await redis.mget([config_key(workspace_id, i) for i in ids]) if ids else []
    data = [ConfigRecord.model_validate_json(r).resource() for r in raws if r]
    return PageOf(data=data, has_more=page.has_more, next_cursor=page.next_cursor)


async def delete_config(redis: aioredis.Redis, workspace_id: str, config_id: str) -> ConfigRecord:
    """Delete the config and every example taught on it (core.examples) in one step."""
    record = await get_config(redis, workspace_id, config_id)
    examples = keys.config_examples(workspace_id, record.id)
    while True:
        async with redis.pipeline(transaction=True) as pipe, slots.global_step(redis, pipe) as global_pipe:
            try:
                # Watched: an example taught meanwhile makes the step start again and go with the rest.
                await pipe.watch(examples)
                members: list[str] = await pipe.zrange(examples, 0, -1)
                pipe.multi()
                pipe.delete(config_key(workspace_id, record.id))
                pipe.zrem(configs_index(workspace_id), record.index_member)
                for member in members:
                    pipe.delete(keys.config_example(workspace_id, record.id, member_id(member)))
                pipe.delete(examples)
                global_pipe.delete(keys.owner(record.id))
                await pipe.execute()
                # On a cluster the global pointer goes after the record: a crash between leaves a
                # pointer to nothing, read as 404 (core.slots).
                await global_pipe.execute()
                return record
            except WatchError:
                continue
