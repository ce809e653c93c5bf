import pytest

from extraction.formats.document import Document, Element
from extraction.formats.engines import document_confidence, merge_documents, parse_bytes
from extraction.formats.errors import PageRangeError
from extraction.formats.markdown import to_markdown
from extraction.formats.pdf import parse_pdf, pdf_page_count, text_quality
from extraction.formats.pdf_geometry import load_pymupdf
from tests.unit.extraction import builders

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def report():
    return parse_pdf(builders.pdf_with_everything(), "report.pdf")


def by_type(document: Document, kind: str) -> list[Element]:
    return [e for e in document.elements if e.type == kind]


def test_page_size_in_points(report):
    assert [(p.page, p.width, p.height) for p in report.pages] == [(1, 612.0, 792.0)]
    assert report.page_count == 1


def test_title_with_level_from_font_size(report):
    titles = by_type(report, "title")
    assert [(t.text, t.level) for t in titles] == [("Quarterly Report", 1)]


def test_paragraph_keeps_its_lines_with_boxes(report):
    paragraph = next(e for e in report.elements if e.text.startswith("This paragraph"))
    assert paragraph.type == "text"
    assert [line.text for line in paragraph.lines] == [
        "This paragraph explains the report in plain words.",
        "It continues on a second line of body text.",
    ]
    first, second = (line.box for line in paragraph.lines)
    assert 90 < first.y0 < first.y1 <= second.y0 + 1 < 135
    assert paragraph.box is not None and paragraph.box.x0 == pytest.approx(72, abs=1)


def test_list_items_are_separate_elements(report):
    items = by_type(report, "list")
    assert [i.text.split(" ", 1)[1] for i in items] == ["First point", "Second point"]
    assert "- First point\n\n- Second point" in to_markdown(report)


def test_ruled_table_becomes_rows_and_cell_lines(report):
    (table,) = by_type(report, "table")
    assert table.rows == [["Item", "Qty", "Price"], ["Apple", "3", "1.20"], ["Pear", "5", "0.80"]]
    assert table.text.splitlines()[0] == "| Item | Qty | Price |"
    assert [c.text for c in table.lines][:3] == ["Item", "Qty", "Price"]
    price = table.lines[-1]
    assert price.text == "0.80" and 332 <= price.box.x0 < price.box.x1 <= 462
    # Table text is not repeated as loose paragraphs.
    assert not [e for e in report.elements if e.type == "text" and "Apple" in e.text]


def test_form_widgets_with_values(report):
    fields = {e.field_name: e for e in by_type(report, "form_field")}
    assert {name: e.text for name, e in fields.items()} == {
        "applicant": "Ada Lovelace",
        "subscribed": "true",
        "unsubscribed": "false",
        "country": "Japan",
    }
    applicant = fields["applicant"]
    assert applicant.source == "form_fields" and applicant.confidence == 1.0
    assert applicant.box is not None and (applicant.box.x0, applicant.box.y0) == (180, 306)
    # The widget's appearance text is not duplicated as page text.
    assert [e.type for e in report.elements if "Ada Lovelace" in e.text] == ["form_field"]


def test_reading_order_and_ids(report):
    kinds = [e.type for e in report.elements]
    assert kinds[0] == "title" and kinds.index("table") < kinds.index("form_field")
    assert [e.id for e in report.elements] == [f"p1-e{n}" for n in range(1, len(report.elements) + 1)]
    label = next(i for i, e in enumerate(report.elements) if e.text == "Applicant name:")
    assert report.elements[label + 1].field_name == "applicant"


def test_confidence_of_a_filled_form(report):
    overall, pages, source = document_confidence(report)
    assert source == "form_fields"
    assert overall == pages["1"] == 1.0


def test_page_range_and_merge_match_a_whole_parse():
    data = builders.pdf_pages(5)
    assert pdf_page_count(data) == 5
    whole = parse_pdf(data, "five.pdf")
    parts = [parse_pdf(data, "five.pdf", first_page=4, last_page=5), parse_pdf(data, "five.pdf", last_page=3)]
    assert [p.page for p in parts[0].pages] == [4, 5]
    assert parts[0].page_count == 5
    merged = merge_documents(parts)
    assert [p.page for p in merged.pages] == [1, 2, 3, 4, 5]
    assert [(e.id, e.text) for e in merged.elements] == [(e.id, e.text) for e in whole.elements]
    assert merged.elements[3].text == "This is page number 4 of the test document."


def test_page_range_outside_the_document():
    data = builders.pdf_pages(2)
    with pytest.raises(PageRangeError):
        parse_pdf(data, "two.pdf", first_page=3)
    assert [p.page for p in parse_pdf(data, "two.pdf", first_page=2, last_page=9).pages] == [2]


def test_rotated_page_boxes_follow_the_displayed_page():
    document = parse_pdf(builders.pdf_pages(1, rotation=90), "turned.pdf")
    page = document.pages[0]
    assert (page.width, page.height) == (842, 595)
    box = document.elements[0].box
    assert box is not None
    # Text written left to right near the top of the unrotated page runs top to bottom near the
    # right edge once the page is turned clockwise.
    assert box.y1 - box.y0 > box.x1 - box.x0
    assert 0 <= box.x0 < box.x1 <= page.width and 0 <= box.y0 < box.y1 <= page.height
    assert box.x0 > page.width / 2


def test_two_columns_read_column_by_column():
    pymupdf = load_pymupdf()
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), "Two Column Article Title", fontsize=20)
    filler = " and more words to fill the column" * 3
    for i in range(3):
        # Paragraph breaks at the same heights in both columns: a trap for row-by-row reading.
        y = 120 + i * 80
        page.insert_textbox(pymupdf.Rect(72, y, 290, y + 60), f"Left paragraph {i + 1}{filler}", fontsize=10)
        page.insert_textbox(
            pymupdf.Rect(322, y, 540, y + 60), f"Right paragraph {i + 1}{filler}", fontsize=10
        )
    document = parse_pdf(doc.tobytes(), "columns.pdf")
    texts = [e.text.split(" and more")[0] for e in document.elements]
    assert texts == [
        "Two Column Article Title",
        "Left paragraph 1",
        "Left paragraph 2",
        "Left paragraph 3",
        "Right paragraph 1",
        "Right paragraph 2",
        "Right paragraph 3",
    ]


def test_scanned_page_is_read_by_ocr_with_boxes_in_page_points():
    document = parse_bytes(builders.scanned_pdf(), "scan.pdf")
    page = document.pages[0]
    assert page.source == "ocr"
    words = " ".join(e.text for e in document.elements).upper()
    for word in builders.WORDS:
        assert word in words
    total = next(line for e in document.elements for line in e.lines if "TOTAL" in line.text.upper())
    # "TOTAL" was drawn at y = 130 pt (baseline), 36 pt high, x from 40 pt.
    assert total.box.x0 == pytest.approx(40, abs=12)
    assert 90 < total.box.y0 < total.box.y1 < 145
    overall, pages, source = document_confidence(document)
    assert source == "ocr"
    assert 0.5 < overall < 1.0 and pages["1"] == page.confidence
    assert all(e.source == "ocr" and 0.5 <= e.confidence <= 1.0 for e in document.elements)


def test_text_quality_counts_unmapped_glyphs():
    assert text_quality("clean text") == 1.0
    assert text_quality("\ufffd" * 5 + "a" * 95) == pytest.approx(0.9)
    assert text_quality("\ufffd" * 60 + "a" * 40) == 0.0


def test_blank_page_with_a_rule_is_not_sent_to_ocr(monkeypatch):
    import extraction.formats.pdf

    def no_ocr(*args):
        raise AssertionError("a blank page must not be OCR'd")

    monkeypatch.setattr(extraction.formats.pdf, "_ocr_page", no_ocr)
    doc = load_pymupdf().open()
    page = doc.new_page()
    page.draw_line((72, 400), (520, 400))
    document = parse_pdf(doc.tobytes(), "blank.pdf")
    assert document.elements == [] and document.pages[0].confidence is None


def test_labels_and_values_on_a_baseline_read_as_rows_top_down():
    doc = load_pymupdf().open()
    page = doc.new_page(width=612, height=792)
    # Drawn bottom-up and value before label, as some invoice generators do.
    page.insert_text((400, 140), "EUR 12.50", fontsize=10)
    page.insert_text((72, 140), "Amount due:", fontsize=10)
    page.insert_text((400, 120), "7 May 2014", fontsize=10)
    page.insert_text((72, 120), "Invoice date:", fontsize=10)
    document = parse_pdf(doc.tobytes(), "invoice.pdf")
    rows = [line.text for e in document.elements for line in e.lines]
    assert rows == ["Invoice date: 7 May 2014", "Amount due: EUR 12.50"]
    date_row = document.elements[0].lines[0]
    assert date_row.box.x0 == pytest.approx(72, abs=1) and date_row.box.x1 > 440
