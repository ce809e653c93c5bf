"""Agents reading documents with the document tools, and the citations of their structured output."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support import documents
from tests.support.agents import create_agent, feed, of_type, scripted, wait_status

pytestmark = pytest.mark.integration

INVOICE = {"invoice_number": "INV-2024-0042", "customer_name": "Ada Lovelace", "total_amount": "1234.50"}
FIELDS = list(INVOICE)
SCHEMA = {"type": "object"}
PAGE = {"page": 1, "width": 595, "height": 842}


@pytest.fixture(scope="module")
def key(service: Service) -> str:
    return service.key()


@pytest.fixture
def api(service: Service, key: str) -> Iterator[httpx.Client]:
    with service.client(key, timeout=120) as client:
        yield client


@pytest.fixture(scope="module")
def invoice_pdf() -> bytes:
    return documents.pdf_form(INVOICE)


def extract_turn(name: str = "invoice.pdf") -> dict[str, Any]:
    arguments = {"input": name, "extraction_config": {"json_options": FIELDS, "prompt_mode": "rules"}}
    return {"tool_calls": [{"name": "extract_document", "arguments": arguments}]}


def cited_agent(api: httpx.Client, *turns: dict[str, Any], citations: bool = True) -> dict[str, Any]:
    return create_agent(api, scripted(*turns, output_schema=SCHEMA, structured_output_citations=citations))


STRUCTURED_FROM_EXTRACT = {
    "answer": "done",
    "structured": {
        "invoice_number": "{{last_tool_result.data.invoice_number}}",
        "customer": {"name": "{{last_tool_result.data.customer_name}}"},
        "lines": [{"total": "{{last_tool_result.data.total_amount}}"}, {"total": "not in any document"}],
        "paid": False,
        "__trace": "internal",
    },
}


def run_with_files(
    api: httpx.Client, agent_id: str, files: list[tuple[str, bytes]], query: str = "read it", **params: Any
) -> httpx.Response:
    return api.post(
        f"/api/v1/agents/{agent_id}/run",
        params=params,
        data={"query": query},
        files=[("files", (name, data)) for name, data in files],
    )


def start_with_files(api: httpx.Client, agent_id: str, files: list[tuple[str, bytes]]) -> str:
    response = run_with_files(api, agent_id, files)
    assert response.status_code == 201, response.text
    return str(response.json()["task_id"])


def structured(api: httpx.Client, task_id: str, **params: Any) -> dict[str, Any]:
    response = api.get(f"/api/v1/tasks/{task_id}/structured-response", params=params)
    assert response.status_code == 200, response.text
    return dict(response.json())


def tool_results(api: httpx.Client, task_id: str) -> list[dict[str, Any]]:
    return of_type(feed(api, task_id), "tool_result")


def assert_page_box(box: dict[str, Any], file: str) -> None:
    assert isinstance(box["citation_id"], int) and box["file"] == file and box["page"] == 1
    x0, y0, x1, y1 = box["bounding_box"]
    assert 0 <= x0 < x1 <= PAGE["width"] and 0 <= y0 < y1 <= PAGE["height"]
    corners = box["normalized_bounding_box"]
    assert len(corners) == 4 and all(0 <= p["x"] <= 1 and 0 <= p["y"] <= 1 for p in corners)
    # The box is rounded to 1/100 pixel, its normalised corners are computed before rounding.
    assert corners[0]["x"] == pytest.approx(x0 / PAGE["width"], abs=1e-4)
    assert corners[2]["y"] == pytest.approx(y1 / PAGE["height"], abs=1e-4)


def citation_ids(payload: Any) -> list[int]:
    if isinstance(payload, dict):
        if "bounding_boxes" in payload and "value" in payload:
            return [b["citation_id"] for b in payload["bounding_boxes"]]
        return [i for v in payload.values() for i in citation_ids(v)]
    if isinstance(payload, list):
        return [i for v in payload for i in citation_ids(v)]
    return []


def test_extract_by_attachment_name_cites_the_structured_output(
    api: httpx.Client, service: Service, invoice_pdf: bytes
) -> None:
    agent = cited_agent(api, extract_turn(), STRUCTURED_FROM_EXTRACT)
    task_id = start_with_files(api, agent["id"], [("invoice.pdf", invoice_pdf)])
    assert wait_status(api, task_id, timeout=180)["status"] == "completed"

    [result] = tool_results(api, task_id)
    assert result["status"] == "ok", result
    output = result["output"]
    assert output["data"] == INVOICE
    assert output["pages"] == [PAGE]
    assert output["fields"]["invoice_number"]["citations"][0]["file"] == "invoice.pdf"

    plain = structured(api, task_id)
    assert plain["structured_response"] == {
        "invoice_number": "INV-2024-0042",
        "customer": {"name": "Ada Lovelace"},
        "lines": [{"total": "1234.50"}, {"total": "not in any document"}],
        "paid": False,
        "__trace": "internal",
    }
    assert "documents" not in plain

    cited = structured(api, task_id, include_citations="true")
    body = cited["structured_response"]
    assert "__trace" not in body and body["paid"] is False
    assert body["lines"][1] == {"total": "not in any document"}
    for leaf, value in (
        (body["invoice_number"], "INV-2024-0042"),
        (body["customer"]["name"], "Ada Lovelace"),
        (body["lines"][0]["total"], "1234.50"),
    ):
        assert leaf["value"] == value
        assert leaf["bounding_boxes"], leaf
        for box in leaf["bounding_boxes"]:
            assert_page_box(box, "invoice.pdf")
    # The extraction's own citation of the value is the one kept.
    extracted = output["fields"]["invoice_number"]["citations"][0]
    assert body["invoice_number"]["bounding_boxes"][0]["bounding_box"] == extracted["bounding_box"]
    ids = citation_ids(body)
    assert len(ids) == len(set(ids)) >= 3

    [document] = cited["documents"]
    assert document["file"] == "invoice.pdf" and document["pages"] == [PAGE]
    assert document["url"].startswith("/api/v2/files/")
    with httpx.Client(base_url=service.url) as anonymous:
        download = anonymous.get(document["url"])
    assert download.status_code == 200 and download.content == invoice_pdf


def test_sync_run_returns_result_documents(api: httpx.Client, invoice_pdf: bytes) -> None:
    agent = cited_agent(api, extract_turn(), STRUCTURED_FROM_EXTRACT)
    warm = start_with_files(api, agent["id"], [("invoice.pdf", invoice_pdf)])
    wait_status(api, warm, timeout=180)

    reply = run_with_files(
        api,
        agent["id"],
        [("invoice.pdf", invoice_pdf)],
        **{"async": "false", "result": "structured", "include_citations": "true"},
    )
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["outcome"] == "terminal" and body["result_status"] == "completed", body
    assert body["result"]["invoice_number"]["value"] == "INV-2024-0042"
    assert body["result"]["invoice_number"]["bounding_boxes"][0]["page"] == 1
    [document] = body["result_documents"]
    assert document["file"] == "invoice.pdf" and document["pages"] == [PAGE] and "url" in document

    plain = run_with_files(
        api, agent["id"], [("invoice.pdf", invoice_pdf)], **{"async": "false", "result": "structured"}
    ).json()
    assert plain["result"]["invoice_number"] == "INV-2024-0042"
    assert "result_documents" not in plain


def test_parse_by_file_id_grounds_values_the_model_wrote(api: httpx.Client, service: Service) -> None:
    pdf = documents.pdf_text(
        [["ACME Supplies", "Invoice Number: A-778", "Invoice Date: 2024-03-01", "Total: 99.95"]]
    )
    uploaded = api.post("/api/v2/files", files={"file": ("acme.pdf", pdf)}).json()
    file_id = uploaded["file_id"]
    agent = cited_agent(
        api,
        {"tool_calls": [{"name": "parse_document", "arguments": {"input": file_id}}]},
        {
            "answer": "read",
            "structured": {"vendor": "ACME Supplies", "total": 99.95, "number": "A-778", "city": "Zanzibar"},
        },
    )
    response = api.post(f"/api/v1/agents/{agent['id']}/run", json={"query": "read", "file_ids": [file_id]})
    assert response.status_code == 201, response.text
    task_id = response.json()["task_id"]
    assert wait_status(api, task_id, timeout=180)["status"] == "completed"
    [result] = tool_results(api, task_id)
    assert result["status"] == "ok" and "ACME Supplies" in result["output"]["content"]
    assert result["output"]["pages"] == [PAGE]

    body = structured(api, task_id, include_citations="true")
    cited = body["structured_response"]
    assert cited["city"] == "Zanzibar"
    for name, value in (("vendor", "ACME Supplies"), ("total", 99.95), ("number", "A-778")):
        assert cited[name]["value"] == value
        for box in cited[name]["bounding_boxes"]:
            assert_page_box(box, "acme.pdf")
    # Lines go down the page: the total is printed below the vendor's name.
    vendor_box = cited["vendor"]["bounding_boxes"][0]["bounding_box"]
    total_box = cited["total"]["bounding_boxes"][0]["bounding_box"]
    assert total_box[1] > vendor_box[3]
    [document] = body["documents"]
    assert document["file"] == "acme.pdf" and document["pages"] == [PAGE] and "url" in document

    # A deleted file keeps its citations; only the link goes.
    assert api.delete(f"/api/v2/files/{file_id}").status_code == 200
    after = structured(api, task_id, include_citations="true")
    assert after["structured_response"] == cited
    assert after["documents"] == [{"file": "acme.pdf", "pages": [PAGE]}]


def test_spreadsheet_and_text_citation_shapes(api: httpx.Client) -> None:
    book = documents.xlsx([["Item", "Amount"], ["Widget", 42]])
    notes = b"Meeting notes\nOwner: Grace Hopper\nBudget approved\n"
    agent = cited_agent(
        api,
        {
            "tool_calls": [
                {"name": "parse_document", "arguments": {"input": "book.xlsx"}},
                {"name": "parse_document", "arguments": {"input": "notes.txt"}},
            ]
        },
        {"answer": "ok", "structured": {"item": "Widget", "owner": "Grace Hopper"}},
    )
    task_id = start_with_files(api, agent["id"], [("book.xlsx", book), ("notes.txt", notes)])
    assert wait_status(api, task_id, timeout=180)["status"] == "completed"
    assert [r["status"] for r in tool_results(api, task_id)] == ["ok", "ok"]

    body = structured(api, task_id, include_citations="true")
    cells = body["structured_response"]["item"]["bounding_boxes"]
    assert all(set(c) == {"citation_id", "file", "sheet", "cell"} for c in cells), cells
    [cell] = [c for c in cells if c["cell"] == "A2"]
    assert cell["file"] == "book.xlsx" and cell["sheet"] == "Sheet"
    [line] = body["structured_response"]["owner"]["bounding_boxes"]
    assert {k: line[k] for k in ("file", "line_start", "line_end")} == {
        "file": "notes.txt",
        "line_start": 2,
        "line_end": 2,
    }
    assert cell["citation_id"] != line["citation_id"]
    assert sorted(d["file"] for d in body["documents"]) == ["book.xlsx", "notes.txt"]


def test_classify_an_attachment(api: httpx.Client, invoice_pdf: bytes) -> None:
    arguments = {
        "input": "INVOICE.PDF",
        "classify_config": {"categories": ["invoice", "recipe"], "prompt_mode": "rules"},
    }
    agent = create_agent(
        api,
        scripted(
            {"tool_calls": [{"name": "classify_document", "arguments": arguments}]},
            {"answer": "{{last_tool_result.classification.category}}"},
        ),
    )
    task_id = start_with_files(api, agent["id"], [("invoice.pdf", invoice_pdf)])
    assert wait_status(api, task_id, timeout=180)["status"] == "completed"
    [result] = tool_results(api, task_id)
    assert result["status"] == "ok", result
    classification = result["output"]["classification"]
    assert classification["category"] == "invoice" and 0 < classification["confidence"] <= 1
    summary = api.get(f"/api/v1/tasks/{task_id}/summary").json()["summary"]
    assert summary == "invoice"


def test_an_unknown_attachment_is_an_error_the_model_sees(api: httpx.Client, invoice_pdf: bytes) -> None:
    agent = create_agent(api, scripted(extract_turn("nope.pdf"), {"answer": "{{last_tool_result.error}}"}))
    task_id = start_with_files(api, agent["id"], [("invoice.pdf", invoice_pdf)])
    assert wait_status(api, task_id, timeout=180)["status"] == "completed"
    [result] = tool_results(api, task_id)
    assert result["status"] == "error"
    assert "no attachment named 'nope.pdf'" in result["error"] and "'invoice.pdf'" in result["error"]
    summary = api.get(f"/api/v1/tasks/{task_id}/summary").json()["summary"]
    assert summary == result["error"]


def test_a_document_that_cannot_be_read_is_an_error_the_model_sees(api: httpx.Client) -> None:
    other = api.post("/api/v2/files", files={"file": ("a.pdf", documents.pdf_text([["x"]]))}).json()
    api.delete(f"/api/v2/files/{other['file_id']}")
    agent = create_agent(
        api,
        scripted(
            {"tool_calls": [{"name": "parse_document", "arguments": {"input": other["file_id"]}}]},
            {"answer": "{{last_tool_result.error}}"},
        ),
    )
    response = api.post(f"/api/v1/agents/{agent['id']}/run", json={"query": "go"})
    task_id = response.json()["task_id"]
    assert wait_status(api, task_id, timeout=180)["status"] == "completed"
    [result] = tool_results(api, task_id)
    assert result["status"] == "error" and "not found" in result["error"]


def test_an_agent_without_citations_returns_plain_output(api: httpx.Client, invoice_pdf: bytes) -> None:
    agent = cited_agent(api, extract_turn(), STRUCTURED_FROM_EXTRACT, citations=False)
    task_id = start_with_files(api, agent["id"], [("invoice.pdf", invoice_pdf)])
    assert wait_status(api, task_id, timeout=180)["status"] == "completed"
    plain = structured(api, task_id)
    cited = structured(api, task_id, include_citations="true")
    assert cited["structured_response"] == plain["structured_response"]
    assert cited["structured_response"]["invoice_number"] == "INV-2024-0042"
    assert "documents" not in cited
