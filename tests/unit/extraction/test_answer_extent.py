"""Where a printed question's answer ends (`extraction/fields/strategies/questions.py`), on made pages."""

from __future__ import annotations

import pytest

from tests.unit.extraction.doc_builders import DocBuilder, values

pytestmark = pytest.mark.unit


def test_known_label_before_a_date_under_an_answer_ends_it() -> None:
    page = DocBuilder(source="ocr")
    page.line("DESCRIPTION:", 50, 180, 150, 200)
    page.line("Passport Winter Program Ad", 170, 180, 400, 200)
    # The next question with its value, not the answer's second line.
    page.line("DATE 10/22/98", 172, 204, 280, 222)
    assert values(page, ["DESCRIPTION"]) == {"DESCRIPTION": "Passport Winter Program Ad"}


def test_a_line_under_an_answer_is_still_read_on() -> None:
    page = DocBuilder(source="ocr")
    page.line("DESCRIPTION:", 50, 180, 150, 200)
    page.line("Passport Winter Program Ad", 170, 180, 400, 200)
    page.line("for the DATE 10/22 issue", 172, 204, 330, 222)
    assert values(page, ["DESCRIPTION"]) == {
        "DESCRIPTION": "Passport Winter Program Ad for the DATE 10/22 issue"
    }


def test_a_label_in_capitals_under_the_question_ends_an_answer_on_its_line() -> None:
    page = DocBuilder(source="ocr")
    page.line("D.E.C. 534.1", 68, 472, 180, 500)
    # The next row's label of the questions' column, not the answer's second line.
    page.line("S.P.V.", 68, 504, 115, 526)
    assert values(page, ["D.E.C"]) == {"D.E.C": "534.1"}


def test_an_answer_wrapped_back_under_its_question_still_runs_on() -> None:
    page = DocBuilder(source="ocr")
    page.line("To: Mr. J. Smith, Purchasing", 68, 472, 300, 490)
    page.line("Acme Tool Company", 68, 492, 220, 510)
    assert values(page, ["To"]) == {"To": "Mr. J. Smith, Purchasing Acme Tool Company"}


def test_a_scrawl_under_an_answer_is_no_line_of_it() -> None:
    page = DocBuilder(source="ocr")
    page.line("cc:", 150, 215, 175, 235)
    page.line("R. G. Ryan", 218, 215, 309, 235)
    # Initials written over the form, read as one word OCR is unsure of.
    page.line("MCGlVNN", 220, 236, 300, 254, confidence=0.64)
    page.line("Brand(s) Applicable TRUE", 40, 300, 300, 318)
    assert values(page, ["cc"]) == {"cc": "R. G. Ryan"}


def test_a_word_read_surely_under_an_answer_is_a_line_of_it() -> None:
    page = DocBuilder(source="ocr")
    page.line("cc:", 150, 215, 175, 235)
    page.line("R. G. Ryan", 218, 215, 309, 235)
    page.line("McGlynn", 220, 236, 300, 254, confidence=0.9)
    assert values(page, ["cc"]) == {"cc": "R. G. Ryan McGlynn"}


def test_the_next_header_of_a_row_of_printed_headers_is_no_answer() -> None:
    page = DocBuilder(source="ocr")
    page.line("SOLID", 78, 472, 120, 490)
    page.line("COLOR", 219, 472, 270, 490)
    page.line("REFRIGERATOR", 438, 472, 541, 490)
    page.line("FREEZER", 628, 472, 667, 490)
    assert values(page, ["COLOR"]) == {"COLOR": None}


def test_a_typed_value_in_capitals_right_of_its_question_is_its_answer() -> None:
    page = DocBuilder(source="ocr")
    page.line("STATE", 78, 472, 120, 490)
    page.line("OHIO", 160, 472, 200, 490)
    page.line("Zip code: 43004", 300, 472, 420, 490)
    assert values(page, ["STATE"]) == {"STATE": "OHIO"}


def test_a_question_with_a_year_in_a_row_of_headers_is_not_answered_by_the_next() -> None:
    page = DocBuilder(source="ocr")
    page.line("RELEASED", 83, 528, 150, 546)
    page.line("PAID IN 1987", 295, 528, 389, 546)
    page.line("CUMULATIVE", 553, 529, 638, 546)
    page.line("BALANCE", 680, 529, 740, 546)
    assert values(page, ["PAID IN 1987"]) == {"PAID IN 1987": None}


def test_the_number_word_after_a_question_is_its_label_not_its_answer() -> None:
    page = DocBuilder(source="ocr")
    page.line("SOURCE:", 78, 152, 117, 169)
    page.line("LORILLARD NO", 407, 149, 465, 169)
    page.line("OR61-2", 488, 141, 542, 162)
    page.line("Smoker: no", 78, 200, 170, 218)
    got = values(page, ["LORILLARD", "Smoker"])
    assert got == {"LORILLARD": "OR61-2", "Smoker": "no"}
