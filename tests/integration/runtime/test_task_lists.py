"""Task lists with filters, data fields and their audit trail; structured-response rules."""

from __future__ import annotations

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support.agents import create_agent, run, scripted, start, wait_status

pytestmark = pytest.mark.integration

FIELDS = [{"key": "patient_name", "description": "Full name", "key_type": "string"}]


@pytest.fixture
def fresh(service: Service) -> httpx.Client:
    return service.client(service.key())


def test_filters_and_cursor_pages(fresh: httpx.Client) -> None:
    with fresh as api:
        a = create_agent(api, scripted({"answer": "a"}), name="Alpha")
        b = create_agent(api, scripted({"error": "x"}, settings={"max_retries": 0}), name="Beta")
        ids_a = [start(api, a["id"], f"Alpha job {i}") for i in range(3)]
        id_b = start(api, b["id"], "Beta job")
        test_run = api.post(
            f"/api/v1/agents/{a['id']}/run", json={"query": "trial", "source": "test"}
        ).json()["task_id"]
        for task_id in [*ids_a, id_b, test_run]:
            wait_status(api, task_id)
        listed = api.get("/api/v1/tasks").json()["data"]
        assert [t["task_id"] for t in listed] == [id_b, *reversed(ids_a)]
        assert listed[0]["agent_name"] == "Beta" and "data_fields" not in listed[0]
        assert [t["task_id"] for t in api.get("/api/v1/tasks", params={"bucket": "test"}).json()["data"]] == [
            test_run
        ]
        assert len(api.get("/api/v1/tasks", params={"bucket": "all"}).json()["data"]) == 5
        only_a = api.get("/api/v1/tasks", params={"agent_group_id": a["agent_group_id"]}).json()["data"]
        assert {t["task_id"] for t in only_a} == set(ids_a)
        failed = api.get("/api/v1/tasks", params={"status": "failed,stopped"}).json()["data"]
        assert [t["task_id"] for t in failed] == [id_b]
        titled = api.get("/api/v1/tasks", params={"title": "JOB 1"}).json()["data"]
        assert [t["task_id"] for t in titled] == [ids_a[1]]
        v2 = api.patch(f"/api/v1/agents/{a['id']}", json={"config": scripted({"answer": "v2"})}).json()
        new = start(api, a["id"], "Alpha v2")
        by_version = api.get("/api/v1/tasks", params={"agent_id": v2["id"]}).json()["data"]
        assert [t["task_id"] for t in by_version] == [new]
        created = api.get(f"/api/v1/tasks/{ids_a[1]}").json()["created_at"]
        after = api.get(
            "/api/v1/tasks", params={"created_after": created, "agent_group_id": a["agent_group_id"]}
        )
        assert ids_a[1] in [t["task_id"] for t in after.json()["data"]]
        assert ids_a[0] not in [t["task_id"] for t in after.json()["data"]]
        before = api.get("/api/v1/tasks", params={"created_before": created}).json()["data"]
        assert [t["task_id"] for t in before] == [ids_a[1], ids_a[0]]
        pages, cursor = [], None
        while True:
            page = api.get(
                "/api/v1/tasks", params={"limit": 2} | ({"cursor": cursor} if cursor else {})
            ).json()
            pages.append([t["task_id"] for t in page["data"]])
            if not page["has_more"]:
                break
            cursor = page["next_cursor"]
        assert [t for p in pages for t in p] == [new, id_b, *reversed(ids_a)]
        for params in ({"status": "done"}, {"bucket": "prod"}, {"created_after": "soon"}, {"limit": 0}):
            response = api.get("/api/v1/tasks", params=params)
            assert response.status_code == 400 and set(response.json()) == {"error"}, params


def test_data_fields_filled_at_completion_strict_flag_and_audit(fresh: httpx.Client) -> None:
    with fresh as api:
        agent = create_agent(
            api,
            scripted(
                {"answer": "done", "data_fields": {"patient_name": "Ada Lovelace", "other": 1}},
                data_fields=FIELDS,
            ),
        )
        task_id = start(api, agent["id"])
        wait_status(api, task_id)
        listed = api.get("/api/v1/tasks", params={"include_data_fields": "true"}).json()["data"]
        fields = listed[0]["data_fields"]
        assert [(f["key"], f["value"], f["key_type"], f["description"]) for f in fields] == [
            ("patient_name", "Ada Lovelace", "string", "Full name")
        ]
        assert {"id", "logical_field_id"} <= set(fields[0])
        for bad in ("yes", "", "TRUEISH"):
            response = api.get("/api/v1/tasks", params={"include_data_fields": bad})
            assert response.status_code == 400, bad
        bare = api.get("/api/v1/tasks?include_data_fields")
        assert bare.status_code == 400
        api.get("/api/v1/tasks")
        entries = api.get("/api/v1/audit").json()["data"]
        reads = [e for e in entries if e["action"] == "task.data_fields_read"]
        assert len(reads) == 1 and reads[0]["task_ids"] == [task_id] and reads[0]["key_id"]


def test_structured_response_rules(fresh: httpx.Client) -> None:
    schema = {"type": "object"}
    with fresh as api:
        no_schema = create_agent(api, scripted({"answer": "a"}))
        t1 = start(api, no_schema["id"])
        wait_status(api, t1)
        body = api.get(f"/api/v1/tasks/{t1}/structured-response").json()
        assert "structured_response" not in body and "schema" in body["error"]
        assert {"task_id", "agent_id", "status", "created_at", "updated_at"} <= set(body)

        # An answer without the structured output its schema asks for fails the run (docs/contract.md
        # section 2, "Structured output").
        with_schema = create_agent(
            api,
            scripted({"answer": "a"}, output_schema=schema, on_failure="fail", settings={"max_retries": 0}),
        )
        t2 = start(api, with_schema["id"])
        wait_status(api, t2)
        error = api.get(f"/api/v1/tasks/{t2}/structured-response").json()["error"]
        assert error == (
            "the run failed before writing a structured output: model call failed: "
            "the answer does not match the output schema: the answer is not a JSON value"
        )

        slow = create_agent(api, scripted({"delay_seconds": 3, "answer": "a"}, output_schema=schema))
        t3 = start(api, slow["id"])
        in_flight = api.get(f"/api/v1/tasks/{t3}/structured-response").json()
        assert "message" in in_flight and "error" not in in_flight
        api.post(f"/api/v1/tasks/{t3}/cancel")

        writer = create_agent(
            api,
            scripted({"answer": "a", "structured": {"name": "Ada", "__trace": "t"}}, output_schema=schema),
        )
        t4 = start(api, writer["id"])
        wait_status(api, t4)
        plain = api.get(f"/api/v1/tasks/{t4}/structured-response").json()
        assert plain["structured_response"] == {"name": "Ada", "__trace": "t"}
        # An agent that keeps no citations: the payload is unchanged and `documents` omitted.
        cited = api.get(
            f"/api/v1/tasks/{t4}/structured-response", params={"include_citations": "true"}
        ).json()
        assert cited["structured_response"] == {"name": "Ada", "__trace": "t"} and "documents" not in cited
        bad = api.get(f"/api/v1/tasks/{t4}/structured-response", params={"include_citations": "yes"})
        assert bad.status_code == 400
        sync = run(
            api, writer["id"], "q", **{"async": "false", "result": "structured", "include_citations": "true"}
        )
        assert sync.json()["result"]["name"] == "Ada" and "result_documents" not in sync.json()
