"""Date-of-birth normalisation for the patient tools (docs/spec.md "Native tool: practice_save_patient")."""

from __future__ import annotations

import datetime as dt
import re

from tools.practice.errors import PracticeInputError

#: Accepted input formats, as SPEC lists them for `dob`.
ACCEPTED_DOB_FORMATS = ("MM/DD/YYYY", "M/D/YYYY", "YYYY-MM-DD", "MMDDYYYY")

# ASCII digits only: `\d` would also accept other scripts' digits, which the external system would not.
_SLASHED = re.compile(r"([0-9]{1,2})/([0-9]{1,2})/([0-9]{4})")
_ISO = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_COMPACT = re.compile(r"([0-9]{2})([0-9]{2})([0-9]{4})")
_DASHED_MONTH_FIRST = re.compile(r"[0-9]{1,2}-[0-9]{1,2}-[0-9]{4}")

_FORMATS_HINT = "accepted formats are " + ", ".join(ACCEPTED_DOB_FORMATS)


def normalize_dob(value: str) -> str:
    """Return the date of birth as 8 zero-padded digits MMDDYYYY, or raise PracticeInputError.

    Dash-separated month-first dates (12-25-1980) are refused rather than guessed, as SPEC demands,
    because 01-02-1980 reads differently in different countries. The messages never repeat the value.
    """
    text = value.strip()
    if match := _SLASHED.fullmatch(text):
        month, day, year = match.groups()
    elif match := _ISO.fullmatch(text):
        year, month, day = match.groups()
    elif match := _COMPACT.fullmatch(text):
        month, day, year = match.groups()
    elif _DASHED_MONTH_FIRST.fullmatch(text):
        raise PracticeInputError(f"dob: dash-separated month-first dates are not accepted; {_FORMATS_HINT}")
    else:
        raise PracticeInputError(f"dob is not in an accepted format; {_FORMATS_HINT}")
    try:
        date = dt.date(int(year), int(month), int(day))
    except ValueError:
        raise PracticeInputError(f"dob is not a real calendar date; {_FORMATS_HINT}") from None
    return f"{date.month:02d}{date.day:02d}{date.year:04d}"
