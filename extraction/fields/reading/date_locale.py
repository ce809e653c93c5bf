"""Which way a document writes its numeric dates, when nobody said: what a reader would go by.

The order of `03/01/2019` is not on the page, but a reader tells it from the rest of the page: a
date that is real only one way round (`25/12/2018`) settles it; failing that, where the document is
from does (ringgit, pounds or euros and a country that writes day first; dollars beside a US state
and ZIP code). An order the request or the server's setting states is not inferred: it is used as
given (`resolve_date_order`).
"""

from __future__ import annotations

import re

from extraction.fields.reading.date_text import DEFAULT_DATE_ORDER, DateOrder, document_date_order
from extraction.fields.reading.vocabulary import US_STATES

#: Evidence of a place that writes dates day first: currencies and tax words of such places, their
#: names, and the shape of their postcodes.
_DAY_FIRST_CUES = [
    re.compile(r"(?<![A-Za-z])RM\s?\d", re.IGNORECASE),
    re.compile(r"[£€₹]|\b(?:MYR|GBP|EUR|INR|SGD|AUD|NZD|Rs\.?)\s?\d"),
    re.compile(r"\b(?:GST|SST|VAT|ABN)\b"),
    re.compile(
        r"\b(?:malaysia|singapore|united kingdom|england|scotland|wales|ireland|india|australia"
        r"|new zealand|germany|deutschland|france|italy|italia|spain|españa|netherlands|belgium"
        r"|austria|switzerland|indonesia|south africa|brazil|brasil|mexico|méxico"
        r"|kuala lumpur|selangor|johor|penang|pulau pinang|perak|kedah|melaka|sabah|sarawak"
        r"|pahang|negeri sembilan|terengganu|kelantan|perlis|putrajaya|labuan)\b",
        re.IGNORECASE,
    ),
    # A UK postcode (SW1A 1AA, M1 1AE).
    re.compile(r"\b[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}\b"),
    # A Malaysian address: "Jalan"/"Taman" streets, "Sdn Bhd" companies.
    re.compile(r"\b(?:jalan|jln|taman|sdn\.?\s*bhd|bhd)\b", re.IGNORECASE),
]
_US_STATE_ZIP = re.compile(r"\b([A-Z]{2})\.?,?\s+\d{5}(?:-\d{4})?\b")
_MONTH_FIRST_CUES = [
    re.compile(r"\$\s?\d"),
    re.compile(r"\b(?:USA|U\.S\.A\.|united states(?: of america)?)\b", re.IGNORECASE),
]


def locale_date_order(texts: list[str]) -> DateOrder | None:
    """`DMY` or `MDY` when the document's place, as its text shows it, writes dates one way more
    than the other; None when it says nothing or as much for both."""
    day_first = month_first = 0
    for text in texts:
        day_first += sum(1 for cue in _DAY_FIRST_CUES if cue.search(text))
        month_first += sum(1 for cue in _MONTH_FIRST_CUES if cue.search(text))
        month_first += sum(2 for m in _US_STATE_ZIP.finditer(text) if m.group(1) in US_STATES)
    if day_first > month_first:
        return "DMY"
    if month_first > day_first:
        return "MDY"
    return None


def infer_date_order(texts: list[str], prior: DateOrder = DEFAULT_DATE_ORDER) -> DateOrder:
    """The order of a document's ambiguous numeric dates: its own unambiguous dates first, then
    its locale, then `prior`."""
    by_dates = document_date_order(texts, prior)
    if by_dates != prior or _has_unambiguous_date(texts, prior):
        return by_dates
    return locale_date_order(texts) or prior


def _has_unambiguous_date(texts: list[str], prior: DateOrder) -> bool:
    """Whether the document's own dates already vote for `prior` (so locale does not outvote them)."""
    other: DateOrder = "DMY" if prior == "MDY" else "MDY"
    return document_date_order(texts, other) == prior


def resolve_date_order(texts: list[str], stated: DateOrder | None) -> DateOrder:
    """`stated` (the request's or the server setting's order) when given, as given; otherwise the
    order the document shows (`infer_date_order`)."""
    return stated if stated is not None else infer_date_order(texts)
