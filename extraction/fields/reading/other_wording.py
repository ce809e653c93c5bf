"""A label printed twice, its second wording after a slash: "Date of Birth / Fecha de nacimiento:".

Forms for patients of two languages print each label in both; some print a synonym after the
label ("Policy / ID Number:"). The value follows the second wording's colon, never the slash:
"/ Fecha de nacimiento" is no value, and a line that ends with the second wording holds none.
A second wording made only of label words naming another concept ("City / State / ZIP", "Phone /
Fax") is a combined label instead, left to the rules that read those; one that only shares a
word with another concept ("Fecha de nacimiento": "fecha" is a date) is the label's translation.
"""

from __future__ import annotations

import re

from extraction.fields.reading.normalize import concept_of, is_label_like

#: A slash, then a few words without digits, up to a colon or the end of the line.
_OTHER_WORDING_RE = re.compile(r"\s*/\s*([^\W\d][^\d:/\uff1a]{0,40}?)\s*(?:[:\uff1a]\s*|$)")


def past_other_wording(text: str, label_end: int, label: str) -> int | None:
    """Where the value starts in `text` when a second wording of `label` follows the label (which
    ends at `label_end`); None when none does."""
    match = _OTHER_WORDING_RE.match(text, label_end)
    if match is None:
        return None
    wording = match.group(1)
    if is_label_like(wording) and concept_of(wording) != concept_of(label):
        return None
    return match.end()
