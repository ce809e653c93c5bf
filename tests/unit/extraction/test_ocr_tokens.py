"""OCR look-alikes (0/O, 1/l/I) are read by the token they stand in."""

from __future__ import annotations

import pytest

from extraction.formats.ocr_tokens import resolved


@pytest.mark.parametrize(
    ("read", "meant"),
    [
        ("8110O JOHOR", "81100 JOHOR"),  # a postcode with a letter O in it
        ("52oo0 KL", "52000 KL"),
        ("TEL 07-35l2", "TEL 07-3512"),
        ("L0T 1851-A", "LOT 1851-A"),  # a word with a zero in it
        ("g0od", "good"),
        ("JALAN SET1A INDAH", "JALAN SETIA INDAH"),  # a look-alike between two letters
        ("Peta1ing Jaya", "Petaling Jaya"),
        ("MO5T", "MOST"),
        ("AEON C0. (M) BHD", "AEON CO. (M) BHD"),  # an abbreviation before its period
        ("INVOICE N0 : 18287", "INVOICE NO : 18287"),
    ],
)
def test_look_alikes_take_the_kind_of_their_token(read: str, meant: str) -> None:
    assert resolved(read) == meant


@pytest.mark.parametrize(
    "text",
    [
        "U13/BG",  # a reference that mixes letters and digits on purpose
        "113G & 115G",
        "NO.53 JALAN",
        "1O",  # too short to tell
        "0xff",  # lower case after a leading zero: a hex number, not a word
        "A0B1",  # two digits, but letters that are not look-alikes
        "3RD FLOOR",
        "Mo10",
        "UPTOWN3",  # a digit at the end of a word is a number suffix
        "1ST FLOOR",
        "5pcs",
        "B0.50",  # a code or number goes on after the period
    ],
)
def test_tokens_without_a_clear_majority_are_left_alone(text: str) -> None:
    assert resolved(text) == text
