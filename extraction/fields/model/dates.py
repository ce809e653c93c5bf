"""Date values as ISO dates, whatever produced them (a model writes `April 6, 1977` or `04/06/1977`)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from extraction.fields.reading.date_text import DateOrder, find_dates
from extraction.fields.reading.value_kinds import kind_of

if TYPE_CHECKING:
    from extraction.fields.model.result import FieldResult


def iso_dates(found: dict[str, FieldResult], order: DateOrder) -> dict[str, FieldResult]:
    """`found` with the value of every date field that is one date rewritten as `YYYY-MM-DD`
    (ambiguous numeric dates read in `order`); the page's own text stays in the citations."""
    out: dict[str, FieldResult] = {}
    for name, result in found.items():
        value = result.value
        if kind_of(name) == "date" and isinstance(value, str):
            dates = find_dates(value, order)
            if len(dates) == 1 and dates[0].value != value:
                result = replace(result, value=dates[0].value, raw=result.raw or value)
        out[name] = result
    return out
