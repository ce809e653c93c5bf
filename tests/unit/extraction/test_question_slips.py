"""Printed questions found through OCR's slips and a scan's odd placements
(`extraction/fields/strategies/questions.py`, `answer_places.py`), on made pages."""

from __future__ import annotations

import pytest

from extraction.fields.reading.question_words import MIN_SIMILARITY, similarity
from tests.unit.extraction.doc_builders import DocBuilder, values

pytestmark = pytest.mark.unit


def test_letters_ocr_reads_for_one_another_are_one() -> None:
    # A short question must be printed exactly, up to a digit read for a letter.
    assert similarity("Cell", "Ce1l") == 1.0
    assert similarity("Form", "Forn") == 0.0
    # "rn" for "m" and "cl" for "d" are one slip less.
    assert similarity("Summary", "Surnrnary") == 1.0
    assert similarity("Bid Date", "Bicl Date") == 1.0


def test_longer_question_that_lost_a_letter_at_its_edge() -> None:
    assert similarity("JOB NO.", "OB NO") >= MIN_SIMILARITY
    page = DocBuilder(source="ocr")
    page.line("OB NO", 57, 116, 126, 136, confidence=0.77)
    page.line("7848", 140, 116, 178, 135)
    assert values(page, ["JOB NO."]) == {"JOB NO.": "7848"}


def test_question_after_its_item_number_and_in_quotes() -> None:
    page = DocBuilder(source="ocr")
    page.line('(9) "TAR": 16 mg', 60, 300, 240, 318)
    page.line("(10) Filter: cellulose acetate", 60, 330, 330, 348)
    assert values(page, ['"TAR"', "Filter"]) == {'"TAR"': "16 mg", "Filter": "cellulose acetate"}


def test_answer_typed_a_whole_line_high_belongs_to_the_question_under_it() -> None:
    page = DocBuilder(source="ocr")
    page.line("Client: Acme Tool Co.", 69, 329, 314, 358)
    page.line("Blue Widgets", 135, 374, 307, 395)
    page.line("Product:", 71, 395, 127, 412)
    got = values(page, ["Client", "Products"])
    assert got == {"Client": "Acme Tool Co.", "Products": "Blue Widgets"}


def test_question_in_two_centred_lines_answered_though_printed_again_unanswered() -> None:
    page = DocBuilder(source="ocr")
    page.line("STAFF LEADER", 115, 347, 225, 363)
    page.line("J. F. Smith", 276, 345, 370, 363)
    page.line("OTHER STAFF", 112, 550, 234, 567)
    page.line("ASSIGNED", 132, 564, 193, 578)
    page.line("E. P. Jones", 278, 560, 368, 580)
    # The copies list at the foot prints the question alone, with nothing to answer it.
    page.line("Staff Leader", 150, 796, 264, 814)
    page.line("Other Staff Assigned", 151, 810, 340, 827)
    assert values(page, ["OTHER STAFF ASSIGNED"]) == {"OTHER STAFF ASSIGNED": "E. P. Jones"}


def test_question_in_two_centred_lines() -> None:
    page = DocBuilder(source="ocr")
    page.line("OTHER STAFF", 112, 550, 234, 567)
    page.line("ASSIGNED", 132, 564, 193, 578)
    page.line("E. P. Jones", 278, 560, 368, 580)
    assert values(page, ["OTHER STAFF ASSIGNED"]) == {"OTHER STAFF ASSIGNED": "E. P. Jones"}


def test_question_unanswered_where_printed_best_is_answered_where_printed_again() -> None:
    page = DocBuilder(source="ocr")
    page.line("Reviewer J. Doe", 60, 300, 220, 318)
    page.line("Copies:", 60, 780, 110, 798)
    page.line("Reviewer", 150, 800, 230, 818)
    assert values(page, ["Reviewer"]) == {"Reviewer": "J. Doe"}


def test_line_under_the_question_is_no_line_of_the_answer_beside_it() -> None:
    page = DocBuilder(source="ocr")
    page.line("cc:", 79, 842, 96, 858)
    page.line("H. Smith", 132, 838, 194, 858)
    page.line("KLM", 82, 859, 112, 876)
    assert values(page, ["cc"]) == {"cc": "H. Smith"}


def test_known_label_at_the_end_of_another_asked_question_is_that_questions() -> None:
    page = DocBuilder(source="ocr")
    page.line("Date: September 10, 1996", 170, 257, 330, 282)
    page.line("Distribution Drop Date: 10/03/96", 72, 577, 253, 600)
    got = values(page, ["Date", "Distribution Drop Date"])
    assert got == {"Date": "1996-09-10", "Distribution Drop Date": "1996-10-03"}


def test_short_question_whose_colon_is_read_as_a_stroke() -> None:
    assert similarity("TO", "T01") == 1.0
    assert similarity("TO", "T02") == 0.0
    page = DocBuilder(source="ocr")
    page.line("T01", 94, 115, 119, 135)
    page.line("R. B. JONES", 182, 117, 256, 134)
    page.line("FROM:", 93, 144, 139, 162)
    page.line("A. SMITH", 182, 144, 250, 162)
    assert values(page, ["TO"]) == {"TO": "R. B. JONES"}


def test_short_answer_typed_close_after_its_question() -> None:
    page = DocBuilder(source="ocr")
    page.line("Batch Number:", 138, 185, 266, 208)
    page.line("II", 257, 185, 288, 206)
    page.line("Weight: 300 gm", 137, 213, 300, 239)
    assert values(page, ["Batch Number"]) == {"Batch Number": "II"}


def test_question_printed_over_three_lines() -> None:
    page = DocBuilder(source="ocr")
    page.line("NUMBER OF", 71, 497, 145, 511)
    page.line("WORKING", 70, 509, 141, 526)
    page.line("STAFF:", 72, 523, 154, 540)
    page.line("24 per day", 217, 520, 282, 537)
    assert values(page, ["NUMBER OF WORKING STAFF"]) == {"NUMBER OF WORKING STAFF": "24 per day"}


def test_question_words_again_right_of_it_are_the_next_columns_header() -> None:
    page = DocBuilder(source="ocr")
    page.line("Weight", 269, 323, 348, 344)
    page.line("Height", 546, 323, 618, 344)
    page.line("(cm/unit)", 271, 350, 346, 371)
    page.line("(cm/unit)", 548, 349, 626, 372)
    page.line("0.3", 289, 386, 308, 405)
    page.line("0.2", 569, 382, 592, 405)
    assert values(page, ["Weight (cm/unit)"]) == {"Weight (cm/unit)": "0.3"}


def test_another_asked_question_printed_exactly_is_not_this_ones_near_match() -> None:
    page = DocBuilder(source="ocr")
    page.line("TELEX: 89-593 (ACME)", 314, 267, 444, 283)
    page.line("CABLE: ACME", 338, 282, 419, 296)
    got = values(page, ["TELEFAX", "TELEX"])
    assert got == {"TELEFAX": None, "TELEX": "89-593 (ACME)"}


def test_question_in_capitals_inside_a_row_of_labels() -> None:
    page = DocBuilder(source="ocr")
    page.line("DATE ISSUED December 13, 1983 PROJECT SHEET NO. 4", 45, 122, 399, 147)
    page.line("Please note the project sheet number in every letter.", 45, 160, 420, 178)
    assert values(page, ["PROJECT SHEET NO"]) == {"PROJECT SHEET NO": "4"}


def test_two_asked_questions_printed_as_one_label_share_its_answer() -> None:
    page = DocBuilder(source="ocr")
    page.line("ANALYTICAL REQUIREMENTS: Break out by packing", 60, 300, 420, 318)
    got = values(page, ["ANALYTICAL", "REQUIREMENTS"])
    assert got == {"ANALYTICAL": "Break out by packing", "REQUIREMENTS": "Break out by packing"}
