import pytest

from extraction.formats.document import Box, Document, Element, Page
from extraction.formats.engines import (
    count_pages,
    document_confidence,
    elements_payload,
    merge_documents,
    pages_payload,
    parse_bytes,
)
from extraction.formats.errors import InvalidDocument

pytestmark = pytest.mark.unit


def page_doc(page: int, *elements: Element, confidence: float | None = 1.0, source="text_layer") -> Document:
    return Document(
        "f.pdf",
        "pdf",
        pages=[Page(page, 200, 100, confidence, source)],
        elements=list(elements),
        page_count=3,
    )


def test_payload_shapes():
    document = Document(
        "f.pdf",
        "pdf",
        pages=[Page(1, 200.4, 100.0)],
        elements=[Element("p1-e1", "form_field", 1, "Ada", box=Box(20, 10, 120, 30), field_name="name")],
    )
    assert elements_payload(document) == [
        {
            "id": "p1-e1",
            "type": "form_field",
            "page": 1,
            "text": "Ada",
            "bounding_box": [20.0, 10.0, 120.0, 30.0],
            "normalized_bounding_box": [
                {"x": 0.0998, "y": 0.1},
                {"x": 0.598802, "y": 0.1},
                {"x": 0.598802, "y": 0.3},
                {"x": 0.0998, "y": 0.3},
            ],
            "field_name": "name",
        }
    ]
    assert pages_payload(document) == [{"page": 1, "width": 200, "height": 100}]


def test_confidence_weighs_pages_by_their_text():
    long_clean = Element("p1-e1", "text", 1, "x" * 900)
    short_ocr = Element("p2-e1", "text", 2, "y" * 100, confidence=0.5, source="ocr")
    document = merge_documents(
        [
            page_doc(1, long_clean),
            page_doc(2, short_ocr, confidence=0.5, source="ocr"),
            page_doc(3, confidence=None),
        ]
    )
    overall, pages, source = document_confidence(document)
    assert pages == {"1": 1.0, "2": 0.5}
    assert overall == pytest.approx(0.95)
    assert source == "text_layer"


def test_confidence_source_follows_most_of_the_text():
    scan = merge_documents(
        [
            page_doc(1, Element("p1-e1", "text", 1, "short"), confidence=1.0),
            page_doc(
                2,
                Element("p2-e1", "text", 2, "z" * 500, confidence=0.8, source="ocr"),
                confidence=0.8,
                source="ocr",
            ),
        ]
    )
    assert document_confidence(scan)[2] == "ocr"


def test_merge_orders_pages_and_drops_repeated_pages():
    a = page_doc(2, Element("p2-e1", "text", 2, "two"))
    b = page_doc(1, Element("p1-e1", "text", 1, "one"), Element("p1-e2", "text", 1, "one b"))
    again = page_doc(2, Element("p2-e1", "text", 2, "two again"))
    merged = merge_documents([a, b, again])
    assert [p.page for p in merged.pages] == [1, 2]
    assert [(e.id, e.text) for e in merged.elements] == [
        ("p1-e1", "one"),
        ("p1-e2", "one b"),
        ("p2-e1", "two"),
    ]
    assert merged.page_count == 3
    with pytest.raises(ValueError):
        merge_documents([])


def test_library_failures_become_invalid_document(monkeypatch):
    import extraction.formats.text

    def explode(data, filename):
        raise KeyError("internal detail")

    monkeypatch.setattr(extraction.formats.text, "parse_text", explode)
    with pytest.raises(InvalidDocument, match="TEXT file could not be read") as caught:
        parse_bytes(b"plain words", "a.txt")
    assert isinstance(caught.value.__cause__, KeyError)


def test_count_pages_plans_ranges_without_parsing():
    from tests.unit.extraction import builders

    assert count_pages(builders.pdf_pages(3), "pdf") == 3
    frame = builders.text_image(("A",))
    assert count_pages(builders.image_bytes(frame, "TIFF", save_all=True, append_images=[frame]), "tiff") == 2
    assert count_pages(b"just text", "text") == 1


def test_page_plan_tells_a_scan_from_a_text_layer():
    from extraction.formats.engines import page_plan
    from tests.unit.extraction import builders

    assert page_plan(builders.pdf_pages(3), "pdf") == (3, False)
    assert page_plan(builders.scanned_pdf(), "pdf") == (1, True)
    frame = builders.text_image(("A",))
    assert page_plan(builders.image_bytes(frame, "TIFF", save_all=True, append_images=[frame]), "tiff") == (
        2,
        True,
    )
