import pytest

from extraction.formats.engines import document_confidence, elements_payload, pages_payload, parse_bytes
from extraction.formats.errors import DocumentTooLarge
from extraction.formats.markdown import to_markdown
from extraction.formats.xlsx import format_cell, parse_xlsx
from tests.unit.extraction import builders

pytestmark = pytest.mark.unit


def test_docx_headings_paragraphs_lists_tables_in_order():
    document = parse_bytes(builders.docx_document(), "summary.docx")
    assert document.format == "docx"
    assert [(e.type, e.level, e.text) for e in document.elements] == [
        ("title", 1, "Annual Summary"),
        ("title", 1, "Results"),
        ("text", None, "Revenue grew in every region."),
        ("list", None, "North"),
        ("list", None, "South"),
        ("table", None, document.elements[5].text),
        ("footer", None, "Confidential"),
    ]
    assert document.elements[5].rows == [["Region", "Revenue"], ["North", "1,200"]]
    assert all(e.box is None and e.page == 1 for e in document.elements)
    assert pages_payload(document) == [{"page": 1}]
    assert document_confidence(document) == (1.0, {"1": 1.0}, "text_layer")
    markdown = to_markdown(document)
    assert "# Annual Summary" in markdown and "- North\n\n- South" in markdown
    assert "| Region | Revenue |\n|---|---|\n| North | 1,200 |" in markdown


def test_xlsx_one_page_per_sheet_with_cells():
    document = parse_bytes(builders.xlsx_workbook(), "book.xlsx")
    assert [(p.page, p.label) for p in document.pages] == [(1, "Invoices"), (2, "Notes"), (3, "Empty")]
    cells = {(e.sheet, e.cell): e.text for e in document.elements if e.parent}
    assert cells == {
        ("Invoices", "A1"): "Number",
        ("Invoices", "B1"): "Date",
        ("Invoices", "C1"): "Total",
        ("Invoices", "A2"): "INV-7",
        ("Invoices", "B2"): "2024-03-05",
        ("Invoices", "C2"): "1,234.50",
        ("Invoices", "A4"): "Paid",
        ("Invoices", "B4"): "TRUE",
        ("Notes", "B3"): "Remember the deadline",
    }
    table = document.elements[0]
    assert (table.type, table.sheet, table.cell, table.id) == ("table", "Invoices", "A1:C4", "p1-e1")
    assert table.rows == [
        ["Number", "Date", "Total"],
        ["INV-7", "2024-03-05", "1,234.50"],
        ["Paid", "TRUE", ""],
    ]
    assert all(e.parent == "p1-e1" for e in document.elements if e.page == 1 and e.type != "table")
    payload = elements_payload(document)
    assert {
        "id": "p2-e2",
        "type": "text",
        "page": 2,
        "text": "Remember the deadline",
        "sheet": "Notes",
        "cell": "B3",
    } in payload
    assert all("bounding_box" not in item for item in payload)
    # The table renders once, under its sheet's name; cells are not repeated.
    markdown = to_markdown(document)
    assert markdown.count("INV-7") == 1 and "## Notes" in markdown
    assert document_confidence(document)[1] == {"1": 1.0, "2": 1.0}


def test_xlsx_cell_cap():
    with pytest.raises(DocumentTooLarge, match="cells"):
        parse_xlsx(builders.xlsx_workbook(), "book.xlsx", max_cells=5)


@pytest.mark.parametrize(
    ("value", "number_format", "shown"),
    [
        (3.0, "General", "3"),
        (0.125, "General", "0.125"),
        (0.125, "0.00%", "12.50%"),
        (1234.5, "#,##0.00", "1,234.50"),
        (7, "0.000", "7.000"),
        (False, "General", "FALSE"),
        ("  padded ", "General", "padded"),
    ],
)
def test_cell_formatting(value, number_format, shown):
    assert format_cell(value, number_format) == shown


def test_pptx_slides_titles_lists_tables_with_shape_boxes():
    document = parse_bytes(builders.pptx_presentation(), "deck.pptx")
    assert [(p.page, p.width, p.height) for p in document.pages] == [(1, 720, 540), (2, 720, 540)]
    first = [(e.type, e.text) for e in document.elements if e.page == 1]
    assert first == [("title", "Launch Plan"), ("list", "Build the prototype"), ("list", "Ship to customers")]
    second = [e for e in document.elements if e.page == 2]
    assert [e.type for e in second] == ["title", "table", "text"]
    assert second[1].rows == [["Item", "Cost"], ["Servers", "900"]]
    # The table was placed at (1 in, 2 in), 4 in x 1 in: points are 72 per inch.
    assert second[1].box is not None and second[1].box.as_list() == [72.0, 144.0, 360.0, 216.0]
    assert second[2].text == "Approved by the board"
    assert [e.id for e in second] == ["p2-e1", "p2-e2", "p2-e3"]
    markdown = to_markdown(document)
    assert "# Launch Plan" in markdown and "- Ship to customers" in markdown
