"""Source mode over real batches: the list_files arguments select the packet, and the batch's record
is readable at `GET /api/v1/tasks/{id}/batch`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Service
from tests.integration.delegation.test_delegation import children
from tests.support.agents import create_agent, feed, of_type, scripted, start, wait_status

pytestmark = pytest.mark.integration


@pytest.fixture
def api(service: Service) -> Iterator[httpx.Client]:
    with service.client(service.key()) as client:
        yield client


def upload(api: httpx.Client, name: str, tag: str | None = None) -> dict[str, Any]:
    response = api.post(
        "/api/v2/files",
        params={"tag": tag} if tag else None,
        files={"file": (name, f"contents of {name}\n".encode(), "text/plain")},
    )
    assert response.status_code == 200, response.text
    return dict(response.json())


def batch_over(api: httpx.Client, arguments: dict[str, Any]) -> str:
    """Run a lead whose one source batch lists files with `arguments`; its task id once it ended."""
    worker = create_agent(api, scripted(*[{"answer": "read {{query}}"}] * 5))
    source = {
        "tool": "list_files",
        "arguments": arguments,
        "item_key_field": "file_id",
        "agent_group_id": worker["agent_group_id"],
        "prompt": "Read {{item}}",
    }
    lead = create_agent(
        api,
        scripted(
            {"tool_calls": [{"name": "delegate_tasks", "arguments": {"source": source}}]},
            {"answer": "{{last_tool_result.status}}"},
            settings={"delegate_source_mode": True},
        ),
    )
    parent_id = start(api, lead["id"])
    wait_status(api, parent_id, timeout=120)
    return parent_id


def test_a_tag_given_at_upload_selects_the_packet(api: httpx.Client) -> None:
    packet = [upload(api, f"intake-{i}.txt", tag="packet-1125") for i in range(2)]
    upload(api, "intake-9.txt", tag="packet-1124")
    upload(api, "untagged.txt")
    assert packet[0]["tag"] == "packet-1125"
    assert (
        api.get(f"/api/v2/files/{packet[0]['file_id'].removeprefix('file://')}").json()["tag"]
        == "packet-1125"
    )
    parent_id = batch_over(api, {"tag": "packet-1125"})
    assert sorted(k["item_key"] for k in children(api, parent_id)) == sorted(f["file_id"] for f in packet)
    record = api.get(f"/api/v1/tasks/{parent_id}/batch")
    assert record.status_code == 200, record.text
    batch = record.json()
    assert (
        batch["task_id"] == parent_id
        and batch["status"] == "enqueued"
        and batch["source_tool"] == "list_files"
    )
    assert batch["total_items"] == 2 and batch["created_children"] == 2 and batch["skipped_count"] == 0
    assert batch["pages_fetched"] == 1 and batch["children"] == {"completed": 2} and batch["error"] is None
    (result,) = [
        r for r in of_type(feed(api, parent_id), "tool_result") if r["tool_name"] == "delegate_tasks"
    ]
    assert result["output"]["batch_id"] == batch["batch_id"]


def test_a_name_pattern_and_an_upload_time_range_select_files(api: httpx.Client) -> None:
    older = upload(api, "scan-old.pdf.txt")
    newer = [upload(api, "scan-a.txt"), upload(api, "Scan-B.TXT"), upload(api, "notes.txt")]
    by_name = batch_over(api, {"name": "scan-*.txt"})
    named = {k["item_key"] for k in children(api, by_name)}
    assert named == {older["file_id"], newer[0]["file_id"], newer[1]["file_id"]}
    by_time = batch_over(api, {"name": "scan-*", "uploaded_after": newer[0]["created_at"]})
    assert {k["item_key"] for k in children(api, by_time)} == {newer[0]["file_id"], newer[1]["file_id"]}


def test_unusable_arguments_fail_the_batch_and_its_record_says_why(api: httpx.Client) -> None:
    upload(api, "a.txt")
    parent_id = batch_over(api, {"uploaded_after": "yesterday"})
    (result,) = [
        r for r in of_type(feed(api, parent_id), "tool_result") if r["tool_name"] == "delegate_tasks"
    ]
    assert result["status"] == "error" and "uploaded_after" in result["error"]
    batch = api.get(f"/api/v1/tasks/{parent_id}/batch").json()
    assert batch["status"] == "failed" and "uploaded_after" in batch["error"] and batch["children"] == {}
    assert children(api, parent_id) == []


def test_batch_of_a_task_without_one_is_404_and_bad_tags_are_400(api: httpx.Client) -> None:
    agent = create_agent(api, scripted({"answer": "x"}))
    task_id = start(api, agent["id"])
    missing = api.get(f"/api/v1/tasks/{task_id}/batch")
    assert missing.status_code == 404 and set(missing.json()) == {"error"}
    refused = api.post("/api/v2/files", params={"tag": "no spaces"}, files={"file": ("a.txt", b"a\n")})
    assert (
        refused.status_code == 400 and set(refused.json()) == {"detail"} and "tag" in refused.json()["detail"]
    )
