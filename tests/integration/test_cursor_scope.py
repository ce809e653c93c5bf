"""A page cursor pages only the list that issued it: same route, path ids, workspace and filters (issue 27)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support.agents import create_agent, scripted, start

pytestmark = pytest.mark.integration


@pytest.fixture
def two_workspaces(service: Service) -> Iterator[tuple[httpx.Client, httpx.Client]]:
    with service.client(service.key()) as mine, service.client(service.key()) as theirs:
        yield mine, theirs


def refused(response: httpx.Response) -> None:
    assert response.status_code == 400, response.text
    assert set(response.json()) == {"error"} and "previous page" in response.json()["error"]


def next_cursor(api: httpx.Client, path: str, **params: str) -> str:
    page = api.get(path, params={"limit": "1", **params})
    assert page.status_code == 200, page.text
    assert page.json()["has_more"] and page.json()["next_cursor"]
    return str(page.json()["next_cursor"])


def test_a_task_list_cursor_pages_only_its_own_filters_and_workspace(
    two_workspaces: tuple[httpx.Client, httpx.Client],
) -> None:
    mine, theirs = two_workspaces
    agent = create_agent(mine, scripted({"answer": "done"}))
    for query in ("alpha one", "alpha two", "alpha three"):
        start(mine, agent["id"], query)
    filters = {"agent_id": agent["id"], "title": "alpha"}
    cursor = next_cursor(mine, "/api/v1/tasks", **filters)
    # The same filters page on, in any order and with another page size.
    same = mine.get("/api/v1/tasks", params={"title": "alpha", "agent_id": agent["id"], "cursor": cursor})
    assert same.status_code == 200 and len(same.json()["data"]) == 2
    # A filter dropped, added or changed is another list.
    refused(mine.get("/api/v1/tasks", params={"limit": "1", "cursor": cursor}))
    refused(mine.get("/api/v1/tasks", params={"agent_id": agent["id"], "cursor": cursor}))
    refused(mine.get("/api/v1/tasks", params=filters | {"status": "completed", "cursor": cursor}))
    refused(mine.get("/api/v1/tasks", params=filters | {"title": "alpha t", "cursor": cursor}))
    # Another workspace with the very same filters: refused, not a page of its own list.
    refused(theirs.get("/api/v1/tasks", params=filters | {"cursor": cursor}))
    # Without filters the cursor is bound to the empty filter set all the same.
    unfiltered = next_cursor(mine, "/api/v1/tasks")
    assert mine.get("/api/v1/tasks", params={"cursor": unfiltered}).status_code == 200
    refused(theirs.get("/api/v1/tasks", params={"cursor": unfiltered}))
    refused(mine.get("/api/v1/tasks", params={"cursor": unfiltered, "title": "alpha"}))


def test_agent_list_cursors_are_bound_to_their_workspace_and_path_ids(
    two_workspaces: tuple[httpx.Client, httpx.Client],
) -> None:
    mine, theirs = two_workspaces
    for i in range(2):
        assert theirs.post("/api/v1/agents", json={"name": f"theirs {i}"}).status_code == 201
    agents = [create_agent(mine, scripted({"answer": f"v{i}"})) for i in range(2)]
    cursor = next_cursor(mine, "/api/v1/agents")
    assert mine.get("/api/v1/agents", params={"cursor": cursor}).status_code == 200
    refused(theirs.get("/api/v1/agents", params={"cursor": cursor}))
    # The versions of one agent: the cursor does not page another agent's versions.
    for agent in agents:
        patched = mine.patch(f"/api/v1/agents/{agent['id']}", json={"config": scripted({"answer": "v2"})})
        assert patched.status_code == 200, patched.text
    first, second = (a["id"] for a in agents)
    versions = next_cursor(mine, f"/api/v1/agents/{first}/versions")
    assert mine.get(f"/api/v1/agents/{first}/versions", params={"cursor": versions}).status_code == 200
    refused(mine.get(f"/api/v1/agents/{second}/versions", params={"cursor": versions}))
