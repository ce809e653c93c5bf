"""Store behaviour against a real Redis: keys, rate limits, agents, pagination."""

from __future__ import annotations

import asyncio
import uuid

import pytest
import redis.asyncio as aioredis

from core.infra import keys
from core.infra.errors import BadRequest, Forbidden, NotFound, Unauthorized
from core.infra.ratelimit import RateLimiter
from core.infra.store import MAX_CONNECTIONS, async_client
from core.stores import agents, apikeys, audit

pytestmark = [pytest.mark.integration, pytest.mark.store]


def ws() -> str:
    return f"ws-{uuid.uuid4().hex[:8]}"


async def test_key_is_stored_hashed_and_authenticates(store: aioredis.Redis) -> None:
    workspace = await apikeys.get_or_create_workspace(store, ws())
    issued = await apikeys.create_key(store, workspace.id, label="ci")
    assert issued.key.startswith(f"agk_{issued.record.key_id}_")
    secret = issued.key.split("_", 2)[2]
    raw = await store.get(keys.api_key(issued.record.key_id))
    assert raw is not None and secret not in raw
    principal = await apikeys.authenticate(store, f"Bearer {issued.key}")
    assert principal.workspace_id == workspace.id and principal.key_id == issued.record.key_id


@pytest.mark.parametrize(
    "header",
    [None, "", "Basic abc", "Bearer ", "Bearer agk_nothex_secret", "Bearer agk_0123456789abcdef_" + "x" * 40],
)
async def test_bad_credentials_are_401(store: aioredis.Redis, header: str | None) -> None:
    with pytest.raises(Unauthorized):
        await apikeys.authenticate(store, header)


async def test_wrong_secret_and_revoked_key_are_401(store: aioredis.Redis) -> None:
    workspace = await apikeys.get_or_create_workspace(store, ws())
    issued = await apikeys.create_key(store, workspace.id)
    tampered = issued.key[:-4] + ("aaaa" if not issued.key.endswith("aaaa") else "bbbb")
    with pytest.raises(Unauthorized):
        await apikeys.authenticate(store, f"Bearer {tampered}")
    await apikeys.revoke_key(store, issued.record.key_id)
    with pytest.raises(Unauthorized, match="revoked"):
        await apikeys.authenticate(store, f"Bearer {issued.key}")
    listed = await apikeys.list_keys(store, workspace.id)
    assert [k.revoked_at is not None for k in listed] == [True]


async def test_workspace_creation_race_yields_one_workspace(store: aioredis.Redis) -> None:
    name = ws()
    created = await asyncio.gather(*(apikeys.get_or_create_workspace(store, name) for _ in range(10)))
    assert len({w.id for w in created}) == 1


async def test_gcra_allows_the_quota_then_refuses_with_retry_after(store: aioredis.Redis) -> None:
    limiter = RateLimiter(store)
    key = f"test:rl:{uuid.uuid4()}"
    decisions = [await limiter.hit(key, requests=5, period_seconds=60) for _ in range(6)]
    assert [d.allowed for d in decisions] == [True] * 5 + [False]
    assert decisions[-1].retry_after_seconds >= 1
    assert decisions[-1].retry_after_seconds <= 12


async def test_agent_versions_and_group_fields(store: aioredis.Redis) -> None:
    w = ws()
    first = await agents.create_agent(store, w)
    assert first.name.startswith("Untitled Agent ") and first.version_number == 1
    assert first.status == "published" and "delegate_tasks" in first.config["tools"]
    second = await agents.create_agent(store, w)
    assert int(second.name.split()[-1]) == int(first.name.split()[-1]) + 1

    v2 = await agents.update_agent(store, w, first.id, config={"system_prompt": "v2"})
    assert v2.id != first.id and v2.version_number == 2 and v2.agent_group_id == first.agent_group_id
    old = await agents.get_agent(store, w, first.id)
    assert old.status == "archived" and old.config["system_prompt"] == ""
    renamed = await agents.update_agent(store, w, first.id, name="Intake", is_active=False)
    assert renamed.id == v2.id and renamed.name == "Intake" and not renamed.is_active
    versions = await agents.list_versions(store, w, v2.id, cursor=None, limit=None)
    assert [a["version_number"] for a in versions.data] == [2, 1]
    with pytest.raises(Forbidden):
        await agents.version_for_run(store, w, v2.id, None)


async def test_concurrent_publishes_get_distinct_version_numbers(store: aioredis.Redis) -> None:
    w = ws()
    agent = await agents.create_agent(store, w, name="busy")
    results = await asyncio.gather(
        *(agents.update_agent(store, w, agent.id, config={"n": i}) for i in range(8))
    )
    assert sorted(r.version_number for r in results) == list(range(2, 10))


async def test_list_pagination_newest_first(store: aioredis.Redis) -> None:
    w = ws()
    created = [await agents.create_agent(store, w, name=f"a{i}") for i in range(5)]
    seen: list[str] = []
    cursor = None
    while True:
        page = await agents.list_agents(store, w, cursor=cursor, limit=2)
        seen += [a["name"] for a in page.data]
        if not page.has_more:
            assert page.next_cursor == ""
            break
        cursor = page.next_cursor
    assert seen == [a.name for a in reversed(created)]
    with pytest.raises(BadRequest):
        await agents.list_agents(store, w, cursor=None, limit=101)


async def test_delete_hides_every_version_and_other_workspaces_get_403(store: aioredis.Redis) -> None:
    w, other = ws(), ws()
    agent = await agents.create_agent(store, w, name="gone")
    v2 = await agents.update_agent(store, w, agent.id, config={})
    with pytest.raises(Forbidden):
        await agents.get_agent(store, other, agent.id)
    await agents.delete_agent(store, w, agent.id)
    for agent_id in (agent.id, v2.id):
        with pytest.raises(NotFound):
            await agents.get_agent(store, w, agent_id)
    page = await agents.list_agents(store, w, cursor=None, limit=None)
    assert page.data == []
    with pytest.raises(NotFound):
        await agents.get_agent(store, w, str(uuid.uuid4()))


async def test_audit_entries_newest_first(store: aioredis.Redis) -> None:
    w = ws()
    for i in range(3):
        await audit.record(store, w, "task.data_fields_read", key_id="k", task_ids=[str(i)])
    page = await audit.list_entries(store, w, cursor=None, limit=2)
    assert [e["task_ids"] for e in page.data] == [["2"], ["1"]] and page.has_more


async def test_more_concurrent_calls_than_connections_wait_instead_of_failing(store_url: str) -> None:
    """Past the pool's size a call waits for a free connection; redis-py's default pool raised."""
    client = async_client(store_url)
    try:
        calls = [client.blpop([f"absent-{i}"], timeout=0.2) for i in range(MAX_CONNECTIONS + 50)]
        assert await asyncio.gather(*calls) == [None] * (MAX_CONNECTIONS + 50)
    finally:
        await client.aclose()
