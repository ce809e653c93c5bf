"""A choice whose options stand in cells of their own after a label without a colon ("Gender  ☐
Male  ☒ Female"): the marked option is the value, never the unmarked one beside the label."""

from __future__ import annotations

import pytest

from tests.unit.extraction.doc_builders import DocBuilder, values

pytestmark = pytest.mark.unit


def _gender_row(marked_female: bool) -> DocBuilder:
    b = DocBuilder(612, 792)
    b.line("Date of Birth", 50, 100, 130, 110)
    b.line("11/21/1950", 190, 100, 250, 110)
    b.line("Gender", 50, 120, 95, 130)
    b.line("☐" if marked_female else "X", 190, 120, 199, 130)
    b.line("Male", 204, 120, 226, 130)
    b.line("X Female" if marked_female else "☐ Female", 240, 120, 283, 130)
    return b


def test_the_marked_option_is_read_not_the_first_beside_the_label() -> None:
    assert values(_gender_row(marked_female=True), ["gender"]) == {"gender": "Female"}


def test_an_option_after_an_empty_box_is_no_value_but_a_marked_first_one_is() -> None:
    assert values(_gender_row(marked_female=False), ["gender"]) == {"gender": "Male"}
