"""The agents API through HTTP on the running Serve application."""

from __future__ import annotations

import uuid

import httpx
import pytest
from agentry_client import BadRequest, Client

from tests.integration.conftest import Service

pytestmark = pytest.mark.integration


def test_create_defaults_and_get(api: httpx.Client) -> None:
    created = api.post("/api/v1/agents", json={})
    assert created.status_code == 201
    agent = created.json()
    assert agent["name"].startswith("Untitled Agent ")
    assert agent["version_number"] == 1 and agent["status"] == "published"
    assert agent["config"]["system_prompt"] == "" and "ask_user" in agent["config"]["tools"]
    assert api.get(f"/api/v1/agents/{agent['id']}").json() == agent


def test_patch_publishes_a_new_version_and_archives_the_old(api: httpx.Client) -> None:
    agent = api.post("/api/v1/agents", json={"name": "Intake", "config": {"system_prompt": "one"}}).json()
    v2 = api.patch(f"/api/v1/agents/{agent['id']}", json={"config": {"system_prompt": "two"}}).json()
    assert v2["id"] != agent["id"] and v2["version_number"] == 2
    assert v2["agent_group_id"] == agent["agent_group_id"]
    assert api.get(f"/api/v1/agents/{agent['id']}").json()["status"] == "archived"
    renamed = api.patch(f"/api/v1/agents/{v2['id']}", json={"name": "Intake 2", "is_public": True}).json()
    assert renamed["id"] == v2["id"] and renamed["name"] == "Intake 2" and renamed["is_public"]
    versions = api.get(f"/api/v1/agents/{agent['id']}/versions").json()
    assert [v["version_number"] for v in versions["data"]] == [2, 1]
    listed = api.get("/api/v1/agents", params={"limit": 100}).json()["data"]
    mine = [a for a in listed if a["agent_group_id"] == agent["agent_group_id"]]
    assert len(mine) == 1 and mine[0]["id"] == v2["id"]


def test_list_paginates_newest_first(service: Service) -> None:
    key = service.key()
    with Client(service.url, key) as client:
        names = [client.create_agent(f"n{i}").name for i in range(5)]
        # Pages of two: the client follows `next_cursor` until `has_more` is false.
        assert [a.name for a in client.list_agents(limit=2)] == list(reversed(names))
        for bad in (0, 101):
            with pytest.raises(BadRequest):
                next(client.list_agents(limit=bad))
    with service.client(key) as api:
        response = api.get("/api/v1/agents", params={"limit": "x"})
        assert response.status_code == 400 and "error" in response.json()
        assert api.get("/api/v1/agents", params={"cursor": "%%bad"}).status_code == 400


def test_delete_is_soft_and_final(api: httpx.Client) -> None:
    agent = api.post("/api/v1/agents", json={"name": "temp"}).json()
    deleted = api.delete(f"/api/v1/agents/{agent['id']}")
    assert deleted.status_code == 200 and deleted.json() == {"id": agent["id"], "deleted": True}
    assert api.get(f"/api/v1/agents/{agent['id']}").status_code == 404
    assert api.patch(f"/api/v1/agents/{agent['id']}", json={"name": "x"}).status_code == 404
    assert api.delete(f"/api/v1/agents/{agent['id']}").status_code == 404


def test_malformed_and_unknown_ids(api: httpx.Client) -> None:
    bad = api.get("/api/v1/agents/not-a-uuid")
    assert bad.status_code == 400 and "UUID" in bad.json()["error"]
    missing = api.get(f"/api/v1/agents/{uuid.uuid4()}")
    assert missing.status_code == 404 and set(missing.json()) == {"error"}


def test_other_workspace_gets_403(service: Service, api: httpx.Client) -> None:
    agent = api.post("/api/v1/agents", json={"name": "private"}).json()
    with service.client(service.key()) as stranger:
        for method, path in (
            ("GET", f"/api/v1/agents/{agent['id']}"),
            ("PATCH", f"/api/v1/agents/{agent['id']}"),
            ("DELETE", f"/api/v1/agents/{agent['id']}"),
            ("GET", f"/api/v1/agents/{agent['id']}/versions"),
        ):
            response = stranger.request(method, path, json={"name": "x"} if method == "PATCH" else None)
            assert response.status_code == 403, (method, path)
            assert set(response.json()) == {"error"}
        assert all(a["id"] != agent["id"] for a in stranger.get("/api/v1/agents").json()["data"])


def test_invalid_bodies_are_400_in_the_envelope(api: httpx.Client) -> None:
    for body in ({"config": "not an object"}, {"name": ""}, {"unknown": 1}):
        response = api.post("/api/v1/agents", json=body)
        assert response.status_code == 400, body
        assert set(response.json()) == {"error"}
    broken = api.post("/api/v1/agents", content=b"{not json", headers={"content-type": "application/json"})
    assert broken.status_code == 400 and set(broken.json()) == {"error"}
