"""Rules-mode fields chosen among candidates: receipts' totals, companies and addresses, dates no
label names, confidence, fields left null rather than guessed, and a result's contract keys."""

from __future__ import annotations

import pytest

from tests.unit.extraction.doc_builders import DocBuilder, extract

pytestmark = pytest.mark.unit


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
    assert set(extract(b.doc, "total")["total"].to_dict()) == {
        "value",
        "confidence",
        "citations",
        "state",
        "printed",
        "review_reasons",
    }
