"""What the page shows for each field: `state` (found, blank, not_found), `printed`, and a
citation box around the value's own words (issue 38)."""

from __future__ import annotations

import pytest

from extraction.fields.model.result import FieldResult
from extraction.formats.document import Box

from .doc_builders import DocBuilder, extract, word_line

pytestmark = pytest.mark.unit


def _intake(group_line: str) -> DocBuilder:
    b = DocBuilder()
    b.line("Insurance Company: Blue Cross", 50, 100)
    b.line(group_line, 50, 130)
    b.line("Subscriber: Jane Roe", 50, 160)
    return b


def test_a_label_with_nothing_after_or_under_it_is_blank() -> None:
    got = extract(_intake("Group Number:").doc, "group_number", "insurance_company", "email")
    assert got["group_number"].value is None and got["group_number"].state == "blank"
    assert got["insurance_company"].state == "found"
    # No label of an email anywhere: not on the page, which is not the same thing.
    assert got["email"].state == "not_found"


def test_a_fill_in_rule_or_the_next_label_after_the_label_is_no_answer() -> None:
    assert extract(_intake("Group Number: ________").doc, "group_number")["group_number"].state == "blank"
    assert extract(_intake("Group Number: Plan Type:").doc, "group_number")["group_number"].state == "blank"


def test_a_label_with_something_unreadable_after_it_is_not_called_blank() -> None:
    # Something is written where the date goes; not a date, but not left blank either.
    b = DocBuilder()
    b.line("Date of Birth: unknown to the clinic", 50, 100)
    got = extract(b.doc, "date_of_birth")["date_of_birth"]
    assert got.value is None and got.state == "not_found"


def test_a_label_whose_answer_stands_under_it_is_not_blank() -> None:
    b = DocBuilder()
    b.line("Group Number", 50, 100)
    b.line("Saturday morning shift", 50, 118)
    b.line("Member ID: 55", 50, 200)
    got = extract(b.doc, "group_number")["group_number"]
    # Whatever the rules make of the line under the label, it is not called blank.
    assert got.state != "blank"


def test_an_answer_laid_over_the_labels_row_is_not_blank() -> None:
    # A flattened form: the typed answer is a line of its own, laid over the caption's row; not a
    # date, so no value, but written: not left blank.
    flat = DocBuilder()
    word_line(flat, 100, [("Date", 50), ("of", 80), ("Birth:", 98)])
    word_line(flat, 101, [("unknown", 110)])
    word_line(flat, 160, [("Subscriber:", 50), ("Jane", 120)])
    got = extract(flat.doc, "date_of_birth")["date_of_birth"]
    assert got.value is None and got.state == "not_found"


def test_a_label_printed_twice_is_blank_only_when_neither_is_answered() -> None:
    b = DocBuilder()
    b.line("Group Number:", 50, 100)
    b.line("Subscriber: Jane Roe", 50, 130)
    b.line("Group Number", 50, 300)
    b.line("unreadable scrawl", 50, 318)
    assert extract(b.doc, "group_number")["group_number"].state != "blank"
    b.doc.elements.pop()
    assert extract(b.doc, "group_number")["group_number"].state == "blank"


def test_state_and_printed_are_in_the_result_item() -> None:
    b = DocBuilder()
    b.line("Date of Birth: 02/13/2002", 50, 100)
    b.line("Group Number:", 50, 130)
    got = extract(b.doc, "date_of_birth", "group_number", "email")
    dob = got["date_of_birth"].to_dict()
    assert (dob["value"], dob["printed"], dob["state"]) == ("2002-02-13", "02/13/2002", "found")
    assert got["group_number"].to_dict() == {
        "value": None,
        "confidence": 0.0,
        "citations": [],
        "review_reasons": [],
        "state": "blank",
    }
    assert "printed" not in got["email"].to_dict()


def test_a_models_value_has_no_printed_text() -> None:
    shown = FieldResult(value="2002-02-13", confidence=0.8, source="model", raw="2002-02-13").to_dict()
    assert shown["state"] == "found" and "printed" not in shown


def test_a_part_of_a_longer_answer_is_printed_as_itself() -> None:
    read = FieldResult(value="78745", confidence=0.9, source="text_layer", raw="Austin, TX 78745")
    assert read.to_dict()["printed"] == "78745"


def _box(result: FieldResult) -> list[float]:
    (citation,) = result.citations
    return list(citation["bounding_box"])


def test_a_citation_frames_the_values_words_not_its_whole_line() -> None:
    b = DocBuilder()
    word_line(b, 70, [("Patient", 50), ("Name:", 92), ("Jane", 128), ("Roe", 158)])
    word_line(b, 130, [("City/State/Zip:", 50), ("Austin,", 146), ("TX", 194), ("78745", 212)])
    word_line(b, 160, [("Date", 50), ("of", 80), ("Birth:", 100), ("02/13/2002", 150)])
    got = extract(b.doc, "zip", "city", "state", "date_of_birth")
    assert got["zip"].value == "78745" and _box(got["zip"]) == [212, 130, 242, 140]
    assert got["city"].value == "Austin" and _box(got["city"]) == [146, 130, 188, 140]
    assert got["state"].value == "TX" and _box(got["state"]) == [194, 130, 206, 140]
    # A date printed otherwise than its ISO value is framed where it is printed.
    assert got["date_of_birth"].value == "2002-02-13" and _box(got["date_of_birth"]) == [150, 160, 210, 170]


def test_a_value_that_is_its_whole_line_keeps_the_lines_box() -> None:
    b = DocBuilder()
    word_line(b, 100, [("Name", 50)])
    word_line(b, 118, [("Jane", 50), ("Roe", 80)])
    got = extract(b.doc, "name")["name"]
    assert got.value == "Jane Roe" and _box(got) == [50, 118, 98, 128]


def test_a_line_without_word_boxes_is_cited_whole() -> None:
    b = DocBuilder()
    element = b.line("Zip: 78745", 50, 100)
    got = extract(b.doc, "zip")["zip"]
    assert got.value == "78745" and _box(got) == Box(50, 100, 50 + 8 * len("Zip: 78745"), 114).as_list()
    assert element.lines[0].words == []
