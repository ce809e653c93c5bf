"""Rules-mode fields from lines as OCR engines give them: several labels on one line, OCR's slips
and glued text, numbers that are no amounts, and values under labels that look like labels."""

from __future__ import annotations

import pytest

from extraction.fields import extract_fields
from extraction.formats.document import Box, Document, Element, Page
from tests.unit.extraction.doc_builders import DocBuilder, extract, text_document

pytestmark = pytest.mark.unit


def test_labels_inside_a_line_and_several_labels_on_one_line() -> None:
    b = DocBuilder(source="ocr")
    b.line("DocNo. : CS00004040 Date: 11/01/2019", 10, 10, 400, 28)
    b.line("Cashier: MANIS Member: 0042", 10, 40, 400, 58)
    b.line("Sub Total 12.00 Total 15.00", 10, 70, 400, 88)
    result = extract(b.doc, "date", "cashier", "total", "subtotal")
    # Month first, the default date order.
    assert result["date"].value == "2019-11-01"
    assert result["cashier"].value == "MANIS"
    assert result["total"].value == "15.00"
    assert result["subtotal"].value == "12.00"


def test_value_right_after_its_label_wins_over_the_rest_of_the_line() -> None:
    b = DocBuilder()
    b.line("Total HT : 46,68 € TVA 20% : 9,34 € Total TTC : 56,02 €", 10, 10, 500, 24)
    result = extract(b.doc, "amount_untaxed", "amount_tax", "amount")
    assert result["amount_untaxed"].value == "46.68"
    assert result["amount_tax"].value == "9.34"
    assert result["amount"].value == "56.02"


def test_ocr_slips_in_labels_and_glued_dates() -> None:
    b = DocBuilder(source="ocr")
    b.line("Total Salos(Inclusiv of G ST) : 80.90", 10, 10, 400, 28)
    b.line("TOTAI: 80.91", 10, 40, 400, 58)
    b.line("Date:10/03/20185:41:06 PAXNO:4", 10, 70, 400, 88)
    result = extract(b.doc, "total", "date")
    assert result["total"].value == "80.90"
    assert result["date"].value == "2018-10-03"


def test_numbers_that_belong_to_other_values_are_no_amounts() -> None:
    b = DocBuilder()
    b.line("TOTAL AMOUNT DUE ON August 3 , 2014", 10, 10, 400, 24)
    b.line("UStId DE 232 446 240", 10, 40, 400, 54)
    b.line("Tax 15% on $ 112.90", 10, 70, 200, 84)
    result = extract(b.doc, "total", "vat", "amount_tax")
    assert result["total"].value is None
    assert result["vat"].value is None
    assert result["amount_tax"].value is None


def test_a_percentage_may_end_a_label() -> None:
    b = DocBuilder()
    b.line("Total Includes GST 6% 9.00", 10, 10, 400, 24)
    assert extract(b.doc, "total")["total"].value == "9.00"


def test_a_known_label_below_is_not_a_value() -> None:
    b = DocBuilder()
    b.line("ACME TRADING SDN BHD", 10, 10)
    b.line("NO. 1, JALAN MAJU, 43000 KAJANG", 10, 26)
    b.line("Address", 10, 500)
    b.line("GST No.", 10, 516)
    result = extract(b.doc, "address")["address"]
    assert result.value == "NO. 1, JALAN MAJU, 43000 KAJANG"


def test_table_values_cite_their_own_cell() -> None:
    b = DocBuilder()
    boxes = [Box(50, 50, 100, 60), Box(110, 50, 200, 60), Box(50, 62, 100, 72), Box(110, 62, 200, 72)]
    b.table([["Invoice No", "INV-7"], ["Total", "12.50"]], Box(50, 50, 200, 72), cell_boxes=boxes)
    result = extract(b.doc, "invoice_number", "total")
    assert result["invoice_number"].citations[0]["bounding_box"] == [110, 50, 200, 60]
    assert result["total"].citations[0]["bounding_box"] == [110, 62, 200, 72]


def test_spreadsheet_and_csv_tables_cite_cells_and_rows() -> None:
    sheet = Document("b.xlsx", "xlsx", [Page(1, 0, 0)])
    sheet.elements.append(
        Element(
            id="t",
            type="table",
            page=1,
            text="",
            sheet="Data",
            cell="B2:C3",
            rows=[["Total", "7.00"], ["", ""]],
        )
    )
    sheet.elements.append(Element(id="c1", type="text", page=1, text="Total", sheet="Data", cell="B2"))
    sheet.elements.append(Element(id="c2", type="text", page=1, text="7.00", sheet="Data", cell="C2"))
    result = extract_fields(sheet, ["total"], file_name="b.xlsx")["total"]
    assert (result.value, result.citations) == ("7.00", [{"file": "b.xlsx", "sheet": "Data", "cell": "C2"}])

    csv = Document("t.csv", "csv", [Page(1, 0, 0)])
    rows = [["name", "due date"], ["ACME", "2024-01-31"]]
    csv.elements.append(Element(id="t", type="table", page=1, text="", rows=rows, line_start=1, line_end=2))
    csv.elements.append(
        Element(id="r1", type="text", page=1, text="name | due date", line_start=1, line_end=1)
    )
    csv.elements.append(
        Element(id="r2", type="text", page=1, text="ACME | 2024-01-31", line_start=2, line_end=2)
    )
    result = extract_fields(csv, ["due_date"], file_name="t.csv")["due_date"]
    assert (result.value, result.citations) == (
        "2024-01-31",
        [{"file": "t.csv", "line_start": 2, "line_end": 2}],
    )


def test_a_page_number_is_no_reference() -> None:
    b = DocBuilder()
    b.line("Rechnung", 54, 284, 122, 298)
    b.line("Seite 1", 369, 284, 399, 293)
    b.line("Rechnungsnr.", 54, 306, 110, 315)
    b.line("30064443", 148, 306, 188, 315)
    assert extract(b.doc, "invoice_number")["invoice_number"].value == "30064443"


def test_an_incoterm_is_its_code() -> None:
    doc = text_document("Incoterm: DPU - DELIVERED AT PLACE UNLOADED\nPayment terms: 15 days")
    assert extract(doc, "incoterm")["incoterm"].value == "DPU"


def test_the_amount_before_tax_is_the_total_less_the_tax_when_only_those_are_labelled() -> None:
    doc = text_document("Tax: $0.50\nTotal for this invoice: $4.61")
    result = extract(doc, "amount_untaxed")["amount_untaxed"]
    assert result.value == "4.11"
    assert len(result.citations) == 2
    # Without a labelled tax there is nothing to subtract from: no guess.
    assert extract(text_document("Total: $4.61"), "amount_untaxed")["amount_untaxed"].value is None


def test_an_email_whose_underscore_ocr_spaced_off_is_whole() -> None:
    doc = text_document("Email: annemarie_ robinson@yahoo.com")
    assert extract(doc, "email")["email"].value == "annemarie_robinson@yahoo.com"


def test_the_rest_of_a_section_heading_is_no_value() -> None:
    b = DocBuilder()
    b.line("Insurance Information", 58, 67, 166, 80)
    b.line("Subscriber ID: W157389712", 58, 120, 300, 138)
    assert extract(b.doc, "ins_name")["ins_name"].value is None


def test_a_date_is_no_group_number() -> None:
    b = DocBuilder()
    b.line("Subscriber ID: W157389712  Group #:", 58, 120, 375, 138)
    b.line("Date of Birth: 02/13/1985", 58, 150, 300, 168)
    assert extract(b.doc, "group_number")["group_number"].value is None


def test_an_email_under_its_label_is_no_label_though_gmail_looks_like_email() -> None:
    b = DocBuilder(source="ocr")
    b.line("Email Address", 97, 558, 195, 578)
    b.line("steven.yamamoto72@gmail.com", 96, 580, 406, 607)
    b.line("Employer Work Phone", 94, 612, 756, 641)
    result = extract(b.doc, "email")["email"]
    assert result.value == "steven.yamamoto72@gmail.com"
    assert result.evidence is not None and result.evidence.endswith("|valid")


def test_a_street_under_its_label_is_no_label_and_a_date_may_lose_its_space() -> None:
    b = DocBuilder(source="ocr")
    b.line("Street Address:", 50, 256, 140, 270)
    b.line("18339 Belmont Street", 143, 256, 240, 270)
    b.line("Date of Birth: August 27,1943", 50, 290, 300, 304)
    result = extract(b.doc, "address_1", "dob")
    assert result["address_1"].value == "18339 Belmont Street"
    assert result["dob"].value == "1943-08-27"


def test_a_name_that_only_appears_inside_longer_labels_is_a_value() -> None:
    b = DocBuilder()
    b.line("CARRIER Medicare", 50, 89, 391, 116)
    b.line("PLAN TYPE Part B", 391, 89, 562, 116)
    b.line("POLICY/ID NO. 6C81-DX0-YX87", 50, 116, 562, 143)
    assert extract(b.doc, "ins_name")["ins_name"].value == "Medicare"


def test_a_receipt_total_is_the_value_beside_its_label_not_the_cash_under_it() -> None:
    b = DocBuilder(source="ocr")
    b.line("Total Sales (Inclusive of GST) :", 34, 657, 300, 677)
    b.line("80.90", 340, 657, 380, 677)
    b.line("0608 CASH : 100.00", 95, 684, 380, 704)
    assert extract(b.doc, "total")["total"].value == "80.90"


def test_a_digit_glued_to_a_word_is_no_amount_and_a_time_glued_to_a_date_is_cut_off() -> None:
    from extraction.fields.reading.amounts import find_amounts
    from extraction.fields.reading.date_text import find_dates

    assert [m.raw for m in find_amounts("Total 5ales (Inclusive of GST) RM 2.50")] == ["RM 2.50"]
    assert [m.raw for m in find_amounts("12.00USD")] == ["12.00"]
    assert [m.value for m in find_dates("25/12/20188: 13", "DMY")] == ["2018-12-25"]


def test_a_cell_that_is_one_whole_label_has_its_value_elsewhere() -> None:
    b = DocBuilder(source="ocr")
    b.line("INSURANCE PLAN", 132, 1155, 304, 1178)
    b.line("Aetna", 132, 1186, 222, 1216)
    assert extract(b.doc, "ins_name")["ins_name"].value == "Aetna"


@pytest.mark.parametrize(
    ("label", "value", "field"),
    [
        ("CITY", "Kansas City", "city"),
        ("INSURANCE COMPANY", "Blue Cross Insurance Company", "ins_name"),
    ],
)
def test_a_value_under_its_label_may_hold_the_labels_word(label: str, value: str, field: str) -> None:
    b = DocBuilder(source="ocr")
    b.line(label, 100, 600, 100 + 12 * len(label), 630, confidence=0.9)
    b.line(value, 100, 640, 100 + 12 * len(value), 670, confidence=0.9)
    assert extract(b.doc, field)[field].value == value


def test_a_street_suffix_misread_by_ocr_is_mended_and_only_on_ocr() -> None:
    for source, street in (("ocr", "732 S Fullerton Pl"), ("text_layer", "732 S Fullerton PI")):
        b = DocBuilder(source=source)
        b.line("Address 1:", 100, 600, 220, 630, confidence=0.9)
        b.line("732 S Fullerton PI", 240, 600, 460, 630, confidence=0.9)
        assert extract(b.doc, "address_1")["address_1"].value == street
