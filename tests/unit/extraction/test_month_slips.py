"""A long month name OCR slipped on once is still read as a month (`extraction/fields/reading/date_text.py`)."""

from __future__ import annotations

import pytest

from extraction.fields.reading.date_text import find_dates, parse_date

pytestmark = pytest.mark.unit


def test_a_month_with_one_letter_misread_or_two_swapped_is_read() -> None:
    assert parse_date("Apriè 27, 1981") == "1981-04-27"
    assert parse_date("Ocotber 9, 1968") == "1968-10-09"
    assert parse_date("12 Novenber 1990") == "1990-11-12"


def test_the_date_keeps_its_place_in_the_text() -> None:
    (found,) = find_dates("DATE Apriè 27, 1981 NO. 4")
    assert (found.start, found.end, found.value) == (5, 19, "1981-04-27")


def test_words_two_slips_away_or_short_names_are_no_months() -> None:
    assert parse_date("Apple 27, 1981") is None
    assert parse_date("Juno 27, 1981") is None
    assert parse_date("Octopus 9, 1968") is None
