import pytest

from tools.practice import ACCEPTED_DOB_FORMATS, PracticeInputError, normalize_dob

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("12/25/1980", "12251980"),
        ("01/02/1980", "01021980"),
        ("1/2/1980", "01021980"),
        ("1/25/1980", "01251980"),
        ("12/5/1980", "12051980"),
        ("1980-12-25", "12251980"),
        ("2000-02-29", "02292000"),
        ("12251980", "12251980"),
        ("02291996", "02291996"),
        (" 1/2/1980 ", "01021980"),
    ],
)
def test_accepted_formats_normalise_to_mmddyyyy(value: str, expected: str) -> None:
    assert normalize_dob(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        "12-25-1980",  # dash-separated month first: refused, not guessed
        "1-2-1980",
        "02/30/1990",  # impossible day
        "13/01/1990",  # impossible month
        "1900-02-29",  # not a leap year
        "00/10/1990",
        "19801225",  # YYYYMMDD read as MMDDYYYY: month 19
        "1980/12/25",
        "1980-1-2",
        "25.12.1980",
        "12/25/80",
        "",
        "Dec 25 1980",
        "\u0661\u0662/\u0662\u0665/\u0661\u0669\u0668\u0660",  # Arabic-Indic digits
    ],
)
def test_other_inputs_are_refused(value: str) -> None:
    with pytest.raises(PracticeInputError) as caught:
        normalize_dob(value)
    message = str(caught.value)
    assert all(fmt in message for fmt in ACCEPTED_DOB_FORMATS)
    if value:
        assert value not in message


def test_month_first_dashes_get_their_own_explanation() -> None:
    with pytest.raises(PracticeInputError, match="dash-separated month-first"):
        normalize_dob("12-25-1980")
