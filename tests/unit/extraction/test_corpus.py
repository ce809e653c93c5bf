"""The engines on real documents of the shared corpus (read-only)."""

import json
from pathlib import Path

import pytest

from extraction.formats.engines import document_confidence, elements_payload, parse_bytes
from extraction.formats.markdown import to_markdown

pytestmark = pytest.mark.unit

# CI clones the repository with shared/ beside it.
CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not present")


def expected_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@needs_corpus
@pytest.mark.parametrize("name", sorted(p.name for p in (CORPUS / "forms").glob("*.pdf")))
def test_forms_parse_and_stated_values_match(name):
    document = parse_bytes((CORPUS / "forms" / name).read_bytes(), name)
    fields = {e.field_name: e.text for e in document.elements if e.type == "form_field"}
    assert fields, "every corpus form has widgets"
    assert document.text.strip()
    expected = json.loads((CORPUS / "forms" / "expected.json").read_text())[name]
    assert {k: fields.get(k) for k in expected} == {k: expected_value(v) for k, v in expected.items()}
    if expected:
        assert document_confidence(document)[2] == "form_fields"


@needs_corpus
@pytest.mark.parametrize(
    ("name", "words"), [("000.jpg", ["9.00", "25/12/2018"]), ("001.jpg", ["60.30", "INDAH"])]
)
def test_receipts_are_read_by_ocr(name, words):
    document = parse_bytes((CORPUS / "receipts" / name).read_bytes(), name)
    assert document.format == "jpeg"
    text = document.text.upper()
    for word in words:
        assert word in text
    overall, _, source = document_confidence(document)
    assert source == "ocr" and 0.7 < overall < 1.0
    page = document.pages[0]
    for item in elements_payload(document):
        x0, y0, x1, y1 = item["bounding_box"]
        assert 0 <= x0 < x1 <= page.width + 1 and 0 <= y0 < y1 <= page.height + 1


@needs_corpus
@pytest.mark.parametrize("index", [0, 17, 42])
def test_nda_pdfs_have_text_on_every_page(index):
    path = sorted((CORPUS / "nda").glob("*.pdf"))[index]
    document = parse_bytes(path.read_bytes(), path.name)
    assert len(document.pages) == document.page_count >= 2
    for page in document.pages:
        assert any(e.page == page.page and e.text for e in document.elements)
    assert document_confidence(document)[2] == "text_layer"
    markdown = to_markdown(document)
    assert markdown.count("<!-- page ") == document.page_count
    assert len(markdown) > 1000


@needs_corpus
def test_invoice_table_rows_keep_their_spaces():
    document = parse_bytes((CORPUS / "invoices" / "AmazonWebServices.pdf").read_bytes(), "aws.pdf")
    rows = [row for e in document.elements if e.type == "table" for row in e.rows or []]
    assert ["Total for this invoice", "$4.11"] in rows
