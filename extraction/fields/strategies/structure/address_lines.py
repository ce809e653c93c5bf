"""An address written on two lines under one label: "Address: 18 Larkspur Way" over "Fargo, ND 58102".

Print-outs and letters give the street after the label and the city, state and ZIP code on the
next line, aligned under the street, with no label of their own. That line is the city line of
the address above it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from extraction.fields.reading.text_lines import TextUnit

_CITY_LINE_RE = re.compile(r"^[A-Za-z][A-Za-z .'\-]*, ?[A-Z]{2}\.? \d{5}(?:-\d{4})?$")
_STREET_RE = re.compile(r"^\d+[A-Za-z]? [A-Za-z]")
#: How far below the street line the city line may start, in the street line's heights.
MAX_GAP_HEIGHTS = 1.0
#: How far from the street's left edge the city line may start, in line heights.
MAX_SHIFT_HEIGHTS = 1.5


def city_lines(units: list[TextUnit]) -> Iterator[TextUnit]:
    """Units that read "City, ST 12345" right under a street (a unit that starts with its house
    number), starting where the street starts."""
    streets = [u for u in units if u.box is not None and _STREET_RE.match(u.text.strip())]
    for unit in units:
        if unit.box is None or not _CITY_LINE_RE.match(unit.text.strip()):
            continue
        for street in streets:
            assert street.box is not None
            height = street.box.y1 - street.box.y0
            gap = unit.box.y0 - street.box.y1
            if (
                street.page == unit.page
                and -0.3 * height <= gap <= MAX_GAP_HEIGHTS * height
                and abs(unit.box.x0 - street.box.x0) <= MAX_SHIFT_HEIGHTS * height
            ):
                yield unit
                break
