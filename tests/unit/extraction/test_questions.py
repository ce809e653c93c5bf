"""Fields named by a form's own printed question (`extraction/fields/questions.py`), on made pages."""

from __future__ import annotations

import pytest

from extraction.fields import extract_fields
from extraction.fields.questions import similarity
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit


def scan() -> DocBuilder:
    return DocBuilder(source="ocr")


def values(builder: DocBuilder, names: list[str]) -> dict[str, object]:
    results = extract_fields(builder.doc, names, file_name="form.png")
    return {name: result.value for name, result in results.items()}


def test_answer_after_the_question_on_its_line_up_to_its_colon() -> None:
    page = scan()
    page.line("REQUEST NO.: 25-84", 60, 177, 231, 196, confidence=0.99)
    page.line("INITIATED BY: P. H. HARPER", 60, 213, 344, 232, confidence=0.96)
    got = values(page, ["REQUEST NO.", "INITIATED"])
    assert got == {"REQUEST NO.": "25-84", "INITIATED": "P. H. HARPER"}


def test_answer_in_the_cell_right_of_the_question_and_not_the_next_rows() -> None:
    page = scan()
    page.line("COUNTRY:", 60, 321, 118, 338)
    page.line("BELGIUM", 194, 323, 243, 337)
    page.line("PRODUCT:", 60, 350, 118, 367)
    page.line("LUCKY STRIKE Filter", 192, 350, 417, 366)
    assert values(page, ["COUNTRY", "PRODUCT"]) == {"COUNTRY": "BELGIUM", "PRODUCT": "LUCKY STRIKE Filter"}


def test_answer_under_the_question_runs_over_its_lines() -> None:
    page = scan()
    page.line("NATURE OF WORK:", 56, 377, 172, 395)
    page.line("Advise if a local honey (sample", 167, 406, 523, 423)
    page.line("enclosed) is a substitute.", 166, 420, 527, 438)
    page.line("NOTES:", 58, 480, 102, 497)
    assert values(page, ["NATURE OF WORK"]) == {
        "NATURE OF WORK": "Advise if a local honey (sample enclosed) is a substitute."
    }


def test_unanswered_question_is_null() -> None:
    page = scan()
    page.line("REVIEWED BY:", 55, 548, 150, 568)
    page.line("DATE:", 55, 592, 98, 609)
    page.line("NOTES:", 55, 625, 102, 642)
    assert values(page, ["REVIEWED BY"]) == {"REVIEWED BY": None}


def test_question_read_through_ocr_slips() -> None:
    assert similarity("R & D COMMENTS", "R6D COMMENTS") >= 0.9
    assert similarity("Type", "Tyoe") == 0.0
    page = scan()
    page.line("R6D COMMENTS: Target date OK", 56, 457, 366, 475)
    assert values(page, ["R & D COMMENTS"]) == {"R & D COMMENTS": "Target date OK"}


def test_a_mark_after_the_question_ticks_it() -> None:
    page = scan()
    page.line("MALE x FEMALE", 60, 100, 300, 118)
    assert values(page, ["MALE"]) == {"MALE": True}


def test_another_asked_question_ends_an_answer() -> None:
    page = scan()
    page.line("Brand SALEM (RJR)", 60, 100, 240, 118)
    page.line("Title HEAD IN WATER", 60, 120, 260, 138)
    got = values(page, ["Brand", "Title"])
    assert got == {"Brand": "SALEM (RJR)", "Title": "HEAD IN WATER"}
    page = scan()
    page.line("Brand: SALEM (RJR) Size: FULL PAGE", 60, 100, 400, 118)
    assert values(page, ["Brand"]) == {"Brand": "SALEM (RJR)"}


def test_words_of_the_question_inside_prose_or_a_longer_question_are_not_it() -> None:
    page = scan()
    page.line("Tested among a half sample of smokers.", 60, 100, 400, 118)
    page.line("Sample Description: MENTHOL SMOKERS", 60, 140, 400, 158)
    got = values(page, ["Sample", "Sample Description"])
    assert got == {"Sample": None, "Sample Description": "MENTHOL SMOKERS"}


def test_marks_the_question_ends_with_are_no_answer() -> None:
    page = scan()
    page.line("PROJECT #", 60, 100, 140, 118)
    page.line("74-80", 200, 100, 250, 118)
    assert values(page, ["PROJECT #"]) == {"PROJECT #": "74-80"}


def test_text_the_ocr_is_unsure_of_is_never_confident() -> None:
    page = scan()
    page.line("COMMENTS:", 60, 100, 140, 118, confidence=0.99)
    page.line("Tinget dte OK", 200, 100, 320, 118, confidence=0.62)
    page.line("SHIPPED TO:", 60, 140, 140, 158, confidence=0.99)
    page.line("BELGIUM", 200, 140, 260, 158, confidence=0.99)
    results = extract_fields(page.doc, ["COMMENTS", "SHIPPED TO"], file_name="form.png")
    assert results["COMMENTS"].value == "Tinget dte OK"
    assert results["COMMENTS"].confidence < 0.5
    assert results["COMMENTS"].confidence < results["SHIPPED TO"].confidence < 0.9


def test_the_words_after_a_question_with_its_colon_are_its_answer() -> None:
    page = scan()
    page.line("Cashier: MANIS Member: 0042", 10, 40, 400, 58)
    assert values(page, ["Cashier"]) == {"Cashier": "MANIS"}
