"""Captions printed under the line a value is typed on ("Kettleburn  Dorian" over "Last  First").

A form that types its values on ruled lines prints each value's caption just under its part of
the line. The value then sits above its label, closer to it than to anything above the value: a
form that sets labels above values puts each label closer to its own value than to the value of
the row before. Which of the two a value belongs to is told by those two gaps, unless the page's
ends (its first and last rows) vote that it sets labels above values: then it prints no captions.
"""

from __future__ import annotations

from collections.abc import Callable

from extraction.fields.reading.layout import is_heading
from extraction.fields.reading.normalize import caption_core, is_label_like
from extraction.fields.reading.text_lines import TextUnit, same_row
from extraction.fields.reading.vocabulary import read_gender

#: A value is its caption's when the gap down to the caption is at most this share of the gap up
#: to whatever is above the value (a value with nothing near above it qualifies on its own).
NEARER_SHARE = 0.6
#: ...and at least this many of the value's heights smaller: rows packed tight with equal gaps
#: tell nothing.
MIN_GAP_DIFFERENCE = 0.4
#: ...unless the gap down is at most this share of the gap up (rows packed tight, but a caption
#: still hugs its value), and this many heights smaller.
CLEAR_SHARE = 0.3
MIN_CLEAR_DIFFERENCE = 0.2
#: Farthest a caption sits under its value, in the value's heights.
MAX_CAPTION_GAP_HEIGHTS = 1.2
#: How far up, in the value's heights, something above the value is looked for.
LOOK_UP_HEIGHTS = 3.0
#: A caption is not set larger than its value (by more than rounding of the boxes).
MAX_CAPTION_SIZE = 1.15


def _overlap(a: TextUnit, b: TextUnit) -> bool:
    return a.box is not None and b.box is not None and min(a.box.x1, b.box.x1) > max(a.box.x0, b.box.x0)


def _labels_a_number(caption: TextUnit, units: list[TextUnit], value_row: list[TextUnit]) -> bool:
    """Whether `caption`, words without a number, has a number of its own right of it on its row,
    off the value's row: it is the label of that row ("CASH  RM 50.00" packed tight under
    "Total  RM 37.10"), no caption."""
    box = caption.box
    if box is None or any(ch.isdigit() for ch in caption.text):
        return False
    return any(
        u.box is not None
        and u.box.x0 >= box.x1
        and same_row(box, u.box)
        and u not in value_row
        and any(ch.isdigit() for ch in u.text)
        for u in units
    )


def _labels_above(units: list[TextUnit], is_label: Callable[[TextUnit], bool]) -> bool:
    """The page's vote on which way its labels go, from the ends of its columns, where the two
    ways differ. A label with a value under it and nothing over it (the first row of a form that
    sets labels above values), or a value with a label over it and nothing under it (the last
    row), votes above; the mirror images (a caption under the last line, a value typed over the
    first caption) vote under. Rows between two rows of the other kind tell nothing."""
    above = under = 0
    for unit in units:
        box = unit.box
        if box is None or is_heading(unit) or box.y1 <= box.y0:
            continue
        reach = MAX_CAPTION_GAP_HEIGHTS * (box.y1 - box.y0)
        near = [
            u
            for u in units
            if u is not unit and u.box is not None and _overlap(u, unit) and not is_heading(u)
        ]
        over = [
            u
            for u in near
            if u.box is not None and box.y0 - reach <= u.box.y1 <= box.y0 + 0.3 * (box.y1 - box.y0)
        ]
        under_it = [
            u
            for u in near
            if u.box is not None and box.y1 - 0.3 * (box.y1 - box.y0) <= u.box.y0 <= box.y1 + reach
        ]
        label = is_label(unit)
        # What the unit pairs with: values for a label, labels for a value.
        if over and not under_it and all(is_label(u) != label for u in over):
            above, under = (above, under + 1) if label else (above + 1, under)
        elif under_it and not over and all(is_label(u) != label for u in under_it):
            above, under = (above + 1, under) if label else (above, under + 1)
    return above > under


class CaptionIndex:
    """Which unit captions which value on a document's pages (computed once per document)."""

    def __init__(self, units: list[TextUnit]) -> None:
        #: Order of a caption -> the value above it; orders of values that have a caption.
        self._value_of: dict[int, TextUnit] = {}
        self._captioned: set[int] = set()
        by_page: dict[int, list[TextUnit]] = {}
        for unit in units:
            if unit.box is not None:
                by_page.setdefault(unit.page, []).append(unit)
        for page_units in by_page.values():
            self._index_page(page_units)

    def _index_page(self, units: list[TextUnit]) -> None:
        label_like: dict[int, bool] = {}

        def is_label(unit: TextUnit) -> bool:
            if unit.order not in label_like:
                label_like[unit.order] = is_label_like(caption_core(unit.text))
            return label_like[unit.order]

        if _labels_above(units, is_label):
            # A page that sets labels above values prints no captions under them.
            return
        for value in units:
            assert value.box is not None
            height = value.box.y1 - value.box.y0
            if height <= 0 or ":" in value.text:
                continue
            captions = [
                (c.box.y0 - value.box.y1, c)
                for c in units
                if c is not value
                and c.box is not None
                and _overlap(c, value)
                and value.box.y1 - 0.3 * height <= c.box.y0 <= value.box.y1 + MAX_CAPTION_GAP_HEIGHTS * height
                and c.box.y1 - c.box.y0 <= MAX_CAPTION_SIZE * height
                # "Middle Initial:" introduces a value beside or under it; it captions nothing.
                and not c.text.rstrip().endswith(":")
                # A choice's option ("Female" under a date) is the next row's value, no caption.
                and read_gender(c.text) is None
            ]
            row = [u for u in units if u.box is not None and same_row(value.box, u.box)]
            captions = [(gap, c) for gap, c in captions if not _labels_a_number(c, units, row)]
            if not captions:
                continue
            if is_heading(value) or 2 * sum(1 for u in row if is_label(u)) >= len(row):
                # A heading, or a row mostly of labels, above a label is no value typed over a
                # caption: it is a row of labels of a form that sets labels above values.
                continue
            up = [
                value.box.y0 - o.box.y1
                for o in units
                if o is not value
                and o.box is not None
                and _overlap(o, value)
                and o.box.y1 <= value.box.y0 + 0.3 * height
            ]
            gap_up = min((g for g in up if g <= LOOK_UP_HEIGHTS * height), default=float("inf"))
            for gap, caption in captions:
                clearer = gap <= CLEAR_SHARE * gap_up and gap_up - gap >= MIN_CLEAR_DIFFERENCE * height
                if gap <= NEARER_SHARE * gap_up and (gap_up - gap >= MIN_GAP_DIFFERENCE * height or clearer):
                    known = self._value_of.get(caption.order)
                    if known is None or (known.box is not None and known.box.y1 < value.box.y1):
                        self._value_of[caption.order] = value
                    self._captioned.add(value.order)

    def above(self, caption: TextUnit) -> list[TextUnit]:
        """The value typed above `caption`, when `caption` is its caption."""
        value = self._value_of.get(caption.order)
        return [value] if value is not None else []

    def captioned(self, value: TextUnit) -> bool:
        """Whether `value` has a caption of its own under it (so it is no value of a label above)."""
        return value.order in self._captioned
