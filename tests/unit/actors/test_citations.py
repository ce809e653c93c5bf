"""Citations of structured output: leaf paths, value matching, merging and numbering."""

from __future__ import annotations

from typing import Any

import pytest

from actors.citations import Located, assemble, known_citations, structured_leaves, value_key
from core.tasks import Task
from core.tasks.results import cited_structured
from extraction.fields.documents.grounding import MAX_CITATIONS
from tests.support.task_records import task_spec
from tools.documents.processed import KnownValue, ProcessedDocument

pytestmark = pytest.mark.unit

OUTPUT = {
    "name": "Ada",
    "total": 12.5,
    "count": 3,
    "paid": True,
    "note": None,
    "blank": "  ",
    "address": {"city": "London", "lines": ["1 Main St", {"unit": "4B"}]},
    "__trace": "internal",
    "items": [{"sku": "A-1"}, ["x"]],
}


def box(file: str, y: float) -> dict[str, Any]:
    return {"file": file, "page": 1, "bounding_box": [0, y, 10, y + 5]}


def doc(file: str, *values: KnownValue, pages: list[dict[str, Any]] | None = None) -> ProcessedDocument:
    return ProcessedDocument(file_id=f"file://{file}", file=file, pages=pages or [], values=list(values))


def test_leaves_are_the_string_and_number_values_with_result_paths() -> None:
    assert list(structured_leaves(OUTPUT)) == [
        ("name", "Ada"),
        ("total", 12.5),
        ("count", 3),
        ("address.city", "London"),
        ("address.lines[0]", "1 Main St"),
        ("address.lines[1].unit", "4B"),
        ("items[0].sku", "A-1"),
        ("items[1][0]", "x"),
    ]
    assert list(structured_leaves(["a", 1])) == [("[0]", "a"), ("[1]", 1)]
    assert list(structured_leaves("alone")) == [("", "alone")]
    assert list(structured_leaves(None)) == []


def test_values_match_by_text_or_by_magnitude() -> None:
    assert value_key(" INV-1 ") == value_key("INV-1")
    assert value_key("inv-1") != value_key("INV-1")
    assert value_key(12) == value_key(12.0)
    assert value_key("12") != value_key(12)
    assert value_key(True) is None and value_key(None) is None and value_key(" ") is None


def test_known_citations_merge_every_extraction_of_a_value() -> None:
    first = box("a.pdf", 10)
    second = box("a.pdf", 50)
    documents = [
        doc("a.pdf", KnownValue("INV-1", [first]), KnownValue("INV-1", [first, second])),
        doc("b.pdf", KnownValue(7, [box("b.pdf", 1)])),
    ]
    known = known_citations(documents)
    assert known[("text", "INV-1")] == [first, second]
    assert known[("number", 7.0)] == [box("b.pdf", 1)]


def test_assemble_prefers_extraction_citations_and_numbers_every_item() -> None:
    extracted = box("a.pdf", 10)
    leaves = [("number", "INV-1"), ("again", "INV-1"), ("city", "London"), ("ghost", "nowhere")]
    documents = [doc("a.pdf", pages=[{"page": 1}]), doc("b.pdf")]
    located = [
        Located(
            documents[1], [{"page": 1, "width": 600, "height": 800}], {("text", "London"): [box("b.pdf", 5)]}
        ),
        Located(
            documents[0], [{"page": 1, "width": 595, "height": 842}], {("text", "London"): [box("a.pdf", 9)]}
        ),
    ]
    citations = assemble(leaves, {("text", "INV-1"): [extracted]}, located, documents)
    assert citations is not None
    leaves_out = citations["leaves"]
    assert set(leaves_out) == {"number", "again", "city"}
    assert leaves_out["number"] == [{"citation_id": 1, **extracted}]
    assert leaves_out["again"] == [{"citation_id": 2, **extracted}]
    assert [c["citation_id"] for c in leaves_out["city"]] == [3, 4]
    assert [c["file"] for c in leaves_out["city"]] == ["b.pdf", "a.pdf"]
    assert citations["documents"] == [
        {"file": "a.pdf", "file_id": "file://a.pdf", "pages": [{"page": 1, "width": 595, "height": 842}]},
        {"file": "b.pdf", "file_id": "file://b.pdf", "pages": [{"page": 1, "width": 600, "height": 800}]},
    ]


def test_assemble_keeps_tool_pages_of_a_document_it_did_not_search() -> None:
    pages = [{"page": 1, "width": 595, "height": 842}]
    documents = [doc("a.pdf", pages=pages)]
    citations = assemble([("n", 1)], {("number", 1.0): [box("a.pdf", 1)]}, [], documents)
    assert citations is not None and citations["documents"] == [
        {"file": "a.pdf", "file_id": "file://a.pdf", "pages": pages}
    ]


def test_assemble_dedupes_and_caps_what_the_search_found() -> None:
    many = [box("a.pdf", y) for y in range(MAX_CITATIONS + 5)]
    documents = [doc("a.pdf")]
    located = [Located(documents[0], [], {("text", "1"): many + many[:3]})]
    citations = assemble([("v", "1")], {}, located, documents)
    assert citations is not None and len(citations["leaves"]["v"]) == MAX_CITATIONS


def test_nothing_cited_is_no_citations() -> None:
    documents = [doc("a.pdf")]
    assert assemble([("v", "x")], {}, [Located(documents[0], [], {})], documents) is None


def test_assembled_paths_are_the_ones_results_cite() -> None:
    leaves = list(structured_leaves(OUTPUT))
    documents = [doc("a.pdf")]
    found = {value_key(v): [box("a.pdf", i)] for i, (_, v) in enumerate(leaves)}
    citations = assemble(leaves, {}, [Located(documents[0], [], found)], documents)  # type: ignore[arg-type]
    spec = task_spec()
    task = Task(spec=spec, status="completed", updated_at="", structured=OUTPUT, citations=citations)
    payload, _ = cited_structured(task)
    assert payload["name"]["value"] == "Ada" and payload["total"]["value"] == 12.5
    assert payload["address"]["lines"][0]["value"] == "1 Main St"
    assert payload["address"]["lines"][1]["unit"]["value"] == "4B"
    assert payload["items"][1][0]["value"] == "x"
    assert payload["paid"] is True and payload["note"] is None and "__trace" not in payload
