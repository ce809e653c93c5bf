import pytest

from extraction.formats.engines import elements_payload, pages_payload, parse_bytes
from extraction.formats.markdown import to_markdown

pytestmark = pytest.mark.unit

LETTER = (
    "# Notice\n"
    "\n"
    "Dear customer,\n"
    "your order has shipped.\n"
    "\n"
    "\n"
    "- tracking number 42\n"
    "- arrives Monday\n"
    "  before noon\n"
    "Regards\n"
)


def test_text_paragraphs_headings_and_list_items_with_line_ranges():
    document = parse_bytes(LETTER.encode(), "letter.txt")
    assert document.format == "text"
    got = [(e.type, e.text, e.line_start, e.line_end) for e in document.elements]
    assert got == [
        ("title", "Notice", 1, 1),
        ("text", "Dear customer,\nyour order has shipped.", 3, 4),
        ("list", "- tracking number 42", 7, 7),
        ("list", "- arrives Monday\nbefore noon\nRegards", 8, 10),
    ]
    assert [e.id for e in document.elements] == ["p1-e1", "p1-e2", "p1-e3", "p1-e4"]
    assert elements_payload(document)[1] == {
        "id": "p1-e2",
        "type": "text",
        "page": 1,
        "text": "Dear customer,\nyour order has shipped.",
        "line_start": 3,
        "line_end": 4,
    }
    assert pages_payload(document) == [{"page": 1}]
    assert to_markdown(document).startswith("<!-- page 1 -->\n\n# Notice\n\nDear customer,")


def test_windows_line_endings_and_latin1_count_lines_the_same():
    document = parse_bytes("caf\u00e9 ouvert\r\n\r\nsecond paragraphe\r\n".encode("latin-1"), "f.txt")
    assert [(e.text, e.line_start) for e in document.elements] == [
        ("caf\u00e9 ouvert", 1),
        ("second paragraphe", 3),
    ]


def test_csv_rows_and_table_with_line_ranges():
    data = b'name,total\nAda,"1,200.50"\n"Multi\nline",3\n\nBob,4\n'
    document = parse_bytes(data, "totals.csv")
    table, *rows = document.elements
    assert table.type == "table" and (table.line_start, table.line_end) == (1, 6)
    assert table.rows == [["name", "total"], ["Ada", "1,200.50"], ["Multi\nline", "3"], ["Bob", "4"]]
    assert [(r.text, r.line_start, r.line_end, r.parent) for r in rows] == [
        ("name | total", 1, 1, "p1-e1"),
        ("Ada | 1,200.50", 2, 2, "p1-e1"),
        ("Multi\nline | 3", 3, 4, "p1-e1"),
        ("Bob | 4", 6, 6, "p1-e1"),
    ]
    markdown = to_markdown(document)
    assert "| Multi line | 3 |" in markdown and markdown.count("Ada") == 1
    assert document.text.count("Ada") == 1


def test_utf16_text():
    document = parse_bytes("premi\u00e8re ligne\r\nseconde".encode("utf-16"), "notes.txt")
    assert document.elements[0].text == "premi\u00e8re ligne\nseconde"


def test_semicolon_csv():
    document = parse_bytes(b"a;b\n1;2\n3;4\n", "x.csv")
    assert document.elements[0].rows == [["a", "b"], ["1", "2"], ["3", "4"]]


def test_empty_text_file_has_a_page_and_no_elements():
    document = parse_bytes(b"\n\n   \n", "blank.txt")
    assert document.elements == [] and [p.page for p in document.pages] == [1]
    assert document.pages[0].confidence is None
