"""Printed questions' answers read past what the page leaves around them: the question's case
among its copies, a number after a label with no colon, labels waiting for a name or a number,
ticks inside a sentence, rows of headers, scrawls (`extraction/fields/strategies/questions.py`), on made
pages."""

from __future__ import annotations

import pytest

from extraction.fields.reading.question_words import before_other_question, same_case
from tests.unit.extraction.doc_builders import DocBuilder, values

pytestmark = pytest.mark.unit


def test_question_printed_in_its_own_case_is_the_one_asked() -> None:
    assert same_case("LOT NUMBER", "LOT  NUMBER")
    assert not same_case("LOT NUMBER", "Lot Number")
    page = DocBuilder(source="ocr")
    # The company's name, typed as the answer of "ORIGIN", starts like the question "ACME".
    page.line("Acme - Chemistry Dept.", 140, 140, 400, 160)
    page.line("ORIGIN:", 60, 150, 115, 168)
    page.line("ACME NO", 410, 150, 470, 168)
    page.line("OR61-2", 490, 140, 545, 160)
    assert values(page, ["ORIGIN", "ACME"])["ORIGIN"] == "Acme - Chemistry Dept."


def test_known_label_without_colon_before_a_number_is_answered() -> None:
    page = DocBuilder(source="ocr")
    page.line("Telephone (0 22 03) 303-1", 480, 170, 590, 184)
    page.line("Total Qty: 4", 60, 300, 160, 318)
    got = values(page, ["Telephone", "Total"])
    assert got == {"Telephone": "(0 22 03) 303-1", "Total": None}


def test_label_waiting_for_a_name_is_no_answer_of_the_label_left_of_it() -> None:
    page = DocBuilder(source="ocr")
    page.line("Submitted by", 50, 840, 130, 860)
    page.line("Approved by", 400, 840, 478, 860)
    page.line("W. O. Crain", 64, 862, 147, 878)
    assert values(page, ["Submitted by"]) == {"Submitted by": "W. O. Crain"}


def test_tick_just_before_the_question_inside_a_sentence() -> None:
    page = DocBuilder(source="ocr")
    page.line("This Project is X Proposed", 67, 276, 258, 296)
    page.line("Approved; Proposal No.", 205, 292, 354, 309)
    assert values(page, ["Proposed"]) == {"Proposed": True}


def test_question_printed_over_two_lines_in_a_row_of_headers_is_answered_under_it() -> None:
    page = DocBuilder(source="ocr")
    page.line("SENT", 88, 485, 156, 502)
    page.line("TO SHOP", 88, 499, 156, 519)
    page.line("PAID OUT OF", 303, 486, 397, 502)
    page.line("THE BUDGET", 304, 501, 398, 518)
    page.line("2-25-88", 91, 540, 161, 560)
    page.line("9.442", 351, 540, 383, 557)
    assert values(page, ["SENT TO SHOP"]) == {"SENT TO SHOP": "2-25-88"}


def test_a_lone_number_label_above_right_is_no_answer() -> None:
    page = DocBuilder(source="ocr")
    page.line("AGENCY.", 25, 176, 76, 195)
    page.line("Corporate Media Department", 124, 176, 342, 194)
    page.line("NO.", 417, 176, 437, 196)
    page.line("DATE 3/17/82", 553, 176, 662, 194)
    page.line("BRAND", 70, 196, 108, 214)
    page.line("MEDIUM", 305, 196, 349, 214)
    page.line("DESCRIPTION", 535, 195, 612, 215)
    page.line("LUCKY STRIKE LOW Tar", 13, 218, 181, 234)
    page.line("Outdoor", 299, 218, 359, 235)
    page.line("30 Sheet Posters", 510, 218, 646, 235)
    # The column headers' row; "NO." above right of "MEDIUM" asks for a number of its own.
    assert values(page, ["MEDIUM", "BRAND", "DESCRIPTION"])["MEDIUM"] == "Outdoor"


def test_note_in_brackets_is_no_label_with_its_value() -> None:
    page = DocBuilder(source="ocr")
    page.line("Description:", 91, 112, 183, 134)
    page.line("CAPRI A&U EXPANSION - CALIFORNIA:", 194, 114, 508, 132)
    page.line("Supplier:", 92, 172, 158, 193)
    page.line("Kapuler Marketing Research", 205, 175, 432, 193)
    page.line("Previous $ Commitments This Project", 92, 204, 350, 221)
    page.line("Final Report Due", 87, 513, 211, 530)
    page.line("(Supplier Rpt.)", 92, 528, 203, 548)
    got = values(page, ["Supplier", "Description"])
    assert got["Supplier"] == "Kapuler Marketing Research"


def test_question_closed_by_its_own_mark_inside_a_line() -> None:
    page = DocBuilder(source="ocr")
    page.line("DATE: 1/19/82 NO. V82-2 R1", 90, 120, 400, 140)
    assert values(page, ["NO."]) == {"NO.": "V82-2 R1"}


def test_tick_where_a_question_printed_over_two_lines_breaks() -> None:
    page = DocBuilder(source="ocr")
    page.line("OCT 31", 539, 103, 585, 124)
    page.line("JAN 23, X", 656, 103, 743, 124)
    page.line("1995", 660, 120, 689, 142)
    assert values(page, ["JAN 23, 1995"]) == {"JAN 23, 1995": True}


def test_signature_scrawl_under_the_question_is_looked_past() -> None:
    page = DocBuilder(source="ocr")
    page.line("Approved by:", 402, 758, 508, 778)
    page.line("aemn", 482, 806, 554, 828, confidence=0.5)
    page.line("R. S. Sprinkle, III", 410, 827, 573, 847)
    assert values(page, ["Approved by"]) == {"Approved by": "R. S. Sprinkle, III"}


def test_known_label_glued_to_a_date_is_answered() -> None:
    page = DocBuilder(source="ocr")
    page.line("NAME Jimmy Bell", 80, 100, 220, 120)
    page.line("DATEMay 27, 1982", 300, 100, 460, 120)
    assert values(page, ["DATE"]) == {"DATE": "1982-05-27"}


def test_value_after_a_known_label_ends_at_the_next_question_asked() -> None:
    assert before_other_question("Acme Labs, Inc. Client Study No", "Client Name", ["Client Study No."]) == (
        "Acme Labs, Inc."
    )
    # A short question is as often a word of the value.
    assert before_other_question("Sent To Files", "Memo", ["To"]) == "Sent To Files"
    page = DocBuilder(source="ocr")
    page.line("Client Name Acme Labs, Inc. Client Study No.", 107, 272, 523, 290)
    page.line("1419A", 571, 272, 609, 290)
    got = values(page, ["Client Name", "Client Study No."])
    assert got == {"Client Name": "Acme Labs, Inc.", "Client Study No.": "1419A"}


def test_answer_typed_under_its_question_row_beats_a_far_cell_on_the_row() -> None:
    page = DocBuilder(source="ocr")
    page.line("Copies to:", 45, 167, 131, 188)
    page.line("REDUCED TO MATERIAL", 309, 160, 469, 181)
    page.line("Factory Cost Dept.", 127, 198, 283, 218)
    page.line("Sue Livesay", 128, 214, 215, 231)
    assert values(page, ["Copies to"]) == {"Copies to": "Factory Cost Dept. Sue Livesay"}
