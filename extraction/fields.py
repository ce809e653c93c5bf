"""Field extraction without a model: the document's own structure says where each value is.

Strategies, strongest first (each candidate's score is the strategy's prior x how well the label
names the field x how sure the engine is of the text):
1. PDF form fields whose name matches the field (check boxes read as true/false);
2. `Label: value` anywhere in a line, and `Label value` when the value has a recognisable kind
   (date, amount, email, identifier, ...);
3. key-value rows of tables (label cell, value cell) and header-over-value columns;
4. label left, value right on the same visual line (by box geometry, following a slanted photo);
5. label above, value on the line below (by box geometry);
6. general field heuristics (`heuristics.py`) only when no label names the field.
A form field that matches decides alone. Otherwise the best-scoring candidate wins; for amounts the
most final total (rounded over inclusive-of-tax over plain, `normalize.total_rank`), then the
largest. A field that nothing finds is None: never a guess.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from extraction.candidate import Candidate
from extraction.citations import Citation, element_citation, units_citations
from extraction.document import ConfidenceSource, Document, Element
from extraction.heuristics import heuristic_candidates
from extraction.normalize import (
    SYNONYM_SCORE,
    concept_of,
    concept_words,
    find_dates,
    is_label,
    label_tokens,
    match_label,
    parse_checkbox,
    total_rank,
)
from extraction.text_lines import TextUnit, below, cell_unit, page_skews, right_of, text_units
from extraction.value_kinds import Kind, Reading, kind_of, read_value

#: A label must score at least this against the field name (normalize.match_label) to be used.
LABEL_THRESHOLD = 0.75
#: A form field's name must match at least this well: names are exact far more often than labels.
FORM_FIELD_THRESHOLD = 0.8

#: Prior of each strategy: how often a value found this way is the right one.
PRIORS: dict[str, float] = {
    "form_field": 0.98,
    "label_colon": 0.95,
    "label_inline": 0.85,
    "table_row": 0.92,
    "table_column": 0.85,
    "label_right": 0.9,
    "label_below": 0.8,
}

#: Kinds whose values are formatted tightly enough to be read after a label with no colon.
_INLINE_KINDS: frozenset[Kind] = frozenset(
    {"date", "amount", "email", "url", "phone", "iban", "bic", "identifier", "currency"}
)


@dataclass
class FieldResult:
    """One extracted value: what it is, how sure we are, and where it was read."""

    value: Any
    confidence: float
    citations: list[Citation] = field(default_factory=list)
    #: `form_fields`, `text_layer`, `ocr` or `model`: where the value came from; None when absent.
    source: ConfidenceSource | None = None
    #: The text the value was read from, before normalisation (a date as printed, say).
    raw: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The `result.fields` item of docs/contract.md section 7."""
        return {"value": self.value, "confidence": self.confidence, "citations": self.citations}


def absent() -> FieldResult:
    return FieldResult(value=None, confidence=0.0)


def extract_fields(doc: Document, field_names: list[str], *, file_name: str) -> dict[str, FieldResult]:
    """Values of `field_names` read from `doc` by rules only; citations name `file_name`."""
    units = text_units(doc)
    skews = page_skews(units)
    return {name: _extract_one(doc, units, skews, name, file_name) for name in field_names}


def _extract_one(
    doc: Document, units: list[TextUnit], skews: dict[int, float], name: str, file_name: str
) -> FieldResult:
    form = _from_form_fields(doc, name, file_name)
    if form is not None:
        return form
    kind = kind_of(name)
    candidates = list(_label_candidates(doc, units, skews, name, kind))
    if not candidates:
        candidates = list(heuristic_candidates(units, name, kind))
    if not candidates:
        return absent()
    best = _choose(candidates, kind)
    confidence = round(min(max(best.score, 0.0), 1.0), 3)
    return FieldResult(
        value=best.value,
        confidence=confidence,
        citations=units_citations(doc, best.units, file_name),
        source=best.source,
        raw=best.raw,
    )


def _choose(candidates: list[Candidate], kind: Kind) -> Candidate:
    if kind == "amount":
        # The most final total wins (rounded over inclusive over plain), then the largest (a tax
        # summary's "Total" excludes the tax), then the bottom-most.
        def rank(c: Candidate) -> tuple[int, Decimal, int, float]:
            unit = c.units[-1]
            position = unit.box.y1 if unit.box else float(unit.order)
            return (total_rank(c.label), Decimal(c.value), unit.page, position)

        return max(candidates, key=rank)
    return max(candidates, key=lambda c: (c.score, -c.units[0].order))


def _from_form_fields(doc: Document, name: str, file_name: str) -> FieldResult | None:
    scored = [
        (match_label(name, e.field_name), e) for e in doc.elements if e.type == "form_field" and e.field_name
    ]
    scored = [(s, e) for s, e in scored if s >= FORM_FIELD_THRESHOLD]
    if not scored:
        return None
    best_score = max(s for s, _ in scored)
    best_name = next(e.field_name for s, e in scored if s == best_score)
    widgets = [e for s, e in scored if e.field_name == best_name]
    chosen = _chosen_widget(widgets)
    if chosen is None:
        return FieldResult(value=None, confidence=0.0, source="form_fields")
    value, element = chosen
    return FieldResult(
        value=value,
        confidence=round(PRIORS["form_field"] * best_score * element.confidence, 3),
        citations=[element_citation(doc, element, file_name)],
        source="form_fields",
        raw=element.text,
    )


def _chosen_widget(widgets: list[Element]) -> tuple[Any, Element] | None:
    """A field's value from its widgets: a radio group has one per option, only one of them on.

    Check boxes come as true/false (or on/off, yes/no); an empty or unset field has no value.
    """
    states = [(parse_checkbox(w.text), w) for w in widgets]
    for value, widget in states:
        if value is None and widget.text.strip():
            return widget.text.strip(), widget
    for value, widget in states:
        if value is True:
            return True, widget
    for value, widget in states:
        if value is False:
            return False, widget
    return None


_COLON_RE = re.compile("\\s*[:\uff1a]\\s*")


def _label_candidates(
    doc: Document, units: list[TextUnit], skews: dict[int, float], name: str, kind: Kind
) -> Iterator[Candidate]:
    for unit in units:
        same_line = list(_same_line_candidates(unit, name, kind))
        yield from same_line
        if same_line or _holds_value(unit.text, kind):
            # "Total: 9.00" is a label with its value, not a label for the line below.
            continue
        label_part = _COLON_RE.sub(" ", unit.text).strip()
        score = match_label(name, label_part) if label_part else 0.0
        if score < LABEL_THRESHOLD:
            continue
        if kind == "text" and score < SYNONYM_SCORE and not unit.text.rstrip().endswith(":"):
            # Free text has no shape to check, so only a clear label may point at it.
            continue
        # The whole line is the label: look beside it, then under it.
        for strategy, neighbours in (
            ("label_right", right_of(unit, units, skews.get(unit.page, 0.0))),
            ("label_below", below(unit, units)),
        ):
            for neighbour in neighbours:
                if _is_other_label(neighbour.text) or match_label(name, neighbour.text) >= LABEL_THRESHOLD:
                    break
                reading = read_value(kind, neighbour.text)
                if reading is not None:
                    yield _candidate(reading, score, strategy, [neighbour], label_part)
                    break
    yield from _table_candidates(doc, name, kind)


def _holds_value(text: str, kind: Kind) -> bool:
    if kind == "text":
        parts = _COLON_RE.split(text, maxsplit=1)
        return len(parts) == 2 and bool(parts[1].strip())
    return read_value(kind, text) is not None


def _is_other_label(text: str) -> bool:
    """A line such as "CASHIER:" or "GST No." ends the search for a value: it is another label."""
    return (text.rstrip().endswith(":") and any(c.isalnum() for c in text)) or is_label(text)


def _candidate(
    reading: Reading, label_score: float, strategy: str, units: list[TextUnit], label: str
) -> Candidate:
    return Candidate.of(reading.value, PRIORS[strategy] * label_score, units, reading.raw, strategy, label)


_WORD_RE = re.compile(r"[^\s:\uff1a]+[:\uff1a]?|[:\uff1a]")
_NUMBER_WORD_RE = re.compile(r"\d+(?:[.,]\d+)?")
_PREPOSITIONS = frozenset({"on", "of", "at", "for", "from", "to", "per", "by", "x"})
#: Longest label, in words, looked for inside a line.
_MAX_LABEL_WORDS = 6
_LEADING_NOISE_RE = re.compile(r"^[\s:\uff1a.#*\-()\[\]|]*")


def _follows(rest: str, raw: str) -> bool:
    """Whether `raw` starts `rest` (past punctuation): the value sits right after its label."""
    position = rest.find(raw)
    return position >= 0 and _LEADING_NOISE_RE.sub("", rest[:position]) == ""


def _same_line_candidates(unit: TextUnit, name: str, kind: Kind) -> Iterator[Candidate]:
    """`Label: value` and, for shaped values, `Label value`, anywhere in one line: the best label.

    A label inside a line ("DocNo CS0004 Date: 11/01/2019") counts unless the word before it
    makes it another label ("Sub Total 12.00" names no total).
    """
    text = unit.text
    words = list(_WORD_RE.finditer(text))
    concept = concept_of(name)
    anchors = concept_words(name)
    best: tuple[float, str, Reading, str] | None = None
    for i in range(len(words)):
        if not anchors.intersection(label_tokens(words[i].group(0))):
            # A label starts with one of the field's words ("Grand Total", "Invoice No").
            continue
        for n in range(1, min(_MAX_LABEL_WORDS, len(words) - i - 1) + 1):
            last = words[i + n - 1]
            label = text[words[i].start() : last.end()].rstrip(":\uff1a ")
            after = text[last.end() : words[i + n].start()]
            colon = last.group(0).endswith((":", "\uff1a")) or ":" in after or "\uff1a" in after
            strategy = "label_colon" if colon else "label_inline"
            if not label or (strategy == "label_inline" and kind not in _INLINE_KINDS):
                continue
            if i > 0 and ((kind == "text" and not colon) or _extends(text, words[i - 1], last, concept)):
                continue
            score = match_label(name, label)
            tail = label_tokens(label)[-1:]
            bare_number = _NUMBER_WORD_RE.fullmatch(last.group(0).rstrip(":\uff1a"))
            if score < LABEL_THRESHOLD or bare_number or (tail and tail[0] in _PREPOSITIONS):
                # "Tax 15% on $ 112.90": what follows a preposition is its object, not the value;
                # "DE 232 446 240": a number after a number is the rest of one value.
                continue
            start = words[i + n].start()
            rest = text[start:]
            if kind == "text":
                rest = _up_to_next_label(rest)
            reading = read_value(kind, rest, leading=True)
            if reading is None or not _follows(rest, reading.raw):
                continue
            if kind == "amount" and _inside_date(text, start + rest.find(reading.raw)):
                # "TOTAL AMOUNT DUE ON August 3 , 2014": a year is no amount.
                continue
            weighted = score * PRIORS[strategy]
            if best is None or weighted > best[0]:
                best = (weighted, strategy, reading, label)
    if best is not None:
        _, strategy, reading, label = best
        yield _candidate(reading, match_label(name, label), strategy, [unit], label)


def _inside_date(text: str, position: int) -> bool:
    return any(d.start <= position < d.end for d in find_dates(text))


def _extends(text: str, previous: re.Match[str], last: re.Match[str], concept: str | None) -> bool:
    """Whether the word before a label joins it into a label of another concept."""
    if previous.group(0).endswith((":", "\uff1a")):
        return False
    longer = concept_of(text[previous.start() : last.end()])
    return longer is not None and longer != concept


def _up_to_next_label(rest: str) -> str:
    """Free text after a label runs up to the next `Label:` on the line ("MANIS Member: 7")."""
    match = re.search("\\s*\\S+[:\uff1a]", rest)
    return rest[: match.start()] if match and match.start() > 0 else rest


def _table_candidates(doc: Document, name: str, kind: Kind) -> Iterator[Candidate]:
    for element in doc.elements:
        if element.type != "table" or not element.rows:
            continue
        rows = [[c.strip() for c in row] for row in element.rows]
        for r, row in enumerate(rows):
            if len(row) < 2:
                continue
            score = match_label(name, _COLON_RE.sub(" ", row[0]))
            if score < LABEL_THRESHOLD:
                continue
            found = next(
                ((c, reading) for c, cell in enumerate(row[1:], 1) if (reading := read_value(kind, cell))),
                None,
            )
            if found is not None:
                unit = cell_unit(doc, element, r, found[0])
                yield _candidate(found[1], score, "table_row", [unit], row[0])
        for r, (top, below_row) in enumerate(itertools.pairwise(rows)):
            for column, header in enumerate(top):
                if column >= len(below_row) or not below_row[column]:
                    continue
                score = match_label(name, header)
                reading = read_value(kind, below_row[column]) if score >= LABEL_THRESHOLD else None
                if reading is not None:
                    unit = cell_unit(doc, element, r + 1, column)
                    yield _candidate(reading, score, "table_column", [unit], header)
