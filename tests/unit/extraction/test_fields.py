from __future__ import annotations

import pytest

from extraction.fields import FieldResult, extract_fields
from extraction.formats.document import Box, Document, Element, Page
from tests.unit.extraction.doc_builders import DocBuilder, sheet_document, text_document

pytestmark = pytest.mark.unit


def extract(doc: Document, *names: str) -> dict[str, FieldResult]:
    return extract_fields(doc, list(names), file_name="doc.pdf")


# --- form fields -----------------------------------------------------------------------------


def test_form_fields_by_exact_and_tolerant_name_with_page_and_box() -> None:
    b = DocBuilder(width=612, height=792)
    b.form_field("Name_First", "Cedar", Box(61.2, 79.2, 122.4, 99))
    b.form_field("Birthdate", "08/29/2020")
    result = extract(b.doc, "first_name", "Birthdate")
    first = result["first_name"]
    assert first.value == "Cedar"
    assert first.source == "form_fields"
    assert first.citations == [
        {
            "file": "doc.pdf",
            "page": 1,
            "bounding_box": [61.2, 79.2, 122.4, 99],
            "normalized_bounding_box": [
                {"x": 0.1, "y": 0.1},
                {"x": 0.2, "y": 0.1},
                {"x": 0.2, "y": 0.125},
                {"x": 0.1, "y": 0.125},
            ],
        }
    ]
    assert 0.9 < first.confidence <= 1.0
    # A date field's value is an ISO date; the filler's own text stays as the raw value.
    assert result["Birthdate"].value == "2020-08-29"
    assert result["Birthdate"].raw == "08/29/2020"


def test_check_boxes_are_true_or_false() -> None:
    b = DocBuilder()
    b.form_field("Are You A Fairy? 🌿", "Yes")
    b.form_field("Is Your Power Level Over 9000? 💪", "Off")
    result = extract(b.doc, "Are You A Fairy? 🌿", "Is Your Power Level Over 9000? 💪")
    assert result["Are You A Fairy? 🌿"].value is True
    assert result["Is Your Power Level Over 9000? 💪"].value is False


def test_radio_group_value_is_the_chosen_option() -> None:
    b = DocBuilder()
    b.form_field("Historical Figures", "Off", Box(10, 10, 20, 20))
    chosen = b.form_field("Historical Figures", "Marcus Aurelius", Box(10, 40, 20, 50))
    b.form_field("Historical Figures", "Off", Box(10, 70, 20, 80))
    result = extract(b.doc, "Historical Figures")["Historical Figures"]
    assert result.value == "Marcus Aurelius"
    assert result.citations[0]["bounding_box"] == chosen.box.as_list()  # type: ignore[union-attr]


def test_an_empty_form_field_is_null_and_no_text_is_guessed() -> None:
    b = DocBuilder()
    b.form_field("Age", "")
    b.line("Age: 42", 10, 10)
    result = extract(b.doc, "Age")["Age"]
    assert result.value is None
    assert result.citations == []


# --- labels ------------------------------------------------------------------------------------


def test_label_colon_value_on_one_line_normalises_dates() -> None:
    b = DocBuilder()
    line = b.line("Invoice Date: 03/20/2023", 50, 100)
    result = extract(b.doc, "date")["date"]
    assert result.value == "2023-03-20"
    assert result.raw == "03/20/2023"
    assert result.source == "text_layer"
    assert result.citations[0]["bounding_box"] == line.box.as_list()  # type: ignore[union-attr]


def test_label_and_value_without_colon_for_shaped_values() -> None:
    b = DocBuilder()
    b.line("TOTAL RM 33.90", 20, 600)
    b.line("Invoice No # INV-2023-0008", 20, 100)
    result = extract(b.doc, "total", "invoice_number")
    assert result["total"].value == "33.90"
    assert result["invoice_number"].value == "INV-2023-0008"


def test_label_left_value_right_by_geometry() -> None:
    b = DocBuilder()
    b.line("DATE:", 50, 372, 96, 390)
    value = b.line("25/12/2018 8:13:39 PM", 165, 372, 342, 389)
    b.line("CASHIER:", 48, 396, 117, 415)
    b.line("MANIS", 164, 397, 215, 413)
    result = extract(b.doc, "date")["date"]
    assert result.value == "2018-12-25"
    assert result.citations[0]["bounding_box"] == value.box.as_list()  # type: ignore[union-attr]


def test_a_value_whose_padded_box_overlaps_its_labels_end_is_right_of_it() -> None:
    # OCR boxes are padded: the value's box starts 13 px (under one character) before the label's ends.
    b = DocBuilder(source="ocr")
    b.line("Policy Number:", 131, 1230, 365, 1270, confidence=0.9)
    b.line("4JC7-RX3-MF76", 352, 1229, 583, 1269, confidence=0.9)
    b.line("Group Number:", 132, 1277, 346, 1317, confidence=0.9)
    result = extract(b.doc, "policy_number", "group_number")
    assert result["policy_number"].value == "4JC7-RX3-MF76"
    assert result["group_number"].value is None


def test_label_right_follows_a_slanted_photo() -> None:
    # Every line slopes down to the right by 0.06: the value right of TOTAL sits lower than the
    # value of the line above it.
    b = DocBuilder(width=800, height=1400)
    for y, label, value in ((966, "SUB TOTAL", "12.00"), (1001, "TAX", "3.00"), (1037, "TOTAL", "15.00")):
        b.line(label, 200, y, 330, y + 36)
        b.line("RM", 500, y + 18, 534, y + 48)
        b.line(value, 612, y + 24, 692, y + 60)
    assert extract(b.doc, "total")["total"].value == "15.00"


def test_label_above_value_by_geometry() -> None:
    b = DocBuilder()
    b.block([("Invoice Number:", Box(400, 100, 480, 112)), ("42183017", Box(400, 114, 450, 126))])
    b.block([("Invoice Date:", Box(400, 140, 470, 152)), ("August 3 , 2014", Box(400, 154, 480, 166))])
    result = extract(b.doc, "invoice_number", "date")
    assert result["invoice_number"].value == "42183017"
    assert result["invoice_number"].citations[0]["bounding_box"] == [400, 114, 450, 126]
    assert result["date"].value == "2014-08-03"


def test_key_value_table_rows_and_header_columns() -> None:
    b = DocBuilder()
    table = b.table([["Patient", "Jane Roe"], ["DOB", "1980-02-03"]], Box(50, 50, 300, 90))
    b.table([["Order No", "Due Date"], ["A-778", "4 Apr 2023"]], Box(50, 120, 300, 160))
    result = extract(b.doc, "date_of_birth", "order_number", "due_date")
    assert result["date_of_birth"].value == "1980-02-03"
    assert result["date_of_birth"].citations[0]["bounding_box"] == table.box.as_list()  # type: ignore[union-attr]
    assert result["order_number"].value == "A-778"
    assert result["due_date"].value == "2023-04-04"


def test_spreadsheet_label_cell_and_value_cell() -> None:
    doc = sheet_document({"A1": "Invoice No", "B1": "INV-1", "A2": "Total", "B2": "1,250.00"})
    result = extract_fields(doc, ["invoice_number", "total"], file_name="book.xlsx")
    assert result["invoice_number"].value == "INV-1"
    assert result["invoice_number"].citations == [{"file": "book.xlsx", "sheet": "Sheet1", "cell": "B1"}]
    assert result["total"].value == "1250.00"
    assert result["total"].citations == [{"file": "book.xlsx", "sheet": "Sheet1", "cell": "B2"}]


def test_text_file_lines_are_cited_by_number() -> None:
    doc = text_document("Order summary\n\nEmail: jane@example.com\nTotal due: EUR 12,50")
    result = extract_fields(doc, ["email", "total"], file_name="notes.txt")
    assert result["email"].value == "jane@example.com"
    assert result["email"].citations == [{"file": "notes.txt", "line_start": 3, "line_end": 3}]
    assert result["total"].value == "12.50"
    assert result["total"].citations == [{"file": "notes.txt", "line_start": 4, "line_end": 4}]


def test_values_on_later_pages_cite_their_page() -> None:
    b = DocBuilder(pages=2)
    b.line("Terms and conditions", 10, 10, page=1)
    b.line("Due Date: 21.05.2014", 10, 10, page=2)
    result = extract(b.doc, "due_date")["due_date"]
    assert result.value == "2014-05-21"
    assert result.citations[0]["page"] == 2


# --- choosing among candidates -----------------------------------------------------------------


def receipt() -> DocBuilder:
    b = DocBuilder(width=480, height=1000, source="ocr")
    rows = [
        ("TAN WOON YANN", None),
        ("BOOK TA .K(TAMAN DAYA) SDN BHD", None),
        ("789417-W", None),
        ("NO.53 55,57 & 59, JALAN SAGU 18,", None),
        ("TAMAN DAYA,", None),
        ("81100 JOHOR BAHRU,", None),
        ("JOHOR.", None),
        ("TEL: 07-3507405", None),
        ("DATE:", "25/12/2018 8:13:39 PM"),
        ("TOTAL QTY:", "3"),
        ("TOTAL:", "9.02"),
        ("ROUNDING ADJUSTMENT:", "-0.02"),
        ("ROUNDED TOTAL (RM):", "9.00"),
        ("CASH", "10.00"),
        ("CHANGE", "1.00"),
        ("GST SUMMARY", None),
        ("TOTAL", "8.49"),
    ]
    for index, (left, right) in enumerate(rows):
        y = 30 + index * 30
        b.line(left, 40, y, 40 + 9 * len(left), y + 18, confidence=0.9)
        if right:
            b.line(right, 330, y, 330 + 9 * len(right), y + 18, confidence=0.9)
    return b


def test_receipt_total_is_the_most_final_total() -> None:
    result = extract(receipt().doc, "total")["total"]
    assert result.value == "9.00"
    assert result.source == "ocr"


def test_receipt_company_and_address_heuristics() -> None:
    result = extract(receipt().doc, "company", "address", "date")
    # OCR glued the bracket to the word before it; the name is given with the space put back.
    assert result["company"].value == "BOOK TA .K (TAMAN DAYA) SDN BHD"
    assert result["address"].value == "NO.53 55,57 & 59, JALAN SAGU 18, TAMAN DAYA, 81100 JOHOR BAHRU, JOHOR."
    # The address spans four lines: one citation whose box covers them all.
    (citation,) = result["address"].citations
    assert citation["bounding_box"][1] == 120 and citation["bounding_box"][3] == 228
    assert result["date"].value == "2018-12-25"


def test_an_unlabelled_receipt_date_is_read_in_the_receipts_own_order() -> None:
    # No label names the date; ringgit and a Malaysian address say day first.
    b = DocBuilder(width=480, height=600, source="ocr")
    for index, text in enumerate(
        [
            "KEDAI MAJU SDN BHD",
            "12,JALAN BESAR,45600 BATANG",
            "TEL 03-3271 9872",
            "12-01-19 10:43AM",
            "TOTAL RM 2.50",
        ]
    ):
        b.line(text, 40, 30 + index * 30, 40 + 9 * len(text), 48 + index * 30, confidence=0.9)
    assert extract(b.doc, "date")["date"].value == "2019-01-12"


def test_a_legal_form_split_by_ocr_is_one_word_again() -> None:
    b = DocBuilder(width=480, height=600, source="ocr")
    for index, text in enumerate(
        ["UNIHAKKA INTERNATIONAL SDN BH D", "12, JALAN TAMPOI 7/4", "TEL 07-3507405"]
    ):
        b.line(text, 40, 30 + index * 30, 40 + 9 * len(text), 48 + index * 30, confidence=0.9)
    assert extract(b.doc, "company")["company"].value == "UNIHAKKA INTERNATIONAL SDN BHD"


def _lines(texts: list[str], *, first_y: float = 30, height: float = 1000) -> DocBuilder:
    b = DocBuilder(width=480, height=height, source="ocr")
    for index, text in enumerate(texts):
        y = first_y + index * 30
        b.line(text, 40, y, 40 + 9 * len(text), y + 18, confidence=0.9)
    return b


def test_the_rounded_total_printed_under_its_rounding_adjustment_is_the_total() -> None:
    rows = ["INDAH GIFT & HOME DECO", "TOTAL AMT.......... RM 60.31", "ROUNDING ADJ.......... -0.01"]
    result = extract(_lines([*rows, "RM 60.30", "CASH. RM 70.30", "CHANGE.. RM 10.00"]).doc, "total")["total"]
    assert result.value == "60.30"
    assert result.raw == "60.30" and result.citations[0]["bounding_box"][1] == 120
    # Not printed, the rounded amount is not made up: the total stays as labelled.
    assert extract(_lines([*rows, "CASH. RM 70.30"]).doc, "total")["total"].value == "60.31"
    # A larger "adjustment" is no cash rounding.
    far = ["TOTAL RM 60.31", "ADJUSTMENT -5.00", "RM 55.31"]
    assert extract(_lines(far).doc, "total")["total"].value == "60.31"


def test_a_company_number_label_is_no_company_label() -> None:
    lines = [
        "Shell ISNI PETRO TRADING",
        "Company No:002643278-A",
        "LOT 2685 JLN GENTING KLANG",
        "53300KL Site 1066",
        "Telephone 03- 40212008",
    ]
    result = extract(_lines(lines).doc, "company", "address")
    assert result["company"].value == "Shell ISNI PETRO TRADING"
    # A postcode OCR glued to its town is parted; the citation keeps the text as read.
    assert result["address"].value == "LOT 2685 JLN GENTING KLANG 53300 KL Site 1066"
    assert result["address"].raw == "LOT 2685 JLN GENTING KLANG 53300KL Site 1066"


@pytest.mark.parametrize(
    ("printed", "name"),
    [
        ("S.H.H.MOTOR(SUNGAI RENGIT)SDN.BHD.", "S.H.H. MOTOR (SUNGAI RENGIT) SDN. BHD."),
        ("MR. D.I.Y.(M) SDN BHD", "MR. D.I.Y. (M) SDN BHD"),
        ("99 SPEED MART S/B 519537-X)", "99 SPEED MART S/B"),
        ("KEDAI MAJU SDN BHD (867388-U)", "KEDAI MAJU SDN BHD"),
    ],
)
def test_spaces_and_brackets_ocr_lost_in_a_company_name(printed: str, name: str) -> None:
    doc = _lines([printed, "NO.59 JALAN PERMAS 9/5", "81760 JOHOR BAHRU", "TEL:07-386 7524"]).doc
    result = extract(doc, "company")["company"]
    assert result.value == name
    assert result.raw == printed


def test_an_address_just_under_the_top_region_of_a_long_receipt() -> None:
    b = _lines(["RSK"], height=1400)
    header = [
        "SYL ROASTED DELIGHTS SDN. BHD.",
        "122703",
        "75, JALAN SS 22/19, DAMANSARA JAYA, 47400 PJ.",
        "TEL:03-7731 8169",
    ]
    for index, text in enumerate(header):
        b.line(text, 40, 380 + 40 * index, 40 + 9 * len(text), 398 + 40 * index, confidence=0.9)
    for index in range(20):
        b.line(f"ITEM {index} 1.0 2.00 2.00", 40, 560 + 40 * index, 300, 578 + 40 * index, confidence=0.9)
    assert extract(b.doc, "address")["address"].value == "75, JALAN SS 22/19, DAMANSARA JAYA, 47400 PJ."


def test_confidence_combines_match_and_text_confidence() -> None:
    sure, unsure = DocBuilder(), DocBuilder()
    sure.line("Email: a@b.example.com", 10, 10, confidence=1.0)
    unsure.line("Email: a@b.example.com", 10, 10, confidence=0.5)
    high = extract(sure.doc, "email")["email"].confidence
    low = extract(unsure.doc, "email")["email"].confidence
    assert 0 < low < high <= 1
    assert low == pytest.approx(high / 2, abs=0.01)


def test_absent_fields_are_null_never_guessed() -> None:
    b = DocBuilder()
    b.line("DATE:", 50, 100, 96, 118)
    b.line("CASHIER:", 150, 100, 220, 118)
    b.line("Thank you for shopping", 50, 200)
    result = extract(b.doc, "date", "total", "date_of_birth", "email")
    for field in result.values():
        assert field.value is None
        assert field.confidence == 0.0
        assert field.citations == []


def test_a_label_for_another_concept_is_not_used() -> None:
    b = DocBuilder()
    b.line("Subtotal: 100.00", 10, 10)
    b.line("Total Qty: 4", 10, 30)
    b.line("Due Date: 2023-04-04", 10, 50)
    result = extract(b.doc, "total", "date")
    assert result["total"].value is None
    assert result["date"].value is None


def test_document_date_falls_back_to_the_first_unlabelled_date() -> None:
    b = DocBuilder()
    b.line("Due Date: 2023-04-04", 10, 10)
    b.line("Scranton, 20 March 2023", 10, 30)
    result = extract(b.doc, "date")["date"]
    assert result.value == "2023-03-20"
    labelled = DocBuilder()
    labelled.line("Date: 20 March 2023", 10, 10)
    # A date no label names is a guess a person checks (under the console's 0.9 review mark),
    # and less sure than the same date after its label.
    assert result.confidence < 0.9
    assert result.confidence < extract(labelled.doc, "date")["date"].confidence


def test_free_text_needs_a_clear_label() -> None:
    # "STORE" in a footer line is no label for the company: the letterhead names it.
    b = DocBuilder()
    b.line("ACME TRADING SDN BHD", 10, 20)
    b.line("DOWNLOAD OUR APP ON GOOGLE PLAY/APP STORE", 10, 700)
    b.line("TO SHARE YOUR EXPERIENCE", 10, 716)
    assert extract(b.doc, "company")["company"].value == "ACME TRADING SDN BHD"


def test_an_issuer_named_in_the_title_line_is_the_issuer() -> None:
    # "Northwind Cloud Services Invoice": the title follows the issuer's name on its top line.
    b = DocBuilder()
    b.line("Northwind Cloud Services Invoice", 250, 60, y1=76)
    b.line("Invoice Number: 4417", 250, 110)
    b.line("Summary", 30, 270, y1=290)
    assert extract(b.doc, "issuer")["issuer"].value == "Northwind Cloud Services"


def test_to_dict_has_the_contract_keys() -> None:
    b = DocBuilder()
    b.line("Total: 5.00", 10, 10)
    assert set(extract(b.doc, "total")["total"].to_dict()) == {"value", "confidence", "citations"}


# --- lines as OCR engines give them ------------------------------------------------------------


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
    from extraction.fields.amounts import find_amounts
    from extraction.fields.date_text import find_dates

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
