"""A value that is part of one widget's or line's text (extraction.examples.parts)."""

from __future__ import annotations

import pytest

from extraction.examples.kinds import same_value, value_kind
from extraction.examples.parts import Part, cut, find_part


def _part(text: str, field: str, value: str) -> Part | None:
    kind = value_kind(field, value)
    return find_part(text, lambda words: same_value(kind, value, words))


def test_city_state_and_zip_are_found_inside_one_text() -> None:
    text = "Portland, OR 97201"
    city, state, zip_code = (
        _part(text, f, v) for f, v in [("city", "Portland"), ("state", "OR"), ("zip", "97201")]
    )
    assert city == Part(0, 2, 0, 0, 1, 2)
    assert state == Part(1, 2, 0, 1, 1, 1)
    assert zip_code == Part(1, 2, 1, 0, 1, 0)


def test_a_value_that_is_the_whole_text_or_not_in_it_has_no_part() -> None:
    assert _part("Portland", "city", "Portland") is None
    assert _part("Portland, OR 97201", "city", "Salem") is None


def test_a_later_text_is_cut_at_the_taught_place_whatever_the_value_length() -> None:
    city, state, zip_code = Part(0, 2, 0, 0, 1, 2), Part(1, 2, 0, 1, 1, 1), Part(1, 2, 1, 0, 1, 0)
    text = "Salt Lake City, UT 84101-2200"
    assert [cut(text, p) for p in (city, state, zip_code)] == ["Salt Lake City", "UT", "84101-2200"]


def test_a_lost_comma_still_reads_the_first_and_last_segments() -> None:
    city, state, zip_code = Part(0, 2, 0, 0, 1, 2), Part(1, 2, 0, 1, 1, 1), Part(1, 2, 1, 0, 1, 0)
    # A scan read the comma as nothing: one segment where two were taught.
    text = "Salt Lake City UT 84101"
    assert [cut(text, p) for p in (city, state, zip_code)] == ["Salt Lake City", "UT", "84101"]


def test_amount_commas_do_not_cut_and_dates_are_found_by_meaning() -> None:
    part = _part("Copay $1,250.00 due", "copay_amount", "1250")
    assert part is not None and part.segments == 1 and part.before == 1 and part.after == 1
    date = _part("DOB 03/14/1985 Age 40", "date_of_birth", "1985-03-14")
    assert date is not None and cut("DOB 11/02/1990 Age 35", date) == "11/02/1990"


@pytest.mark.parametrize("text", ["", "Portland"])
def test_a_text_without_the_taught_place_gives_nothing(text: str) -> None:
    assert cut(text, Part(1, 2, 0, 1, 1, 1)) is None
