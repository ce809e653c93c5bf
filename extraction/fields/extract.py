"""Field extraction without a model: the document's own structure says where each value is.

Strategies, strongest first (each candidate's score is the strategy's prior x how well the label
names the field x how sure the engine is of the text):
1. PDF form fields whose name matches the field (check boxes read as true/false), then the values
   an e-invoice attached to the PDF states (`embedded.py`);
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

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from extraction.fields.calibration import LOW_TEXT_CONFIDENCE, Signals, calibrated_confidence, evidence_key
from extraction.fields.candidate import HEURISTIC_PRIOR, Candidate
from extraction.fields.choices import marked_initial, marked_option
from extraction.fields.citations import Citation, element_citation, units_citations
from extraction.fields.date_locale import resolve_date_order
from extraction.fields.embedded import embedded_value
from extraction.fields.heuristics import heuristic_candidates
from extraction.fields.layout import cell_units, other_party_units, widget_labels
from extraction.fields.names import split_name
from extraction.fields.normalize import (
    SYNONYM_SCORE,
    DateOrder,
    concept_of,
    concept_words,
    find_dates,
    format_amount,
    is_label,
    is_label_like,
    label_tokens,
    match_label,
    parse_checkbox,
    parse_date,
    related_concepts,
    total_rank,
    vocabulary_words,
)
from extraction.fields.questions import PRIORS as QUESTION_PRIORS
from extraction.fields.questions import Occurrence, is_printed_name, is_question_name
from extraction.fields.questions import answer as question_answer
from extraction.fields.structure.address_lines import city_lines
from extraction.fields.structure.banner import banner_names
from extraction.fields.structure.captions import CaptionIndex
from extraction.fields.structure.combined import combined_caption, names_parts, split_by_caption
from extraction.fields.structure.whose import (
    LATER_COVERAGE_SHARE,
    OTHER_PROVIDER_SHARE,
    later_coverage,
    other_provider,
    row_heading,
)
from extraction.fields.text_lines import TextUnit, below, cell_unit, page_skews, right_of, text_units
from extraction.fields.value_kinds import Kind, Reading, kind_of, read_value
from extraction.fields.vocabulary import (
    GENDER_OPTIONS,
    FieldSpec,
    address_part,
    field_spec,
    is_other_party,
    is_prose,
    read_gender,
    street_suffix_mended,
    validate,
)
from extraction.formats.document import Box, ConfidenceSource, Document, Element

#: A label must score at least this against the field name (normalize.match_label) to be used.
LABEL_THRESHOLD = 0.75
#: A form field's name must match at least this well: names are exact far more often than labels.
FORM_FIELD_THRESHOLD = 0.8

#: Prior of each strategy: how often a value found this way is the right one.
PRIORS: dict[str, float] = {
    "form_field": 0.98,
    "embedded": 0.98,
    "label_colon": 0.95,
    "label_inline": 0.85,
    "table_row": 0.92,
    "table_column": 0.85,
    "label_right": 0.9,
    "label_below": 0.8,
    "label_above": 0.85,
    "banner": 0.8,
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
    #: The calibration key of the value's evidence (`calibration.evidence_keys`), for fitting.
    evidence: str | None = None
    #: The strategy's prior and the agreement signals the confidence was computed from, for fitting.
    prior: float | None = None
    signals: Signals | None = None

    def to_dict(self) -> dict[str, Any]:
        """The `result.fields` item of docs/contract.md section 7."""
        return {"value": self.value, "confidence": self.confidence, "citations": self.citations}


def absent() -> FieldResult:
    return FieldResult(value=None, confidence=0.0)


def extract_fields(
    doc: Document, field_names: list[str], *, file_name: str, date_order: DateOrder | None = None
) -> dict[str, FieldResult]:
    """Values of `field_names` read from `doc` by rules only; citations name `file_name`.

    Ambiguous numeric dates are read in `date_order` when it is given; otherwise in the order the
    document shows (its own unambiguous dates, then its locale: `date_locale.infer_date_order`).
    Every date field's value is ISO `YYYY-MM-DD`.
    """
    lines = text_units(doc)
    units = cell_units(doc)
    context = _Context(
        doc=doc,
        lines=lines,
        units=units,
        skews=page_skews(units),
        order=resolve_date_order([u.text for u in lines], date_order),
        other_places={(u.page, u.box) for u in units if u.order in other_party_units(units)},
        widget_labels=widget_labels(doc, units),
        file_name=file_name,
        captions=CaptionIndex(units),
        field_names=field_names,
    )
    return {name: _extract_one(context, name) for name in field_names}


@dataclass
class _Context:
    doc: Document
    #: The document's visual lines, and the same split into cells where words stand apart.
    lines: list[TextUnit]
    units: list[TextUnit]
    skews: dict[int, float]
    order: DateOrder
    #: (page, box) of the cells inside sections about someone other than the patient.
    other_places: set[tuple[int, Box | None]]
    #: The labels printed beside or above each form widget (by `id` of its element).
    widget_labels: dict[int, list[str]]
    file_name: str
    #: Which unit is printed as the caption under which value (`structure.captions`).
    captions: CaptionIndex
    #: Every field asked of the document: a name the vocabulary does not know is a printed question.
    field_names: list[str] = field(default_factory=list)
    #: Per page, where each asked question is printed (`questions.answer`), found once.
    questions_seen: dict[int, dict[str, list[Occurrence]]] = field(default_factory=dict)


def _value_kind(spec: FieldSpec, name: str) -> Kind:
    if spec.part is not None or spec.concept in _TEXT_CONCEPTS:
        return "text"
    return kind_of(name)


#: Concepts read as text whatever their names' words suggest (a ZIP code is no amount).
_TEXT_CONCEPTS = frozenset({"zip", "gender", "provider", "insurer", "state", "city", "street"})


def _extract_one(ctx: _Context, name: str) -> FieldResult:
    spec = field_spec(name)
    kind = _value_kind(spec, name)
    form = _from_form_fields(ctx, spec, kind)
    if form is not None:
        return form
    stated = _from_embedded(ctx, spec, kind)
    if stated is not None:
        return stated
    boxed = bool(ctx.units) and all(u.box is not None for u in ctx.units)
    if spec.part is None and boxed and is_question_name(name):
        # A name no vocabulary knows is read as the page's printed question, or not at all: a
        # fuzzy label elsewhere is a confident guess.
        return _from_question(ctx, name, kind)
    # A part of someone else's name (`provider_last_name`) is read from their whole name only.
    direct = spec.part is None or spec.owner == "patient"
    labelled = (
        _label_candidates(ctx.doc, ctx.units, ctx.skews, name, kind, ctx.order, ctx.captions)
        if direct
        else iter(())
    )
    candidates = [_shaped(c, spec, ctx) for c in labelled]
    if spec.part is not None and spec.whole_name is not None:
        whole = spec.whole_name.replace("_", " ")
        for candidate in _label_candidates(
            ctx.doc, ctx.units, ctx.skews, whole, "text", ctx.order, ctx.captions
        ):
            candidate.strategy = "whole_name"
            candidates.append(_shaped(candidate, spec, ctx))
        if spec.patient_owned:
            candidates.extend(_shaped(c, spec, ctx) for c in _banner_candidates(ctx))
    if (spec.patient_owned and spec.concept in _COMBINED_CONCEPTS) or (spec.part and spec.whole_name):
        candidates.extend(_shaped(c, spec, ctx) for c in _combined_candidates(ctx, spec))
    kept = [c for c in candidates if c is not None and _belongs(c, spec, ctx)]
    for candidate in kept:
        if spec.owner == "provider" and other_provider(candidate.label):
            # A referring doctor is the patient's provider only where no other is named.
            candidate.score *= OTHER_PROVIDER_SHARE
        heading = row_heading(candidate.units[0], ctx.units)
        if heading is not None and later_coverage(heading.text):
            candidate.score *= LATER_COVERAGE_SHARE
    if not kept and spec.patient_owned and spec.concept in ("city", "state", "zip"):
        # Only where no label names the part: the line under the street is its city line.
        kept = [c for c in (_shaped(c, spec, ctx) for c in _city_line_candidates(ctx)) if c is not None]
        kept = [c for c in kept if _belongs(c, spec, ctx)]
    if not kept and not spec.patient_owned and spec.part is None:
        kept = list(heuristic_candidates(ctx.lines, name, kind, ctx.order))
    if not kept and spec.concept == "subtotal" and kind == "amount":
        return _net_of_tax(ctx)
    if not kept:
        # A known label none of the rules above could read ("FROM:" over a name) is still the
        # page's printed question.
        if spec.part is None and boxed and is_printed_name(name):
            return _from_question(ctx, name, kind, strict=True)
        return absent()
    best = _choose(kept, kind)
    if spec.concept == "total" and kind == "amount":
        best = _rounded_total(ctx, best)
    text_confidence = min(u.confidence for u in best.units)
    key = evidence_key(
        best.source, best.strategy, best.valid, best.ambiguous, text_confidence < LOW_TEXT_CONFIDENCE
    )
    prior = best.score / max(text_confidence, 1e-6)
    signals = _signals(best, kept, spec, text_confidence)
    return FieldResult(
        value=best.value,
        confidence=calibrated_confidence(key, prior, text_confidence, signals),
        citations=units_citations(ctx.doc, best.units, ctx.file_name),
        source=best.source,
        raw=best.raw,
        evidence=key,
        prior=prior,
        signals=signals,
    )


#: Another candidate scoring at least this share of the chosen one's score contests it.
CONTESTED_SHARE = 0.85


def _signals(best: Candidate, kept: list[Candidate], spec: FieldSpec, text_confidence: float) -> Signals:
    """How well the chosen value's evidence agrees: its label against the strategy's best, its
    rivals, and whether the field is one the vocabulary knows."""
    strategy_prior = PRIORS.get(best.strategy, HEURISTIC_PRIOR)
    match = best.score / max(strategy_prior * text_confidence, 1e-6)
    chosen = str(best.value).casefold()
    contested = any(
        str(c.value).casefold() != chosen and c.score >= CONTESTED_SHARE * best.score for c in kept
    )
    return Signals(
        match=min(match, 1.0),
        contested=contested,
        known_field=spec.concept is not None,
        text_confidence=text_confidence,
        labelled=bool(best.label),
    )


#: A cash rounding adjustment is a few cents: at most this much.
MAX_ROUNDING = Decimal("0.50")
#: Lines looked at below a total for its rounding adjustment, and below that for the rounded total.
ROUNDING_LINES = 3
_SIGNED_AMOUNT_RE = re.compile(r"(-?)\s*(\d+[.,]\d{2})\s*$")
_AMOUNT_RE = re.compile(r"(?<![\d.,])\d+[.,]\d{2}(?![\d.,]*\d)")


def _rounded_total(ctx: _Context, best: Candidate) -> Candidate:
    """A receipt's total, or the rounded total printed under it: a "ROUNDING ADJ -0.01" line below
    the total, and below that the total plus the adjustment, is what was paid (a rounded total
    with a label of its own is already preferred by `_choose`)."""
    if total_rank(best.label) >= 4:
        return best
    below = _lines_below(ctx.lines, best.units[-1])
    for index, unit in enumerate(below[:ROUNDING_LINES]):
        found = _SIGNED_AMOUNT_RE.search(unit.text)
        if found is None or concept_of(unit.text[: found.start()]) != "rounding":
            continue
        adjustment = Decimal(found.group(2).replace(",", ".")) * (-1 if found.group(1) else 1)
        if not 0 < abs(adjustment) <= MAX_ROUNDING:
            return best
        rounded = Decimal(str(best.value)) + adjustment
        for after in below[index + 1 : index + 1 + ROUNDING_LINES]:
            for amount in _AMOUNT_RE.finditer(after.text):
                if Decimal(amount.group().replace(",", ".")) == rounded:
                    return Candidate.of(
                        format_amount(rounded), best.score, [after], amount.group(), best.strategy, best.label
                    )
        return best
    return best


def _lines_below(lines: list[TextUnit], unit: TextUnit) -> list[TextUnit]:
    """The lines of `unit`'s page under it, top down (in reading order where there are no boxes;
    `unit` may be a cell of a line, numbered apart from the lines)."""
    same_page = [u for u in lines if u.page == unit.page]
    box = unit.box
    if box is None or any(u.box is None for u in same_page):
        return sorted((u for u in same_page if u.order > unit.order), key=lambda u: u.order)
    middle = (box.y0 + box.y1) / 2
    return sorted(
        (u for u in same_page if u.box and u.box.y0 > middle), key=lambda u: u.box.y0 if u.box else 0.0
    )


def _from_embedded(ctx: _Context, spec: FieldSpec, kind: Kind) -> FieldResult | None:
    """The value an attached e-invoice states for the field (`fields.embedded`), read as the
    field's kind; cited where the page shows the same text, if it does."""
    answer = embedded_value(ctx.doc.embedded, spec.name)
    if answer is None:
        return None
    stated = answer.value
    if stated is None:
        return absent()
    reading = read_value(kind, stated.value, leading=True) if kind != "text" else None
    value = reading.value if reading is not None else stated.value
    valid = validate(spec, value)
    key = evidence_key("form_fields", "embedded", valid)
    shown = [u for u in ctx.lines if stated.value.casefold() in u.text.casefold()][:1]
    return FieldResult(
        value=value,
        confidence=calibrated_confidence(key, PRIORS["embedded"]),
        citations=units_citations(ctx.doc, shown, ctx.file_name),
        source="form_fields",
        raw=stated.value,
        evidence=key,
        prior=PRIORS["embedded"],
    )


def _from_question(ctx: _Context, name: str, kind: Kind, *, strict: bool = False) -> FieldResult:
    """The answer to a field named by its printed question (`fields.questions`); no value where
    the question is not printed or left unanswered (`strict`: `questions.answer`). A date or an amount field's answer is read as
    one (ISO dates, plain amounts); an answer that holds none is doubtful."""
    pages = {u.page for u in ctx.units}
    found = [
        a
        for page in sorted(pages)
        if (
            a := question_answer(
                name,
                [u for u in ctx.units if u.page == page],
                ctx.field_names,
                ctx.skews.get(page, 0.0),
                strict=strict,
                seen=ctx.questions_seen.setdefault(page, {}),
            )
        )
        is not None
    ]
    if not found:
        return absent()
    best = max(found, key=lambda a: (a.value is not None, a.score))
    if best.value is None or (strict and isinstance(best.value, str) and is_prose(best.value)):
        # A clause after a known label's word is no value of it.
        return absent()
    value, valid, ambiguous = best.value, None, False
    if isinstance(value, str) and kind in ("date", "amount"):
        reading = read_value(kind, value, leading=True, order=ctx.order)
        valid = reading is not None
        if reading is not None:
            value, ambiguous = reading.value, reading.ambiguous
    source = best.units[0].source
    text_confidence = min(u.confidence for u in best.units)
    key = evidence_key(source, best.strategy, valid, ambiguous, text_confidence < LOW_TEXT_CONFIDENCE)
    strategy_prior = QUESTION_PRIORS.get(best.strategy.removesuffix("_long"), HEURISTIC_PRIOR)
    chosen = str(best.value).casefold()
    signals = Signals(
        match=min(best.score / strategy_prior, 1.0),
        contested=any(
            a.value is not None
            and str(a.value).casefold() != chosen
            and a.score >= CONTESTED_SHARE * best.score
            for a in found
        ),
        known_field=field_spec(name).concept is not None,
        text_confidence=text_confidence,
    )
    return FieldResult(
        value=value,
        confidence=calibrated_confidence(key, best.score, text_confidence, signals),
        citations=units_citations(ctx.doc, best.units, ctx.file_name),
        source=source,
        raw=best.raw,
        evidence=key,
        prior=best.score,
        signals=signals,
    )


def _net_of_tax(ctx: _Context) -> FieldResult:
    """The amount before tax of a document that labels only its total and its tax ("Tax $0.00",
    "Total $4.11"): the one less the other, cited at both."""
    total, tax = _extract_one(ctx, "total"), _extract_one(ctx, "tax")
    if not (_labelled(total) and _labelled(tax)):
        return absent()
    net = Decimal(str(total.value)) - Decimal(str(tax.value))
    if net <= 0:
        return absent()
    key = evidence_key(total.source, "net_of_tax", True)
    return FieldResult(
        value=format_amount(net),
        confidence=calibrated_confidence(key, min(total.confidence, tax.confidence)),
        citations=[*total.citations, *tax.citations],
        source=total.source,
        raw=f"{total.raw} - {tax.raw}",
        evidence=key,
        prior=min(total.confidence, tax.confidence),
    )


def _labelled(result: FieldResult) -> bool:
    """Whether a value was read after its label (not guessed by a heuristic)."""
    parts = (result.evidence or "").split("|")
    return result.value is not None and len(parts) > 1 and parts[1] in PRIORS


#: Concepts a combined caption ("Name (Last, First MI)", "City, State ZIP") may hold.
_COMBINED_CONCEPTS = frozenset({"first_name", "middle_name", "last_name", "city", "state", "zip"})
_PARENS_RE = re.compile(r"\([^)]*\)")


def _combines(label: str, spec: FieldSpec) -> bool:
    """Whether `label` is a caption of several parts that holds the field's part: the person's
    name is what the label says without its parenthesis ("PCP (Last, First)" is the doctor's,
    "Name (Last, First MI)" the patient's)."""
    if spec.part is None:
        return combined_caption(label, spec.concept)
    if not names_parts(label) or spec.whole_name is None:
        return False
    bare = _PARENS_RE.sub(" ", label).strip()
    whose = concept_of(bare) if bare else None
    if spec.patient_owned:
        return whose in (None, "full_name", "first_name", "last_name", "middle_name") and not is_other_party(
            bare
        )
    return whose == spec.whole_name


def _combined_candidates(ctx: _Context, spec: FieldSpec) -> Iterator[Candidate]:
    """Values of captions that combine several parts ("Name (Last, First MI)", "City, State
    ZIP"), whatever the caption scores against the field's own labels: `_shaped` takes the part."""
    for unit in ctx.units:
        label, colon, rest = unit.text.partition(":")
        if colon and rest.strip() and _combines(label, spec):
            value = _up_to_next_label(rest.strip())
            yield Candidate.of(value, PRIORS["label_colon"], [unit], value, "whole_name", label)
        elif not colon and _combines(unit.text, spec):
            found = [("label_right", u) for u in right_of(unit, ctx.units, ctx.skews.get(unit.page, 0.0))][:1]
            found += [("label_above", u) for u in ctx.captions.above(unit)]
            found += [("label_below", u) for u in below(unit, ctx.units) if not ctx.captions.captioned(u)][:1]
            found = [(s, u) for s, u in found if not (is_label_like(u.text) or _is_other_label(u.text))]
            for strategy, value_unit in found[:1]:
                yield Candidate.of(
                    value_unit.text, PRIORS[strategy], [value_unit], value_unit.text, "whole_name", unit.text
                )


def _city_line_candidates(ctx: _Context) -> Iterator[Candidate]:
    """ "City, ST 12345" under the street it continues (`structure.address_lines`)."""
    for unit in city_lines(ctx.units):
        yield Candidate.of(
            unit.text, PRIORS["label_below"] * unit.confidence, [unit], unit.text, "city_line", ""
        )


def _banner_candidates(ctx: _Context) -> Iterator[Candidate]:
    """The patient's whole name from a print-out's banner (`structure.banner`)."""
    for unit in banner_names(ctx.lines):
        yield Candidate.of(unit.text, PRIORS["banner"] * unit.confidence, [unit], unit.text, "banner", "")


def _belongs(candidate: Candidate, spec: FieldSpec, ctx: _Context) -> bool:
    """A patient's field takes no value labelled as, or placed under, someone else's."""
    if not spec.patient_owned:
        return True
    if is_other_party(candidate.label):
        return False
    return not any((unit.page, unit.box) in ctx.other_places for unit in candidate.units)


def _shaped(candidate: Candidate | None, spec: FieldSpec, ctx: _Context) -> Candidate | None:
    """The candidate's value as the field wants it (a part of a name, a ticked option, a city
    out of "City, ST 12345"), checked by the field's validator: one that fails scores lower."""
    if candidate is None:
        return None
    value = candidate.value
    if isinstance(value, str):
        if spec.part is not None and (
            candidate.strategy in ("whole_name", "banner")
            or spec.owner != "patient"
            or names_parts(candidate.label)
        ):
            person = split_by_caption(candidate.label, value)
            value = person.part(spec.part) if person is not None else None
        elif spec.concept == "gender":
            value = (
                marked_option(value, GENDER_OPTIONS)
                or marked_initial(value, GENDER_OPTIONS)
                or read_gender(value)
                or value
            )
        elif spec.concept in ("city", "state", "zip") and (
            not validate(spec, value)
            or combined_caption(candidate.label, spec.concept)
            or candidate.strategy == "city_line"
        ):
            value = address_part(value, spec.concept) or value
        elif spec.concept == "street" and candidate.source == "ocr":
            value = street_suffix_mended(value)
    if value is None or (
        isinstance(value, str) and (is_label_like(value) or is_prose(value) or _heading_tail(value))
    ):
        # "PATIENT LAST NAME" under "FIRST NAME" is the next label, not a value; a clause after
        # "party" in a contract's text is no party.
        return None
    if spec.concept == "company" and isinstance(value, str) and not any(c.isalpha() for c in value):
        # A name is written in letters: "#464" after "STORE" is the store's number, not its name.
        return None
    if spec.concept in _IDENTIFIER_CONCEPTS and isinstance(value, str) and parse_date(value) is not None:
        # A date beside "Group #:" with its own box empty is the next field's value.
        return None
    candidate.value = value
    candidate.valid = validate(spec, value)
    if candidate.valid is False:
        if spec.concept in STRICT_CONCEPTS:
            # A ZIP code that is no ZIP code is the wrong text, not a doubtful value.
            return None
        candidate.score *= INVALID_PENALTY
    if spec.concept in _DATE_CONCEPTS and isinstance(candidate.raw, str):
        candidate.ambiguous = any(d.ambiguous for d in find_dates(candidate.raw, ctx.order))
    return candidate


#: Words that end a section's heading ("Insurance Information", "Patient Details"): after a label
#: word they are the rest of the heading, not that label's value.
_HEADING_TAIL_WORDS = frozenset({"information", "info", "details", "detail", "section", "data", "form"})
#: Concepts whose values are references, never dates.
_IDENTIFIER_CONCEPTS = frozenset(
    {"policy_id", "group_number", "invoice_number", "order_number", "account_number"}
)


def _heading_tail(value: str) -> bool:
    words = value.lower().split()
    return bool(words) and all(w.strip(".:") in _HEADING_TAIL_WORDS for w in words)


#: Concepts whose values have a shape so definite that a value without it is dropped.
STRICT_CONCEPTS = frozenset(
    {
        "zip",
        "state",
        "gender",
        "mobile",
        "phone",
        "home_phone",
        "work_phone",
        "fax",
        "date_of_birth",
        "term",
        "party",
    }
)
#: A value that fails its field's validator scores this share, so a valid one wins.
INVALID_PENALTY = 0.5
_DATE_CONCEPTS = frozenset(
    {"date", "due_date", "start_date", "end_date", "effective_date", "date_of_birth", "order_date"}
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


def _from_form_fields(ctx: _Context, spec: FieldSpec, kind: Kind) -> FieldResult | None:
    doc, name = ctx.doc, spec.name
    widgets = [e for e in doc.elements if e.type == "form_field" and e.field_name]
    if spec.concept == "gender":
        ticked = _ticked_option(widgets, ctx.widget_labels)
        if ticked is not None:
            return _widget_result(ctx, spec, ticked[0], ticked[1], "widget_choice")
    names = [spec.whole_name.replace("_", " ")] if spec.part is not None and spec.whole_name else []
    direct = spec.part is None or spec.owner == "patient"
    scored: list[tuple[float, Element, bool]] = []
    for widget in widgets:
        # A widget is known by its field name and by the label printed beside or above it
        # (forms made with generic names: Text1, Text2, ...).
        known_as = [widget.field_name or "", *ctx.widget_labels.get(id(widget), [])]
        if spec.patient_owned and any(is_other_party(n) for n in known_as):
            continue
        for label in known_as:
            if direct:
                scored.append((match_label(name, label), widget, False))
            scored.extend((match_label(other, label) * WHOLE_NAME_SHARE, widget, True) for other in names)
    scored = [(s, e, w) for s, e, w in scored if s >= FORM_FIELD_THRESHOLD]
    if not scored:
        return None
    best_score = max(s for s, _, _ in scored)
    best_name, whole = next((e.field_name, w) for s, e, w in scored if s == best_score)
    chosen = _chosen_widget(list({id(e): e for s, e, w in scored if e.field_name == best_name}.values()))
    if chosen is None:
        return FieldResult(value=None, confidence=0.0, source="form_fields")
    value, element = chosen
    if isinstance(value, str):
        if spec.part is not None and (whole or spec.owner != "patient"):
            person = split_name(value)
            value = person.part(spec.part) if person is not None else None
            if value is None:
                return FieldResult(value=None, confidence=0.0, source="form_fields")
        elif kind == "date":
            dates = find_dates(value, ctx.order)
            if dates:
                return _widget_result(
                    ctx, spec, dates[0].value, element, "form_field", raw=value, ambiguous=dates[0].ambiguous
                )
        elif spec.concept == "gender":
            value = read_gender(value) or value
    return _widget_result(ctx, spec, value, element, "form_field", raw=element.text)


#: A widget named for a whole name (`pcp_name`) answers a part of it a little less surely.
WHOLE_NAME_SHARE = 0.95


def _widget_result(
    ctx: _Context,
    spec: FieldSpec,
    value: Any,
    element: Element,
    strategy: str,
    *,
    raw: str | None = None,
    ambiguous: bool = False,
) -> FieldResult:
    valid = validate(spec, value) if isinstance(value, str) else None
    key = evidence_key("form_fields", strategy, valid, ambiguous)
    return FieldResult(
        value=value,
        confidence=calibrated_confidence(key, PRIORS["form_field"], element.confidence),
        citations=[element_citation(ctx.doc, element, ctx.file_name)],
        source="form_fields",
        raw=raw if raw is not None else element.text,
        evidence=key,
        prior=PRIORS["form_field"],
        signals=Signals(text_confidence=element.confidence),
    )


def _ticked_option(widgets: list[Element], labels: dict[int, list[str]]) -> tuple[str, Element] | None:
    """The option of a choice given as one check box per option (`chkMale`, `chkFemale`): the
    one ticked, named by the option word in its field name."""
    ticked: list[tuple[str, Element]] = []
    for widget in widgets:
        if parse_checkbox(widget.text) is not True:
            continue
        # Its field name (`chkFemale`), else the word printed right of it, names the option.
        names = [widget.field_name or "", *labels.get(id(widget), [])[-1:]]
        for known_as in names:
            options = {o for t in label_tokens(known_as) if (o := read_gender(t)) is not None}
            if len(options) == 1:
                ticked.append((options.pop(), widget))
                break
    return ticked[0] if len({o for o, _ in ticked}) == 1 else None


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
    doc: Document,
    units: list[TextUnit],
    skews: dict[int, float],
    name: str,
    kind: Kind,
    order: DateOrder,
    captions: CaptionIndex | None = None,
) -> Iterator[Candidate]:
    for unit in units:
        same_line = list(_same_line_candidates(unit, name, kind, order))
        yield from same_line
        if not same_line:
            yield from _prefix_label_candidates(unit, name, kind, order)
        if same_line or _holds_value(unit.text, kind):
            # "Total: 9.00" is a label with its value, not a label for the line below.
            continue
        if captions is not None and captions.captioned(unit):
            # A value typed over its caption ("ID" over "State") labels nothing.
            continue
        label_part = _COLON_RE.sub(" ", unit.text).strip()
        score = match_label(name, label_part) if label_part else 0.0
        if score < LABEL_THRESHOLD:
            continue
        if (
            kind == "text"
            and score < SYNONYM_SCORE
            and not unit.text.rstrip().endswith(":")
            and not is_label_like(label_part)
        ):
            # Free text has no shape to check, so only a clear label may point at it.
            continue
        # The whole line is the label: look beside it and under it; the nearer value is likelier.
        found: list[tuple[float, Candidate]] = []
        under = below(unit, units)
        if captions is not None:
            # A value with a caption of its own under it is that caption's, not this label's.
            under = [u for u in under if not captions.captioned(u)]
        for strategy, neighbours in (
            ("label_right", right_of(unit, units, skews.get(unit.page, 0.0))),
            ("label_below", under),
            ("label_above", captions.above(unit) if captions is not None else []),
        ):
            if strategy == "label_above" and any(c.strategy == "label_right" for _, c in found):
                # A label with its value beside it captions nothing above it.
                continue
            for neighbour in neighbours:
                reading = read_value(kind, neighbour.text, order=order)
                # A value of a distinctive shape standing alone is no label, even where its words
                # look like one ("gmail" is one letter away from "email").
                shaped = (
                    reading is not None and kind in _INLINE_KINDS and _follows(neighbour.text, reading.raw)
                )
                # Nor is a line that starts with a number ("18339 Belmont Street" under "Street").
                shaped = shaped or (reading is not None and neighbour.text.lstrip()[:1].isdigit())
                if not shaped and (
                    _is_other_label(neighbour.text)
                    or is_label_like(neighbour.text)
                    or _labelled_elsewhere(neighbour.text, name)
                    or (
                        match_label(name, neighbour.text) >= LABEL_THRESHOLD
                        and not _names_more(neighbour.text)
                    )
                ):
                    break
                if reading is not None:
                    found.append(
                        (_gap(unit, neighbour), _candidate(reading, score, strategy, [neighbour], label_part))
                    )
                    break
        nearest = min((gap for gap, _ in found), default=0.0)
        beside = any(c.strategy == "label_right" for _, c in found)
        for gap, candidate in found:
            if kind == "amount" and beside and candidate.strategy == "label_below":
                # Amounts are chosen by their label and size, not by score (`_choose`): an amount
                # under the label ("CASH : 100.00" under "Total Sales : 80.90") would win by size
                # over the one on the label's own line, which is its value.
                continue
            if gap > nearest:
                candidate.score *= FARTHER_SHARE
            yield candidate
    yield from _table_candidates(doc, name, kind, order)


#: Of a value right of a label and one under it, the farther one scores this share.
FARTHER_SHARE = 0.9
#: Longest label, in words, that starts a cell holding its value without a colon.
MAX_PREFIX_LABEL_WORDS = 4
#: A number closed by a comma, right after a word: "Shop 6, ..." or "Lot 12A, ...".
_NUMBERED_ITEM_RE = re.compile(r"\d+[A-Za-z]?,")


def _gap(label: TextUnit, value: TextUnit) -> float:
    """How far `value` stands from `label`, in label heights (0 without boxes)."""
    if label.box is None or value.box is None:
        return 0.0
    height = max(label.box.y1 - label.box.y0, 1e-6)
    horizontal = max(value.box.x0 - label.box.x1, 0.0)
    vertical = max(value.box.y0 - label.box.y1, 0.0)
    return max(horizontal, vertical) / height


def _prefix_label_candidates(unit: TextUnit, name: str, kind: Kind, order: DateOrder) -> Iterator[Candidate]:
    """`LABEL value` without a colon, where the first words are nothing but a label of the field
    ("INSURANCE COMPANY Blue Cross", "Your Doctor S. Oyelaran, MD"): a form's cell whose label is
    set above or before its value."""
    words = unit.text.split()
    if unit.element.type == "title" or match_label(name, unit.text) >= SYNONYM_SCORE:
        # A title ("HEALTH INSURANCE CLAIM FORM") is no label with its value; nor is a cell that
        # is one of the field's labels ("INSURANCE PLAN"): its value is elsewhere.
        return
    for n in range(min(MAX_PREFIX_LABEL_WORDS, len(words) - 1), 0, -1):
        label = " ".join(words[:n])
        if not is_label_like(label):
            continue
        score = match_label(name, label)
        if score < SYNONYM_SCORE or _longer_label_of_other_concept(label, words[n]):
            return
        rest = " ".join(words[n:])
        if kind == "text" and _NUMBERED_ITEM_RE.match(rest):
            # "SHOP 6, 196 Orchard St": a word and its number open a list of an address's parts
            # (a shop, unit or lot number), not a label and its value.
            return
        if kind == "text":
            rest = _up_to_next_label(rest)
        reading = read_value(kind, rest, leading=True, order=order)
        if reading is not None and _follows(rest, reading.raw) and not _label_words_only(reading.value):
            yield _candidate(reading, score, "label_inline", [unit], label)
        return


def _longer_label_of_other_concept(label: str, next_word: str) -> bool:
    """Whether `label` and the word after it, up to a colon or digit, name another concept: the
    label is then that longer one ("Company No:002643278-A" is a registration number, not a
    company)."""
    head = re.split(r"[:\uff1a\d]", next_word, maxsplit=1)[0]
    if not head:
        return False
    longer = concept_of(f"{label} {head}")
    return longer is not None and longer != concept_of(label)


def _names_more(text: str) -> bool:
    """Whether `text`, which reads like the field's label, is a name that ends in the word for
    the kind of thing it names, after words of its own: a value ("Kansas City" under "City",
    "Blue Cross Insurance Company" under "Insurance Company"), not the label again or an
    OCR-damaged copy of it ("Ctiy")."""
    tokens = [t for t in label_tokens(text) if t.isalpha()]
    known = vocabulary_words()
    return (
        len(tokens) > 1 and tokens[-1] in known and any(t not in known and len(t) >= 3 for t in tokens[:-1])
    )


def _label_words_only(value: str) -> bool:
    """Whether a value is made of label words alone ("Name", "Home Phone"): the next label, not a
    value. A name that only appears inside longer labels ("Medicare", of "Medicare ID") counts
    as a value."""
    tokens = set(label_tokens(value))
    return tokens <= vocabulary_words() and (len(tokens) > 1 or concept_of(value) is not None)


def _holds_value(text: str, kind: Kind) -> bool:
    if kind == "text":
        parts = _COLON_RE.split(text, maxsplit=1)
        return len(parts) == 2 and bool(parts[1].strip())
    return read_value(kind, text) is not None


def _labelled_elsewhere(text: str, name: str) -> bool:
    """Whether `text` is `Label: value` for a label of another concept ("DOB: 02/19/1964" under
    an empty "Middle:"): another field's value, not this one's."""
    head, colon, _ = text.partition(":")
    other = concept_of(head) if colon and head.strip() else None
    return other is not None and not related_concepts(other, concept_of(name))


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


def _same_line_candidates(unit: TextUnit, name: str, kind: Kind, order: DateOrder) -> Iterator[Candidate]:
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
            if (
                score < LABEL_THRESHOLD
                or (bare_number and score < SYNONYM_SCORE)
                or (tail and tail[0] in _PREPOSITIONS)
            ):
                # "Tax 15% on $ 112.90": what follows a preposition is its object, not the value;
                # "DE 232 446 240": a number after a number is the rest of one value.
                continue
            start = words[i + n].start()
            rest = text[start:]
            if kind == "text":
                rest = _up_to_next_label(rest)
            reading = read_value(kind, rest, leading=True, order=order)
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
    return longer is not None and not related_concepts(longer, concept)


def _up_to_next_label(rest: str) -> str:
    """Free text after a label runs up to the next `Label:` on the line ("MANIS Member: 7")."""
    match = re.search("\\s*\\S+[:\uff1a]", rest)
    return rest[: match.start()] if match and match.start() > 0 else rest


def _table_candidates(doc: Document, name: str, kind: Kind, order: DateOrder) -> Iterator[Candidate]:
    for element in doc.elements:
        if element.type != "table" or not element.rows:
            continue
        rows = [[c.strip() for c in row] for row in element.rows]
        for r, row in enumerate(rows):
            # A label cell's value is the next cell of its row ("First Name | Wei | MI | ").
            for c, cell in enumerate(row):
                # A cell may hold its caption and its value ("Member ID C5825255603").
                captioned = list(_cell_caption_candidates(doc, element, r, c, name, kind, order))
                yield from captioned
                if captioned or c == len(row) - 1:
                    continue
                score = match_label(name, _COLON_RE.sub(" ", cell)) if cell else 0.0
                if score < LABEL_THRESHOLD:
                    continue
                # A shaped value (an amount, a date, an id) may sit columns away ("Total | | |
                # 9.00"); free text is next door, and an empty cell there means no value.
                reach = row[c + 1 : c + 2] if kind == "text" else row[c + 1 :]
                found = next(
                    (
                        (k, reading)
                        for k, text in enumerate(reach, c + 1)
                        if text and (reading := read_value(kind, text, order=order))
                    ),
                    None,
                )
                if found is not None:
                    unit = cell_unit(doc, element, r, found[0])
                    yield _candidate(found[1], score, "table_row", [unit], cell)
        yield from _column_candidates(doc, element, rows, name, kind, order)


def _cell_caption_candidates(
    doc: Document, element: Element, r: int, c: int, name: str, kind: Kind, order: DateOrder
) -> Iterator[Candidate]:
    """The value of a grid cell printed with its caption at the top and the value under it,
    which a table gives as one cell's text ("PATIENT'S NAME (Last, First) DOE, JANE")."""
    text = _NUMBERING_RE.sub("", (element.rows or [])[r][c].strip())
    if len(text.split()) < 2:
        return
    unit = replace(cell_unit(doc, element, r, c), text=text)
    for candidate in _same_line_candidates(unit, name, kind, order):
        yield candidate
        return
    found = list(_prefix_label_candidates(unit, name, kind, order))
    yield from found
    if found:
        return
    # A caption that ends in a parenthesis ("PATIENT'S NAME (Last Name, First Name)") is the
    # cell's caption whatever its length; the value follows it (the first such parenthesis: a
    # value may hold one of its own, "(912) 401-4658").
    for end in (m.end() for m in re.finditer(r"\)", text)):
        caption, rest = text[:end], text[end:].strip()
        score = match_label(name, caption)
        if combined_caption(caption, field_spec(name).concept):
            # "PATIENT'S NAME (Last Name, First Name)" holds the first name as much as the last.
            score = max(score, SYNONYM_SCORE)
        if not rest or score < LABEL_THRESHOLD:
            continue
        reading = read_value(kind, rest, leading=True, order=order)
        if reading is not None and _follows(rest, reading.raw):
            yield _candidate(reading, score, "label_inline", [unit], caption)
        return


#: A form's item number before a caption ("2. ", "11c. ").
_NUMBERING_RE = re.compile(r"^\s*\d{1,2}[a-z]?\.\s*")


def _column_candidates(
    doc: Document, element: Element, rows: list[list[str]], name: str, kind: Kind, order: DateOrder
) -> Iterator[Candidate]:
    """Values under a header cell that names the field: every row up to the next header row, the
    first one likeliest; a row headed as a later coverage ("Secondary") less likely still."""
    # A header row is labels only, but for its first cell, which may head a column of row
    # headings ("Coverage" over "Primary", "Secondary").
    headers = [
        r for r, row in enumerate(rows) if any(row[1:]) and all(is_label_like(c) for c in row[1:] if c)
    ]
    for r in headers:
        top = rows[r]
        for k in range(r + 1, len(rows)):
            if k in headers:
                break
            body = rows[k]
            share = FARTHER_SHARE ** (k - r - 1)
            if body and later_coverage(body[0]):
                share *= LATER_COVERAGE_SHARE
            for column, header in enumerate(top):
                if column >= len(body) or not body[column]:
                    continue
                score = match_label(name, header)
                reading = read_value(kind, body[column], order=order) if score >= LABEL_THRESHOLD else None
                if reading is not None:
                    unit = cell_unit(doc, element, k, column)
                    yield _candidate(reading, score * share, "table_column", [unit], header)
