"""Looking for an output's values in a parsed document, and the cache of parsed documents."""

from __future__ import annotations

import pytest

from extraction.fields.documents.locate import locate_values
from extraction.jobs.parsed_cache import ParsedCache
from tests.unit.extraction.doc_builders import DocBuilder, sheet_document, text_document

pytestmark = pytest.mark.unit


def test_locate_answers_pages_and_each_values_citations_in_order() -> None:
    builder = DocBuilder()
    builder.line("ACME Supplies", 72, 60)
    builder.line("Total: 99.95", 72, 100)
    found = locate_values(builder.doc, ["ACME Supplies", 99.95, "missing"], file_name="a.pdf")
    assert found["pages"] == [{"page": 1, "width": 600, "height": 800}]
    vendor, total, missing = found["citations"]
    assert [c["bounding_box"][1] for c in vendor] == [60]
    assert [c["bounding_box"][1] for c in total] == [100]
    assert all(c["file"] == "a.pdf" and c["page"] == 1 for c in vendor + total)
    assert missing == []


def test_locate_in_sheets_and_text_files() -> None:
    sheet = locate_values(sheet_document({"A1": "Item", "A2": "Widget"}), ["Widget"], file_name="b.xlsx")
    assert sheet["citations"] == [[{"file": "b.xlsx", "sheet": "Sheet1", "cell": "A2"}]]
    assert sheet["pages"] == [{"page": 1}]
    text = locate_values(text_document("one\nOwner: Grace\n"), ["Grace"], file_name="n.txt")
    assert text["citations"] == [[{"file": "n.txt", "line_start": 2, "line_end": 2}]]


def test_the_cache_keeps_the_most_recently_used() -> None:
    cache = ParsedCache(capacity=2)
    a, b, c = ParsedCache.key("h1", "a.pdf"), ParsedCache.key("h2", "b.pdf"), ParsedCache.key("h3", "c.pdf")
    cache.put(a, ["ra"])
    cache.put(b, ["rb"])
    assert cache.get(a) == ["ra"]
    cache.put(c, ["rc"])
    assert cache.get(b) is None and cache.get(a) == ["ra"] and cache.get(c) == ["rc"]
    cache.drop(a)
    assert cache.get(a) is None and len(cache) == 1


def test_the_cache_needs_a_content_hash() -> None:
    cache = ParsedCache()
    assert ParsedCache.key("", "a.pdf") is None
    cache.put(None, ["r"])
    assert len(cache) == 0 and cache.get(None) is None
    assert ParsedCache.key("h", "a.pdf") != ParsedCache.key("h", "b.pdf")
