"""Shapes of job results built from real (generated) documents, without Ray."""

from __future__ import annotations

import csv
import io
import json

import pytest

from extraction.formats.engines import parse_bytes
from extraction.jobs.results import finish
from extraction.jobs.stages import DocumentSpec
from tests.support import documents

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def doc():
    return parse_bytes(documents.pdf_text([["Invoice Number: Z-9", "Total: 5.00"], ["Second page"]]), "z.pdf")


def spec(kind: str, params: dict) -> DocumentSpec:
    return DocumentSpec(kind=kind, params=params, filename="z.pdf", format="pdf", file_size=10, sha256="ab")


def test_parse_result_keys_and_page_markers(doc) -> None:
    result = finish(spec("parse", {"include_metadata": True}), [doc], None).result
    assert set(result) == {
        "content",
        "elements",
        "pages",
        "overall_confidence",
        "page_confidence",
        "confidence_source",
        "metadata",
    }
    assert result["content"].startswith("<!-- page 1 -->")
    assert result["metadata"] == {
        "filename": "z.pdf",
        "format": "pdf",
        "file_size": 10,
        "sha256": "ab",
        "page_count": 2,
    }
    bare = finish(spec("parse", {"markdown_options": {"page_markers": False}}), [doc], None).result
    assert "<!--" not in bare["content"] and "Second page" in bare["content"]


def test_split_parts_merge_like_a_whole_parse(doc) -> None:
    data = documents.pdf_text([["Invoice Number: Z-9", "Total: 5.00"], ["Second page"]])
    parts = [parse_bytes(data, "z.pdf", first_page=1, last_page=1), parse_bytes(data, "z.pdf", first_page=2)]
    whole = finish(spec("parse", {}), [doc], None).result
    assert finish(spec("parse", {}), parts, None).result == whole


def test_extract_rules_result_json_and_csv(doc) -> None:
    names = ["invoice_number", "total", "iban"]
    as_json = finish(spec("extract", {"json_options": names, "prompt_mode": "rules"}), [doc], None).result
    assert as_json["data"]["invoice_number"] == "Z-9" and as_json["data"]["iban"] is None
    assert json.loads(as_json["content"]) == as_json["data"]
    assert set(as_json["fields"]["iban"]) == {"value", "confidence", "citations", "review_reasons", "state"}
    assert as_json["fields"]["iban"]["state"] == "not_found"
    assert as_json["overall_confidence"] == pytest.approx(
        sum(f["confidence"] for f in as_json["fields"].values()) / 3, abs=1e-4
    )
    as_csv = finish(
        spec(
            "extract",
            {"json_options": names, "output_format": "csv", "csv_options": {"include_header": False}},
        ),
        [doc],
        None,
    ).result
    (row,) = list(csv.reader(io.StringIO(as_csv["content"])))
    assert row[0] == "Z-9" and row[2] == ""


def test_auto_without_a_model_never_asks(doc) -> None:
    stage = finish(spec("extract", {"json_options": ["iban"], "prompt_mode": "auto"}), [doc], None)
    assert stage.model_messages is None and stage.result["data"] == {"iban": None}
