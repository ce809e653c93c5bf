"""Parse jobs through HTTP: sync, async with polling, batches, configs, ownership, big PDFs."""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.integration.conftest import Service
from tests.integration.extraction.conftest import settle, upload
from tests.support import documents
from tests.support.service import wait_for

pytestmark = pytest.mark.integration


def poll(api: httpx.Client, record_id: str, timeout: float = 60) -> dict:
    def finished() -> dict | None:
        body = api.get(f"/api/v2/jobs/{record_id}").json()
        return body if body["status"] != "processing" else None

    return wait_for(finished, timeout=timeout, interval=0.2, what=f"job {record_id}")


def test_parse_sync_gives_markdown_elements_pages_and_confidence(api: httpx.Client) -> None:
    file = upload(api, documents.pdf_text([["Quarterly report", "Revenue grew 12%"], ["Page two text"]]))
    body = settle(api, api.post("/api/v2/parse/sync", json={"input": file["file_id"]}))
    assert body["success"] is True and body["status"] == "completed"
    assert (body["file_id"], body["filename"], body["file_size"]) == (
        file["file_id"],
        "doc.pdf",
        file["file_size"],
    )
    assert body["output_format"] == "markdown" and body["processing_time"] >= 0
    result = body["result"]
    assert "Revenue grew 12%" in result["content"] and "<!-- page 2 -->" in result["content"]
    assert [p["page"] for p in result["pages"]] == [1, 2]
    assert result["pages"][0] == {"page": 1, "width": 595, "height": 842}
    texts = {e["text"]: e for e in result["elements"]}
    element = texts["Page two text"]
    assert element["page"] == 2 and len(element["bounding_box"]) == 4
    assert all(0 <= pt["x"] <= 1 and 0 <= pt["y"] <= 1 for pt in element["normalized_bounding_box"])
    assert result["confidence_source"] == "text_layer"
    assert result["overall_confidence"] == 1.0 and result["page_confidence"] == {"1": 1.0, "2": 1.0}
    again = api.get(f"/api/v2/jobs/{body['record_id']}").json()
    assert again == body


def test_parse_async_returns_a_record_id_at_once_and_completes(api: httpx.Client) -> None:
    file = upload(api, documents.docx(["Heading text", "Body paragraph"]), "notes.docx")
    queued = api.post(
        "/api/v2/parse/async", json={"input": file["file_id"], "parse_config": {"output_format": "text"}}
    )
    assert queued.status_code == 200, queued.text
    body = queued.json()
    assert body["success"] is True and body["status"] in ("processing", "completed") and body["record_id"]
    done = poll(api, body["record_id"])
    assert done["status"] == "completed" and done["output_format"] == "text"
    assert "Body paragraph" in done["result"]["content"] and "<!--" not in done["result"]["content"]


def test_parse_options_json_metadata_and_page_markers(api: httpx.Client) -> None:
    file = upload(api, documents.pdf_text([["One"], ["Two"]]))
    plain = settle(
        api,
        api.post(
            "/api/v2/parse/sync",
            json={
                "input": file["file_id"],
                "parse_config": {"markdown_options": {"page_markers": False}, "include_metadata": True},
            },
        ),
    )
    assert "<!--" not in plain["result"]["content"] and "Two" in plain["result"]["content"]
    assert plain["result"]["metadata"]["page_count"] == 2
    assert plain["result"]["metadata"]["sha256"] == file["sha256"]
    as_json = settle(
        api,
        api.post(
            "/api/v2/parse/sync", json={"input": file["file_id"], "parse_config": {"output_format": "json"}}
        ),
    )
    assert as_json["output_format"] == "json"
    assert [e["text"] for e in httpx.Response(200, content=as_json["result"]["content"]).json()] == [
        "One",
        "Two",
    ]


def test_a_saved_config_is_used_in_place_of_an_inline_one(api: httpx.Client) -> None:
    config = api.post(
        "/api/v2/configs", json={"name": "plain", "type": "parse", "params": {"output_format": "text"}}
    ).json()
    file = upload(api, documents.pdf_text([["Configured"]]))
    body = settle(
        api, api.post("/api/v2/parse/sync", json={"input": file["file_id"], "config_id": config["config_id"]})
    )
    assert body["config_id"] == config["config_id"] and body["output_format"] == "text"
    assert body["result"]["content"].strip() == "Configured"
    both = api.post(
        "/api/v2/parse/sync",
        json={"input": file["file_id"], "config_id": config["config_id"], "parse_config": {}},
    )
    assert both.status_code == 422
    classify = api.post(
        "/api/v2/configs", json={"name": "c", "type": "classify", "params": {"categories": ["a", "b"]}}
    ).json()
    wrong_type = api.post(
        "/api/v2/parse/sync", json={"input": file["file_id"], "config_id": classify["config_id"]}
    )
    assert wrong_type.status_code == 400
    missing = api.post(
        "/api/v2/parse/sync", json={"input": file["file_id"], "config_id": f"config://{uuid.uuid4()}"}
    )
    assert missing.status_code == 404


def test_batch_of_three_reports_each_item(api: httpx.Client) -> None:
    good = [upload(api, documents.pdf_text([[f"Batch item {i}"]]))["file_id"] for i in range(2)]
    unknown = f"file://{uuid.uuid4()}"
    reply = api.post("/api/v2/parse/async", json={"input": [good[0], unknown, good[1]]})
    assert reply.status_code == 200, reply.text
    batch = reply.json()
    assert batch["batch_id"] and [item["input"] for item in batch["items"]] == [good[0], unknown, good[1]]
    assert batch["items"][1]["status"] == "failed" and "not found" in batch["items"][1]["error"]
    assert "record_id" not in batch["items"][1]
    assert all(batch["items"][i]["record_id"] for i in (0, 2))

    def settled() -> dict | None:
        current = api.get(f"/api/v2/batches/{batch['batch_id']}").json()
        return current if all(item["status"] != "processing" for item in current["items"]) else None

    final = wait_for(settled, timeout=60, interval=0.2, what="batch")
    assert [item["status"] for item in final["items"]] == ["completed", "failed", "completed"]
    first = api.get(f"/api/v2/jobs/{final['items'][0]['record_id']}").json()
    assert "Batch item 0" in first["result"]["content"]


def test_batch_limit_is_50(api: httpx.Client) -> None:
    reply = api.post("/api/v2/parse/async", json={"input": [f"file://{uuid.uuid4()}"] * 51})
    assert reply.status_code == 422 and isinstance(reply.json()["detail"], list)
    sync_list = api.post("/api/v2/parse/sync", json={"input": [f"file://{uuid.uuid4()}"]})
    assert sync_list.status_code == 422


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"input": "not a file id"}, 400),
        ({"input": "file://not-a-uuid"}, 400),
        ({"input": "ftp://example.com/a.pdf"}, 400),
        ({"input": ""}, 422),
        ({}, 422),
        ({"input": "file://x", "surprise": 1}, 422),
        ({"input": "file://x", "parse_config": {"output_format": "pdf"}}, 422),
    ],
)
def test_malformed_requests(api: httpx.Client, body: dict, status: int) -> None:
    reply = api.post("/api/v2/parse/sync", json=body)
    assert reply.status_code == status, reply.text
    detail = reply.json()["detail"]
    assert isinstance(detail, str) if status == 400 else isinstance(detail, list)


def test_prompt_mode_model_without_a_model_is_400(api: httpx.Client) -> None:
    file = upload(api, documents.pdf_text([["x"]]))
    reply = api.post(
        "/api/v2/parse/sync", json={"input": file["file_id"], "parse_config": {"prompt_mode": "model"}}
    )
    assert reply.status_code == 400 and "model" in reply.json()["detail"]


def test_jobs_and_batches_of_another_workspace_are_403(service: Service, api: httpx.Client) -> None:
    file = upload(api, documents.pdf_text([["Mine"]]))
    job = api.post("/api/v2/parse/async", json={"input": file["file_id"]}).json()
    batch = api.post("/api/v2/parse/async", json={"input": [file["file_id"]]}).json()
    with service.client(service.key()) as other:
        assert other.get(f"/api/v2/jobs/{job['record_id']}").status_code == 403
        assert other.get(f"/api/v2/batches/{batch['batch_id']}").status_code == 403
        assert other.post("/api/v2/parse/sync", json={"input": file["file_id"]}).status_code == 403
    assert api.get(f"/api/v2/jobs/{uuid.uuid4()}").status_code == 404
    assert api.get("/api/v2/jobs/nope").status_code == 400
    assert api.get(f"/api/v2/batches/{uuid.uuid4()}").status_code == 404
    poll(api, job["record_id"])


def test_a_workspaces_batches_are_listed_newest_first_with_their_counts_and_paged(service: Service) -> None:
    with service.client(service.key()) as api:
        file = upload(api, documents.pdf_text([["Listed"]]))["file_id"]
        unknown = f"file://{uuid.uuid4()}"
        made = [
            api.post("/api/v2/parse/async", json={"input": inputs}).json()["batch_id"]
            for inputs in ([file], [file, unknown], [file, file, unknown])
        ]

        def settled() -> list[dict] | None:
            listed = api.get("/api/v2/batches").json()["data"]
            return listed if all("processing" not in batch["counts"] for batch in listed) else None

        listed = wait_for(settled, timeout=60, interval=0.2, what="the batches, finished")
        assert [batch["batch_id"] for batch in listed] == made[::-1]
        assert [(batch["kind"], batch["total"], batch["counts"]) for batch in listed] == [
            ("parse", 3, {"completed": 2, "failed": 1}),
            ("parse", 2, {"completed": 1, "failed": 1}),
            ("parse", 1, {"completed": 1}),
        ]
        assert listed[0]["created_at"] >= listed[-1]["created_at"]

        first = api.get("/api/v2/batches", params={"limit": 2}).json()
        assert [b["batch_id"] for b in first["data"]] == made[:0:-1] and first["has_more"] is True
        rest = api.get("/api/v2/batches", params={"limit": 2, "cursor": first["next_cursor"]}).json()
        assert [b["batch_id"] for b in rest["data"]] == made[:1] and rest["has_more"] is False
        bad = api.get("/api/v2/batches", params={"cursor": "forged"})
        assert bad.status_code == 400 and isinstance(bad.json()["detail"], str)
        zero = api.get("/api/v2/batches", params={"limit": 0})
        assert zero.status_code == 400 and "limit" in zero.json()["detail"]
    with service.client(service.key()) as other:
        assert other.get("/api/v2/batches").json() == {"data": [], "has_more": False, "next_cursor": ""}


def test_a_large_pdf_is_split_into_ranges_and_merged_in_order(api: httpx.Client) -> None:
    pages = 47
    file = upload(api, documents.pdf_text([[f"This is page number {n}"] for n in range(1, pages + 1)]))
    body = settle(api, api.post("/api/v2/parse/sync", json={"input": file["file_id"]}))
    assert body["status"] == "completed", body
    result = body["result"]
    assert [p["page"] for p in result["pages"]] == list(range(1, pages + 1))
    assert [e["text"] for e in result["elements"]] == [
        f"This is page number {n}" for n in range(1, pages + 1)
    ]
    assert [e["id"] for e in result["elements"]][:2] == ["p1-e1", "p2-e1"]
    markers = [line for line in result["content"].splitlines() if line.startswith("<!-- page")]
    assert markers == [f"<!-- page {n} -->" for n in range(1, pages + 1)]
