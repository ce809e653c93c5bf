"""Reading dates as people write them: numeric in any order, with month names in several
languages, ordinals and OCR slips; each found date becomes an ISO `YYYY-MM-DD` string."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal, get_args

#: Two-digit years below this are 20xx, the others 19xx (corpus/README.md, "dates").
TWO_DIGIT_YEAR_PIVOT = 70
#: Years outside this range are not read as dates (they are mostly reference numbers).
MIN_YEAR, MAX_YEAR = 1900, 2099

#: How a numeric date whose parts could be either month or day is read: `MDY` (12/03/2001 is
#: December 3, as US forms write it), `DMY` (March 12) or `YMD` (a two-digit year first:
#: 01/03/12 is 2001-03-12; a four-digit year at the end is then read month first).
DateOrder = Literal["MDY", "DMY", "YMD"]
DATE_ORDERS: tuple[DateOrder, ...] = get_args(DateOrder)
#: The order of the US forms this product serves first.
DEFAULT_DATE_ORDER: DateOrder = "MDY"

_MONTHS: dict[str, int] = {}
for _number, _names in enumerate(
    [
        "january jan janvier janv januar jän enero ene januari gennaio",
        "february feb février fevrier févr fevr februar febrero februari febbraio",
        "march mar mars märz maerz mrz marzo maart",
        "april apr avril abril",
        "may mai mayo mei maggio",
        "june jun juin juni junio giugno",
        "july jul juillet juil juli julio luglio",
        "august aug août aout agosto augustus",
        "september sep sept septembre setiembre septiembre settembre",
        "october oct octobre oktober octubre okt ottobre",
        "november nov novembre noviembre",
        "december dec décembre decembre dezember diciembre dez dic dicembre",
    ],
    start=1,
):
    for _name in _names.split():
        _MONTHS[_name] = _number

#: OCR reads a month's O as a zero in some faces ("20 0ct 2020"): either is taken.
MONTH_RE = "|".join(sorted((re.escape(m).replace("o", "[o0]") for m in _MONTHS), key=len, reverse=True))
_ORDINAL = r"(?:st|nd|rd|th|er|e)?"

#: A date ends where its digits do, or where a time glued to it by OCR starts ("10/03/20185:41:06").
_DATE_END = r"(?:(?![\d]|[.,]\d)|(?=\d{1,2}\s?:\s?\d{2}))"
_DATE_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("ymd", re.compile(r"(?<![\d.,/-])(\d{4})([-/.])(\d{1,2})\2(\d{1,2})" + _DATE_END)),
    ("dmy", re.compile(r"(?<![\d.,/])(\d{1,2})([-/.])(\d{1,2})\2(\d{4}|\d{2})" + _DATE_END)),
    (
        "d_month_y",
        re.compile(
            rf"(?<![\d])(\d{{1,2}}){_ORDINAL}\.?[\s-]*(?:day\s+of\s+|of\s+|de\s+)?"
            rf"({MONTH_RE})\.?(?![a-z])[\s,.-]*(?:de\s+)?(\d{{4}}|\d{{2}}(?![\d:])){_DATE_END}",
            re.IGNORECASE,
        ),
    ),
    (
        "month_d_y",
        re.compile(
            # OCR may drop the space after the comma ("August 27,1943").
            rf"(?<![a-z])({MONTH_RE})\.?\s+(\d{{1,2}}){_ORDINAL}(?:\s*,\s*|\s+)(\d{{4}})(?![\d])",
            re.IGNORECASE,
        ),
    ),
]


@dataclass(frozen=True)
class Match:
    """A value found inside a text: where it is, what it reads as, and the raw characters."""

    start: int
    end: int
    value: str
    raw: str
    #: A numeric date that reads as another real date in another order (03/04/1985).
    ambiguous: bool = False


def _year(text: str) -> int:
    year = int(text)
    if len(text) == 2:
        year += 2000 if year < TWO_DIGIT_YEAR_PIVOT else 1900
    return year


def _iso(year: int, month: int, day: int) -> str | None:
    if not MIN_YEAR <= year <= MAX_YEAR:
        return None
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def _numeric_date(groups: tuple[str, ...], order: DateOrder) -> tuple[str | None, bool]:
    """(ISO date, ambiguous) of `a/b/year`: in `order`, unless only the other order gives a real
    date; ambiguous when both orders give different real dates."""
    first, second, year_text = int(groups[0]), int(groups[2]), groups[3]
    if order == "YMD" and len(groups[0]) == 2 and len(year_text) == 2:
        # 01/03/12: year, month, day.
        return _iso(_year(groups[0]), second, int(year_text)), False
    year = _year(year_text)
    month_first = _iso(year, first, second)
    day_first = _iso(year, second, first)
    ambiguous = month_first is not None and day_first is not None and month_first != day_first
    if order == "DMY":
        return day_first or month_first, ambiguous
    return month_first or day_first, ambiguous


def _date_of(kind: str, groups: tuple[str, ...], order: DateOrder) -> tuple[str | None, bool]:
    if kind == "ymd":
        return _iso(int(groups[0]), int(groups[2]), int(groups[3])), False
    if kind == "dmy":
        return _numeric_date(groups, order)
    if kind == "d_month_y":
        return _iso(_year(groups[2]), _month(groups[1]), int(groups[0])), False
    return _iso(int(groups[2]), _month(groups[0]), int(groups[1])), False


def _month(name: str) -> int:
    return _MONTHS[name.lower().replace("0", "o")]


def _one_slip(word: str, name: str) -> bool:
    """Whether `word` is `name` with one letter misread, or two next to each other swapped."""
    slips = [i for i, (a, b) in enumerate(zip(word, name, strict=True)) if a != b]
    if len(slips) == 1:
        return True
    first, *rest = slips or [0]
    return rest == [first + 1] and word[first] == name[first + 1] and word[first + 1] == name[first]


def _mend_months(text: str) -> str:
    """`text` with a long English month name OCR slipped on once ("Apriè", "Ocotber") spelled
    right, letter for letter in place, so a date's characters keep their positions."""

    def mend(m: re.Match[str]) -> str:
        word = m.group(0)
        low = word.lower()
        if low in _MONTHS:
            return word
        name = next((n for n in _LONG_MONTHS if len(n) == len(low) and _one_slip(low, n)), None)
        return word if name is None else name

    return _WORD_RE.sub(mend, text)


#: English month names long enough that one slip still leaves them unlike any other word.
_LONG_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_WORD_RE = re.compile(r"[^\W\d_]{5,}")


def find_dates(text: str, order: DateOrder = DEFAULT_DATE_ORDER) -> list[Match]:
    """Every date written in `text`, in order, each read as ISO `YYYY-MM-DD`; numeric dates whose
    parts could be month or day are read in `order`."""
    text = _mend_months(text)
    found: list[Match] = []
    for kind, pattern in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            iso, ambiguous = _date_of(kind, m.groups(), order)
            if iso is None or any(m.start() < f.end and f.start < m.end() for f in found):
                continue
            found.append(Match(m.start(), m.end(), iso, m.group(0), ambiguous))
    return sorted(found, key=lambda f: f.start)


def document_date_order(texts: list[str], order: DateOrder = DEFAULT_DATE_ORDER) -> DateOrder:
    """The order a document's numeric dates follow: `order`, unless the document writes a date
    that is real only day first (25/12/2018) and none that is real only month first, or the
    reverse; a document's own unambiguous dates say how it writes the ambiguous ones."""
    if order == "YMD":
        return order
    votes = {"MDY": 0, "DMY": 0}
    for text in texts:
        for m in _DATE_PATTERNS[1][1].finditer(text):
            year = _year(m.group(4))
            first, second = int(m.group(1)), int(m.group(3))
            month_first, day_first = _iso(year, first, second), _iso(year, second, first)
            if month_first and not day_first:
                votes["MDY"] += 1
            elif day_first and not month_first:
                votes["DMY"] += 1
    other: DateOrder = "DMY" if order == "MDY" else "MDY"
    return other if votes[other] and not votes[order] else order


_EDGE_JUNK = " \t\r\n.,;:()[]{}\"'\u201c\u201d\u2018\u2019"


def parse_date(text: str, order: DateOrder = DEFAULT_DATE_ORDER) -> str | None:
    """`text` read as one date (ISO), or None when it holds anything besides one date."""
    stripped = text.strip(_EDGE_JUNK)
    matches = find_dates(stripped, order)
    if len(matches) == 1 and matches[0].start == 0 and matches[0].end == len(stripped):
        return matches[0].value
    return None
