import re
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tools.practice import (
    APOSTROPHES,
    PCREF_MAX_CHARS,
    PCREF_NAME_MAX_CHARS,
    PracticeInputError,
    derive_pcref,
    normalize_dob,
    validate_pcref_override,
)

pytestmark = pytest.mark.unit

DOB = "01/02/1980"


@pytest.mark.parametrize(
    ("first", "last", "dob", "expected"),
    [
        ("John", "Smith", "01/02/1980", "johnsmith01021980"),
        ("JOHN", "SMITH", "1/2/1980", "johnsmith01021980"),
        ("Mary Ann", "O'Brien", "1980-12-25", "maryannobrien12251980"),
        ("Mary  Ann", "O\u2019Brien", "12251980", "maryannobrien12251980"),
        ("Jean-Luc", "Picard", "7/13/2305", "jean-lucpicard07132305"),
        ("Ana\u00a0Maria", " de la\tCruz \n", "2000-02-29", "anamariadelacruz02292000"),
        ("Jos\u00e9", "N\u00fa\u00f1ez", "03/04/1999", "jos\u00e9n\u00fa\u00f1ez03041999"),
        ("D\u2018Angelo", "Ma\u02bcat", "11/30/1970", "dangelomaat11301970"),
        ("Ren\u2032ee", "Wu", "11/30/1970", "reneewu11301970"),
        # 60 letters: truncated to 57 before the date, so the key is exactly 65 characters.
        ("A" * 30, "B" * 30, DOB, "a" * 30 + "b" * 27 + "01021980"),
        # Whitespace goes before the truncation, so it does not use up the 57 characters.
        ("A " * 30, "B" * 30, DOB, "a" * 30 + "b" * 27 + "01021980"),
        # Apostrophes go after the truncation: the cut keeps "O'" + 55 letters, and the key is 64 long.
        ("O'" + "a" * 55, "Brien", DOB, "o" + "a" * 55 + "01021980"),
    ],
)
def test_golden_keys(first: str, last: str, dob: str, expected: str) -> None:
    assert derive_pcref(first, last, dob) == expected


def test_truncation_happens_before_apostrophes_are_removed() -> None:
    key = derive_pcref("O'" + "a" * 55, "Brien", DOB)
    assert len(key) == PCREF_MAX_CHARS - 1
    assert not key.startswith("o" + "a" * 55 + "b")


@pytest.mark.parametrize("mark", sorted(APOSTROPHES))
def test_every_apostrophe_variant_gives_the_same_key(mark: str) -> None:
    assert derive_pcref("Sean", f"O{mark}Neil", DOB) == "seanoneil01021980"


def test_the_named_apostrophes_are_covered() -> None:
    assert {"'", "\u2019", "\u2018", "\u02bc", "\u2032", "`"} <= APOSTROPHES


def test_limits_are_the_spec_values() -> None:
    assert (PCREF_NAME_MAX_CHARS, PCREF_MAX_CHARS) == (57, 65)


@pytest.mark.parametrize(("first", "last"), [("", "Smith"), ("John", "  "), ("'", "\u2019")])
def test_unusable_names_are_refused(first: str, last: str) -> None:
    with pytest.raises(PracticeInputError):
        derive_pcref(first, last, DOB)


def test_a_bad_date_is_refused() -> None:
    with pytest.raises(PracticeInputError):
        derive_pcref("John", "Smith", "12-25-1980")


def test_dotted_capital_i_lengthening_past_the_limit_is_refused_not_cut() -> None:
    # U+0130 is the one character whose lowercase is two characters long.
    assert derive_pcref("\u0130smail", "Kaya", DOB) == "i\u0307smailkaya01021980"
    with pytest.raises(PracticeInputError, match="pass patient_pcref"):
        derive_pcref("\u0130" * 10, "K" * 50, DOB)


@pytest.mark.parametrize(
    ("value", "expected"),
    [("JohnSmith01021980", "johnsmith01021980"), ("x" * 65, "x" * 65), ("A'B", "a'b")],
)
def test_override_is_lowercased(value: str, expected: str) -> None:
    assert validate_pcref_override(value) == expected


@pytest.mark.parametrize("value", ["", "john smith", "john\tsmith", "x" * 66, "\u0130" * 40])
def test_bad_overrides_are_refused(value: str) -> None:
    with pytest.raises(PracticeInputError):
        validate_pcref_override(value)


# Names drawn from everything Unicode offers plus a heavy dose of whitespace and apostrophes.
_NAME_CHARS = st.one_of(
    st.characters(codec="utf-8"),
    st.sampled_from([*sorted(APOSTROPHES), " ", "\t", "\xa0", "\u3000", "\n"]),
    st.sampled_from(string.ascii_letters),
)
_NAMES = st.text(_NAME_CHARS, max_size=80)


@st.composite
def _dobs(draw: st.DrawFn) -> str:
    date = draw(st.dates())
    style = draw(st.sampled_from(["slash", "short", "iso", "compact"]))
    if style == "slash":
        return f"{date.month:02d}/{date.day:02d}/{date.year:04d}"
    if style == "short":
        return f"{date.month}/{date.day}/{date.year:04d}"
    if style == "iso":
        return f"{date.year:04d}-{date.month:02d}-{date.day:02d}"
    return f"{date.month:02d}{date.day:02d}{date.year:04d}"


@given(first=_NAMES, last=_NAMES, dob=_dobs())
def test_derived_keys_keep_their_invariants(first: str, last: str, dob: str) -> None:
    try:
        key = derive_pcref(first, last, dob)
    except PracticeInputError:
        usable = [ch for ch in first + last if not ch.isspace() and ch not in APOSTROPHES]
        # Refusals only for the documented reasons: a blank name, nothing usable, or U+0130 lengthening.
        assert not first.strip() or not last.strip() or not usable or "\u0130" in first + last
        return
    assert not any(ch.isspace() for ch in key)
    assert not APOSTROPHES & set(key)
    assert 8 < len(key) <= PCREF_MAX_CHARS
    assert key == key.lower()
    assert re.fullmatch(r"[0-9]{8}", key[-8:])
    assert key[-8:] == normalize_dob(dob)
    assert derive_pcref(first, last, dob) == key
    # Where the whitespace sits never changes the key.
    assert derive_pcref(f" {first}\t", f"\n{last} ", dob) == key
