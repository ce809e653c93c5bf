"""How much of a document's structure the evidence knows: one figure per document.

A value's own evidence (a label that names its field, a validator it passes) says how it was
found, not whether the document around it is of a kind the rules and the fit know. A contract,
a letter or an invoice read by label strategies tuned on intake forms can hold a value whose
evidence looks as strong as a form's while the page around it is mostly text nothing explains.
So each document gets one figure, its known structure: the share of its text units (lines, split
into cells where words stand apart) that read as a label the vocabulary knows, the text before a
colon taken alone ("Date of Birth: 03/04/1985" is a label and its value). A patient intake form
is about half labels; a contract's clauses, a receipt's items, a letter's paragraphs are not
labels. A form's widgets count too, each known when its name reads as a label ("Name_First" is,
"Text12" is not): a fillable form states its structure for machines. `calibration` holds a value under `HIGH` when its document is less structured than the
documents on which the fit saw its kind of evidence right (the structure floor).
"""

from __future__ import annotations

from collections.abc import Iterable

from extraction.fields.reading.normalize import is_label_like
from extraction.fields.reading.text_lines import TextUnit


def reads_as_label(text: str) -> bool:
    """Whether a unit's text, or its part before a colon, is a label the vocabulary knows."""
    head = text.split(":", 1)[0]
    return bool(head.strip()) and is_label_like(head)


def known_structure(units: Iterable[TextUnit], widget_names: Iterable[str] = ()) -> float:
    """Share of the document's text units and form widgets (by name) that read as known labels;
    0.0 for a document with neither."""
    texts = [u.text for u in units if u.text.strip()] + [n for n in widget_names if n.strip()]
    if not texts:
        return 0.0
    return round(sum(reads_as_label(t) for t in texts) / len(texts), 3)
