"""Examples of saved extract configs against a real Redis (one server and a cluster): sealed at rest,
paged newest first, and gone with their config in the same step."""

from __future__ import annotations

import asyncio
import contextlib
import uuid

import pytest
import redis.asyncio as aioredis

from core import configs, examples, keys
from core.configs import ExtractParams
from core.errors import BadRequest, NotFound
from core.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.store]

PATIENT = "Wilhelmina Quackenbush"


def ws() -> str:
    return f"ws-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def settings() -> Settings:
    return Settings(secret="examples-test-secret")


async def _config(store: aioredis.Redis, workspace: str) -> configs.ConfigRecord:
    return await configs.create_config(
        store, workspace, name="intake", type="extract", params=ExtractParams(json_options=["name", "dob"])
    )


def _record(settings: Settings, config: configs.ConfigRecord, value: str = PATIENT) -> examples.ExampleRecord:
    return examples.seal_example(
        settings,
        config_uuid=config.id,
        config_id=config.config_id,
        file_id=f"file://{uuid.uuid4()}",
        fields={"name": {"value": value, "page": 1, "bounding_box": [1.0, 2.0, 3.0, 4.0]}, "dob": None},
        taught={"version": 1, "fields": {"name": {"value": value}}},
    )


async def test_an_example_is_sealed_at_rest_and_opens_whole(
    store: aioredis.Redis, settings: Settings
) -> None:
    workspace = ws()
    config = await _config(store, workspace)
    record = _record(settings, config)
    await examples.store_example(store, workspace, record)

    raw = await store.get(keys.config_example(workspace, config.id, record.id))
    assert raw and PATIENT not in raw and "Quackenbush" not in raw
    loaded = await examples.load_record(store, workspace, config.id, record.id)
    opened = examples.open_example(settings, loaded)
    assert opened.fields["name"] == {"value": PATIENT, "page": 1, "bounding_box": [1.0, 2.0, 3.0, 4.0]}
    assert opened.fields["dob"] is None
    assert opened.taught["fields"]["name"]["value"] == PATIENT
    assert opened.stored_bytes == len(loaded.sealed) > 0


async def test_examples_page_newest_first_and_feed_jobs(store: aioredis.Redis, settings: Settings) -> None:
    workspace = ws()
    config = await _config(store, workspace)
    stored = []
    for n in range(3):
        record = _record(settings, config, value=f"Patient {n}")
        await examples.store_example(store, workspace, record)
        stored.append(record.id)
    first = await examples.list_examples(store, settings, workspace, config.id, limit=2)
    assert [e["example_id"] for e in first.data] == stored[::-1][:2] and first.has_more
    rest = await examples.list_examples(
        store, settings, workspace, config.id, cursor=first.next_cursor, limit=2
    )
    assert [e["example_id"] for e in rest.data] == [stored[0]] and not rest.has_more
    assert "taught" not in first.data[0]

    for_job = await examples.examples_for_job(store, settings, workspace, config)
    assert [e["example_id"] for e in for_job] == stored[::-1]
    assert for_job[0]["taught"]["fields"]["name"]["value"] == "Patient 2"


async def test_a_config_without_examples_gives_jobs_none(store: aioredis.Redis, settings: Settings) -> None:
    workspace = ws()
    config = await _config(store, workspace)
    assert await examples.examples_for_job(store, settings, workspace, config) == []


async def test_deleting_the_config_deletes_its_examples(store: aioredis.Redis, settings: Settings) -> None:
    workspace = ws()
    config = await _config(store, workspace)
    kept = await _config(store, workspace)
    records = [_record(settings, config) for _ in range(2)]
    for record in records:
        await examples.store_example(store, workspace, record)
    other = _record(settings, kept)
    await examples.store_example(store, workspace, other)

    await configs.delete_config(store, workspace, config.config_id)

    for record in records:
        assert await store.exists(keys.config_example(workspace, config.id, record.id)) == 0
    assert await store.exists(keys.config_examples(workspace, config.id)) == 0
    assert await store.exists(keys.owner(config.id)) == 0
    # Another config's examples stay.
    assert await examples.load_record(store, workspace, kept.id, other.id)


async def test_no_example_is_stored_for_a_deleted_config(store: aioredis.Redis, settings: Settings) -> None:
    workspace = ws()
    config = await _config(store, workspace)
    await configs.delete_config(store, workspace, config.config_id)
    record = _record(settings, config)
    with pytest.raises(NotFound):
        await examples.store_example(store, workspace, record)
    assert await store.exists(keys.config_example(workspace, config.id, record.id)) == 0
    assert await store.exists(keys.config_examples(workspace, config.id)) == 0


async def test_deleting_an_example_takes_its_layout(store: aioredis.Redis, settings: Settings) -> None:
    workspace = ws()
    config = await _config(store, workspace)
    record = _record(settings, config)
    await examples.store_example(store, workspace, record)
    await examples.delete_example(store, workspace, record)
    assert await store.exists(keys.config_example(workspace, config.id, record.id)) == 0
    assert await store.zcard(keys.config_examples(workspace, config.id)) == 0
    with pytest.raises(NotFound):
        await examples.load_record(store, workspace, config.id, record.id)


async def test_a_config_keeps_a_bounded_number_of_examples(
    store: aioredis.Redis, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(examples, "MAX_EXAMPLES_PER_CONFIG", 2)
    workspace = ws()
    config = await _config(store, workspace)
    for _ in range(2):
        await examples.store_example(store, workspace, _record(settings, config))
    with pytest.raises(BadRequest, match="at most 2 examples"):
        await examples.store_example(store, workspace, _record(settings, config))
    assert await store.zcard(keys.config_examples(workspace, config.id)) == 2


async def test_examples_taught_while_the_config_is_deleted_never_outlive_it(
    store: aioredis.Redis, settings: Settings
) -> None:
    workspace = ws()
    for _ in range(5):
        config = await _config(store, workspace)
        await examples.store_example(store, workspace, _record(settings, config))

        async def teach_one(config: configs.ConfigRecord = config) -> None:
            with contextlib.suppress(NotFound):
                await examples.store_example(store, workspace, _record(settings, config))

        await asyncio.gather(
            *(teach_one() for _ in range(4)),
            configs.delete_config(store, workspace, config.config_id),
            *(teach_one() for _ in range(4)),
        )
        assert await store.exists(keys.config_examples(workspace, config.id)) == 0
        left = [k async for k in store.scan_iter(match=f"*:config:{config.id}:example:*", count=1000)]
        assert left == []
