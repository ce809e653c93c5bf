import pytest

from extraction.formats.document import Box, Document, Element, Page
from extraction.formats.markdown import is_list_item, table_markdown, to_markdown

pytestmark = pytest.mark.unit


def test_every_element_type_renders():
    document = Document(
        filename="x.pdf",
        format="pdf",
        pages=[Page(1, 100, 100), Page(2, 100, 100)],
        elements=[
            Element("p1-e1", "title", 1, "Main\ntitle", level=1),
            Element("p1-e2", "title", 1, "Sub", level=3),
            Element("p1-e3", "text", 1, "Plain paragraph."),
            Element("p1-e4", "list", 1, "\u2022 bullet item\nwrapped"),
            Element("p1-e5", "list", 1, "2. numbered item"),
            Element("p2-e1", "table", 2, "ignored", rows=[["a|b", "c"], ["1"]]),
            Element("p2-e2", "form_field", 2, "Ada", field_name="Applicant name", box=Box(0, 0, 1, 1)),
            Element("p2-e3", "text", 2, "part", parent="p2-e1"),
            Element("p2-e4", "image", 2, ""),
        ],
    )
    assert to_markdown(document) == (
        "<!-- page 1 -->\n\n"
        "# Main title\n\n"
        "### Sub\n\n"
        "Plain paragraph.\n\n"
        "- bullet item\n  wrapped\n\n"
        "2. numbered item\n\n"
        "<!-- page 2 -->\n\n"
        "| a\\|b | c |\n|---|---|\n| 1 |  |\n\n"
        "**Applicant name**: Ada\n"
    )


def test_sheet_labels_become_headings():
    document = Document("b.xlsx", "xlsx", pages=[Page(1, 0, 0, label="Q1 Sales")])
    assert to_markdown(document) == "<!-- page 1 -->\n\n## Q1 Sales\n"


def test_table_markdown_single_row_is_a_header():
    assert table_markdown([["x", "y"]]) == "| x | y |\n|---|---|"
    assert table_markdown([]) == ""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\u2022 item", True),
        ("- item", True),
        ("1. item", True),
        ("(a) item", True),
        ("iv) item", True),
        ("2.3. item", True),
        ("-", False),
        ("2014 was a year", False),
        ("1.1 Definitions", False),
        ("plain", False),
    ],
)
def test_list_markers(text, expected):
    assert is_list_item(text) is expected
