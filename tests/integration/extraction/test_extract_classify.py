"""Extract and classify jobs through HTTP: form values with citations, CSV, configs, split mode."""

from __future__ import annotations

import csv
import io
import json

import httpx
import pytest
from agentry_client import Client

from tests.integration.conftest import TEST_POLL, Service
from tests.integration.extraction.conftest import settle, upload
from tests.support import documents

pytestmark = pytest.mark.integration

FORM = {"invoice_number": "INV-2024-0042", "customer_name": "Ada Lovelace", "total_amount": "1234.50"}


@pytest.fixture(scope="module")
def form_file(service, key: str) -> dict:
    with service.client(key) as api:
        return upload(api, documents.pdf_form(FORM), "form.pdf")


def test_extract_sync_reads_form_values_with_citations(api: httpx.Client, form_file: dict) -> None:
    names = ["invoice_number", "customer_name", "total_amount", "due_date"]
    reply = api.post(
        "/api/v2/extract/sync",
        json={
            "input": form_file["file_id"],
            "extraction_config": {"json_options": names, "prompt_mode": "rules"},
        },
    )
    body = settle(api, reply)
    assert body["status"] == "completed" and body["output_format"] == "json", body
    result = body["result"]
    assert result["data"]["invoice_number"] == "INV-2024-0042"
    assert result["data"]["customer_name"] == "Ada Lovelace"
    assert result["data"]["due_date"] is None
    assert json.loads(result["content"]) == result["data"]
    field = result["fields"]["invoice_number"]
    assert field["value"] == "INV-2024-0042" and 0 < field["confidence"] <= 1
    citation = field["citations"][0]
    assert citation["file"] == "form.pdf" and citation["page"] == 1
    x0, y0, x1, y1 = citation["bounding_box"]
    assert 200 <= x0 < x1 <= 510 and 90 <= y0 < y1 <= 240
    assert len(citation["normalized_bounding_box"]) == 4
    assert result["fields"]["due_date"] == {
        "value": None,
        "confidence": 0.0,
        "citations": [],
        "review_reasons": [],
        "state": "not_found",
    }
    assert result["pages"] == [{"page": 1, "width": 595, "height": 842}]
    assert result["confidence_source"] == "form_fields"
    assert 0 < result["overall_confidence"] < 1 and set(result["page_confidence"]) == {"1"}


def test_extract_label_value_text_as_csv(api: httpx.Client) -> None:
    file = upload(
        api,
        documents.pdf_text(
            [["ACME Supplies", "Invoice Number: A-778", "Invoice Date: 2024-03-01", "Total: 99.95"]]
        ),
    )
    body = settle(
        api,
        api.post(
            "/api/v2/extract/sync",
            json={
                "input": file["file_id"],
                "extraction_config": {"output_format": "csv", "json_options": ["invoice_number", "total"]},
            },
        ),
    )
    assert body["status"] == "completed" and body["output_format"] == "csv", body
    rows = list(csv.reader(io.StringIO(body["result"]["content"])))
    assert rows[0] == ["invoice_number", "total"]
    assert rows[1][0] == "A-778" and float(rows[1][1]) == 99.95
    headless = settle(
        api,
        api.post(
            "/api/v2/extract/sync",
            json={
                "input": file["file_id"],
                "extraction_config": {
                    "output_format": "csv",
                    "json_options": ["invoice_number", "total"],
                    "csv_options": {"include_header": False},
                },
            },
        ),
    )
    assert list(csv.reader(io.StringIO(headless["result"]["content"]))) == rows[1:]


def test_extract_async_with_a_saved_config(service: Service, key: str, form_file: dict) -> None:
    with Client(service.url, key, poll=TEST_POLL) as client:
        config = client.create_config("form", "extract", {"json_options": ["total_amount"]})
        queued = client.submit("extract", form_file["file_id"], config_id=config.config_id)
        assert queued.record_id is not None and queued.status == "processing"
        job = client.wait_job(queued.record_id, timeout=60)
    assert job.status == "completed" and job.config_id == config.config_id
    assert job.data is not None and list(job.data) == ["total_amount"]
    assert float(job.data["total_amount"]) == 1234.5


@pytest.mark.parametrize(
    "body",
    [
        {"input": "file://00000000-0000-4000-8000-000000000000"},
        {"input": "file://00000000-0000-4000-8000-000000000000", "extraction_config": {"json_options": []}},
        {
            "input": "file://00000000-0000-4000-8000-000000000000",
            "extraction_config": {"json_options": ["a\nb"]},
        },
        {"input": "file://00000000-0000-4000-8000-000000000000", "classify_config": {"categories": ["a"]}},
    ],
)
def test_extract_without_fields_is_422(api: httpx.Client, body: dict) -> None:
    reply = api.post("/api/v2/extract/sync", json=body)
    assert reply.status_code == 422 and isinstance(reply.json()["detail"], list)


def test_extract_prompt_mode_model_without_a_model_is_400(api: httpx.Client, form_file: dict) -> None:
    reply = api.post(
        "/api/v2/extract/sync",
        json={
            "input": form_file["file_id"],
            "extraction_config": {"json_options": ["a"], "prompt_mode": "model"},
        },
    )
    assert reply.status_code == 400


CATEGORIES = [
    "invoice",
    {"name": "contract", "description": "an agreement between parties, with terms and signatures"},
    "receipt",
]


def test_classify_document_mode(api: httpx.Client) -> None:
    file = upload(
        api,
        documents.pdf_text(
            [["INVOICE", "Invoice number 77", "Amount due 120.00", "Please pay this invoice"]]
        ),
    )
    reply = api.post(
        "/api/v2/classify/sync",
        json={"input": file["file_id"], "classify_config": {"categories": CATEGORIES}},
    )
    body = settle(api, reply)
    assert body["status"] == "completed" and body["output_format"] == "json"
    classification = body["result"]["classification"]
    assert classification["category"] == "invoice" and 0 < classification["confidence"] <= 1
    assert json.loads(body["result"]["content"]) == classification


def test_classify_split_mode(api: httpx.Client) -> None:
    file = upload(
        api,
        documents.pdf_text(
            [
                ["INVOICE", "Invoice number 12", "Total due: 50.00"],
                ["Invoice continued", "Invoice line items and amount due"],
                ["SERVICE AGREEMENT", "This agreement between the parties sets out the terms.", "Signatures"],
            ]
        ),
    )
    config = api.post(
        "/api/v2/configs",
        json={"name": "splitter", "type": "classify", "params": {"categories": CATEGORIES, "mode": "split"}},
    ).json()
    body = settle(
        api,
        api.post("/api/v2/classify/sync", json={"input": file["file_id"], "config_id": config["config_id"]}),
    )
    assert body["status"] == "completed", body
    segments = body["result"]["classification"]["segments"]
    assert [(s["category"], s["start_page"], s["end_page"]) for s in segments] == [
        ("invoice", 1, 2),
        ("contract", 3, 3),
    ]
    queued = api.post(
        "/api/v2/classify/async",
        json={"input": [file["file_id"]], "classify_config": {"categories": ["invoice", "contract"]}},
    ).json()
    assert queued["batch_id"] and queued["items"][0]["record_id"]


def test_dates_month_first_by_default_day_first_on_request_always_iso(api: httpx.Client) -> None:
    file = upload(
        api, documents.pdf_text([["Patient Intake", "Date of Birth: 12/03/2001", "Visit: 2025-04-29"]])
    )

    def extract(config: dict) -> dict:
        body = settle(
            api,
            api.post(
                "/api/v2/extract/sync",
                json={
                    "input": file["file_id"],
                    "extraction_config": {"json_options": ["dob"], "prompt_mode": "rules", **config},
                },
            ),
        )
        assert body["status"] == "completed", body
        field: dict = body["result"]["fields"]["dob"]
        return field

    default = extract({})
    assert default["value"] == "2001-12-03"
    # The page's own text stays where the citation points.
    assert default["citations"][0]["page"] == 1
    assert extract({"date_order": "DMY"})["value"] == "2001-03-12"
    assert extract({"date_order": "MDY"})["value"] == "2001-12-03"
    # An ambiguous date is not certain: day and month could swap.
    assert default["confidence"] < 1.0
    bad = api.post(
        "/api/v2/extract/sync",
        json={"input": file["file_id"], "extraction_config": {"json_options": ["dob"], "date_order": "DM"}},
    )
    assert bad.status_code == 422 and "detail" in bad.json()
