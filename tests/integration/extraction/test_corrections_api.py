"""A reviewer's corrections (issue 38): `PUT /api/v2/jobs/{id}/corrections` and
`PUT /api/v1/tasks/{id}/corrections`, read back with the job and the task output, audited, kept in
the resource's workspace, bad bodies refused in each API's envelope."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Service
from tests.integration.extraction.conftest import settle, upload
from tests.support import documents
from tests.support.agents import ask, create_agent, scripted, wait_status

pytestmark = pytest.mark.integration

#: "Group Number:" with nothing after it, under it the next label: left blank.
LINES = ["Patient Intake", "Member ID: ZX-4411", "Group Number:", "Date of Birth: 02/13/2002"]
FIELDS = ["date_of_birth", "group_number", "member_id"]


@pytest.fixture(scope="module")
def job(service: Service, key: str) -> dict[str, Any]:
    with service.client(key, timeout=120) as api:
        file = upload(api, documents.pdf_text([LINES]), "intake.pdf")
        body = {
            "input": file["file_id"],
            "extraction_config": {"json_options": FIELDS, "prompt_mode": "rules"},
        }
        return settle(api, api.post("/api/v2/extract/sync", json=body))


def corrections_path(job: dict[str, Any]) -> str:
    return f"/api/v2/jobs/{job['record_id']}/corrections"


def test_a_corrected_field_is_kept_with_who_and_when_and_read_back_with_the_job(
    api: httpx.Client, job: dict[str, Any]
) -> None:
    fields = job["result"]["fields"]
    assert (
        fields["date_of_birth"]["value"] == "2002-02-13"
        and fields["date_of_birth"]["printed"] == "02/13/2002"
    )
    assert fields["group_number"]["state"] == "blank" and fields["member_id"]["state"] == "found"
    assert "corrections" not in api.get(f"/api/v2/jobs/{job['record_id']}").json()

    reply = api.put(
        corrections_path(job),
        json={
            "fields": {"member_id": {"value": "ZX-4417", "checked": True}, "group_number": {"value": None}}
        },
    )
    assert reply.status_code == 200, reply.text
    saved = reply.json()["corrections"]
    assert set(saved) == {"member_id", "group_number"}
    assert saved["member_id"]["value"] == "ZX-4417" and saved["member_id"]["checked"] is True
    assert saved["group_number"] == saved["group_number"] | {"value": None, "checked": False}
    key_id = saved["member_id"]["by"]["key_id"]
    assert len(key_id) == 16 and "name" in saved["member_id"]["by"] and saved["member_id"]["at"].endswith("Z")

    again = api.get(f"/api/v2/jobs/{job['record_id']}").json()
    assert again["corrections"] == saved
    # The extraction's own values stay as read, so what the engine read and what was corrected differ.
    assert again["result"]["fields"]["member_id"]["value"] == "ZX-4411"

    # A later PUT merges; a null entry withdraws a correction.
    merged = api.put(
        corrections_path(job),
        json={"fields": {"group_number": None, "date_of_birth": {"value": "2002-02-13", "checked": True}}},
    )
    assert merged.status_code == 200, merged.text
    assert set(merged.json()["corrections"]) == {"member_id", "date_of_birth"}

    entries = api.get("/api/v1/audit").json()["data"]
    audited = [
        e for e in entries if e["action"] == "job.corrected" and e["details"]["job_id"] == job["record_id"]
    ]
    assert len(audited) == 2 and all(e["key_id"] == key_id for e in audited)
    assert audited[-1]["details"]["corrected"] == ["group_number", "member_id"]
    # The audit log names the fields, never the values.
    assert "ZX-4417" not in str(entries)


def test_another_workspaces_job_answers_403_and_an_unknown_one_404(
    service: Service, job: dict[str, Any]
) -> None:
    body = {"fields": {"member_id": {"value": "X", "checked": True}}}
    with service.client(service.key()) as stranger:
        other = stranger.put(corrections_path(job), json=body)
        assert other.status_code == 403, other.text
        assert "another workspace" in other.json()["detail"]
        assert stranger.get(f"/api/v2/jobs/{job['record_id']}").status_code == 403
        unknown = stranger.put(f"/api/v2/jobs/{uuid.uuid4()}/corrections", json=body)
        assert unknown.status_code == 404 and isinstance(unknown.json()["detail"], str)
        malformed = stranger.put("/api/v2/jobs/not-a-uuid/corrections", json=body)
        assert malformed.status_code == 400 and isinstance(malformed.json()["detail"], str)


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"fields": {}},
        {"fields": {"member_id": {"checked": True}}},
        {"fields": {"member_id": {"value": "X", "checked": "yes"}}},
        {"fields": {"member_id": {"value": {"nested": 1}}}},
        {"fields": {"member_id": {"value": "X", "by": "me"}}},
        {"fields": {"member_id": {"value": "x" * 10_001}}},
        {"fields": {"member_id": ["X"]}},
        {"values": {"member_id": {"value": "X"}}},
    ],
)
def test_a_bad_body_is_422_with_detail(api: httpx.Client, job: dict[str, Any], body: dict[str, Any]) -> None:
    reply = api.put(corrections_path(job), json=body)
    assert reply.status_code == 422, reply.text
    assert "detail" in reply.json() and "error" not in reply.json()


def test_a_field_the_result_does_not_have_is_422_naming_it(api: httpx.Client, job: dict[str, Any]) -> None:
    reply = api.put(
        corrections_path(job), json={"fields": {"shoe_size": {"value": "9"}, "member_id": {"value": "A"}}}
    )
    assert reply.status_code == 422, reply.text
    assert reply.json()["detail"] == "not fields of this result: shoe_size"
    # Nothing of the request was kept.
    kept = api.get(f"/api/v2/jobs/{job['record_id']}").json().get("corrections", {})
    assert kept.get("member_id", {}).get("value") != "A"


def test_a_parse_job_has_no_fields_to_correct(api: httpx.Client) -> None:
    file = upload(api, documents.pdf_text([LINES]), "intake.pdf")
    parsed = settle(api, api.post("/api/v2/parse/sync", json={"input": file["file_id"]}))
    reply = api.put(f"/api/v2/jobs/{parsed['record_id']}/corrections", json={"fields": {"x": {"value": "1"}}})
    assert reply.status_code == 400, reply.text
    assert "parse job" in reply.json()["detail"]


STRUCTURED = {"patient": {"name": "Jane Roe", "group_number": None}, "visits": ["2024-01-02"], "__meta": 1}


@pytest.fixture(scope="module")
def finished_task(service: Service, key: str) -> str:
    with service.client(key, timeout=120) as api:
        agent = create_agent(
            api, scripted({"answer": "Done.", "structured": STRUCTURED}, output_schema={"type": "object"})
        )
        started = api.post(f"/api/v1/agents/{agent['id']}/run", json={"query": "read the intake"})
        assert started.status_code == 201, started.text
        task_id = str(started.json()["task_id"])
        wait_status(api, task_id, "completed", timeout=120)
        return task_id


def test_a_tasks_output_leaf_is_corrected_and_read_back_with_the_output(
    api: httpx.Client, finished_task: str
) -> None:
    path = f"/api/v1/tasks/{finished_task}/corrections"
    reply = api.put(
        path,
        json={
            "paths": {
                "patient.group_number": {"value": "G-77", "checked": True},
                "visits[0]": {"value": "2024-01-03"},
            }
        },
    )
    assert reply.status_code == 200, reply.text
    saved = reply.json()["corrections"]
    assert (
        saved["patient.group_number"]["value"] == "G-77" and saved["patient.group_number"]["checked"] is True
    )
    assert saved["visits[0]"]["checked"] is False
    output = api.get(f"/api/v1/tasks/{finished_task}/structured-response").json()
    assert output["corrections"] == saved
    assert output["structured_response"]["patient"]["group_number"] is None
    audited = [e for e in api.get("/api/v1/audit").json()["data"] if e["action"] == "task.corrected"]
    assert audited and audited[0]["task_ids"] == [finished_task]
    assert audited[0]["details"]["corrected"] == ["patient.group_number", "visits[0]"]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        # /api/v1 answers bad input 400 (docs/contract.md), malformed or naming no leaf alike.
        ({"paths": {"patient": {"value": "x"}}}, 400),  # an object, not a leaf
        ({"paths": {"__meta": {"value": 2}}}, 400),  # the service's own key
        ({"paths": {"patient.age": {"value": 30}}}, 400),
        ({"paths": {}}, 400),
        ({"fields": {"patient.name": {"value": "x"}}}, 400),
        ({"paths": {"patient.name": {"value": "x", "checked": 1}}}, 400),
    ],
)
def test_a_bad_task_body_is_refused_with_error(
    api: httpx.Client, finished_task: str, body: dict[str, Any], status: int
) -> None:
    reply = api.put(f"/api/v1/tasks/{finished_task}/corrections", json=body)
    assert reply.status_code == status, reply.text
    assert "error" in reply.json() and "detail" not in reply.json()


def test_another_workspaces_task_answers_as_the_other_task_routes(
    service: Service, finished_task: str
) -> None:
    body = {"paths": {"patient.name": {"value": "x"}}}
    with service.client(service.key()) as stranger:
        reply = stranger.put(f"/api/v1/tasks/{finished_task}/corrections", json=body)
        read = stranger.get(f"/api/v1/tasks/{finished_task}")
        assert reply.status_code == read.status_code == 403, reply.text
        unknown = stranger.put(f"/api/v1/tasks/{uuid.uuid4()}/corrections", json=body)
        assert unknown.status_code == 404 and "error" in unknown.json()


def test_a_task_with_no_structured_output_yet_is_409(api: httpx.Client) -> None:
    agent = create_agent(api, scripted(ask("Which clinic?"), output_schema={"type": "object"}))
    started = api.post(f"/api/v1/agents/{agent['id']}/run", json={"query": "read the intake"})
    task_id = started.json()["task_id"]
    wait_status(api, task_id, "waiting_for_input", timeout=120)
    reply = api.put(f"/api/v1/tasks/{task_id}/corrections", json={"paths": {"x": {"value": "1"}}})
    assert reply.status_code == 409, reply.text
    assert "no structured output" in reply.json()["error"]
