"""The banner of a record print-out: "RAVENSWORTH, COSIMA J" over "DOB: 04/17/1962  Sex: F".

EHR print-outs head each page with the patient's name in the `LAST, FIRST M` form and no label,
then a line of the patient's identifiers. Such a name is the patient's whole name: a line that
is nothing but a comma-written name, with a date-of-birth label on its own line or the next.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from extraction.fields.reading.names import split_name
from extraction.fields.reading.normalize import concept_of
from extraction.fields.reading.text_lines import TextUnit

_LABEL_RE = re.compile(r"([A-Za-z][A-Za-z .#/]{0,24}?)\s*:")
#: `LAST, FIRST M`; OCR may drop the space after the comma ("HOLLINGSBY,FENWICK").
_COMMA_NAME_RE = re.compile(
    r"^[A-Za-z][A-Za-z'\-]+(?: [A-Za-z][A-Za-z'\-]+)*, ?[A-Za-z][A-Za-z'\-]*(?: [A-Za-z]\.?)*$"
)
#: How many lines after the banner may carry the date-of-birth label.
LINES_AFTER = 2


def _has_birth_label(text: str) -> bool:
    return any(concept_of(m.group(1)) == "date_of_birth" for m in _LABEL_RE.finditer(text))


def banner_names(lines: list[TextUnit]) -> Iterator[TextUnit]:
    """Lines that are a patient's banner name."""
    for index, unit in enumerate(lines):
        text = unit.text.strip()
        if not _COMMA_NAME_RE.match(text) or split_name(text) is None:
            continue
        after = [u for u in lines[index + 1 : index + 1 + LINES_AFTER] if u.page == unit.page]
        if any(_has_birth_label(u.text) for u in after):
            yield unit
