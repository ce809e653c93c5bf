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

from dataclasses import replace
from decimal import Decimal

from extraction.fields.model.calibration import (
    LOW_TEXT_CONFIDENCE,
    Signals,
    calibrated_confidence,
    evidence_key,
)
from extraction.fields.model.candidate import HEURISTIC_PRIOR, Candidate
from extraction.fields.model.citations import units_citations
from extraction.fields.model.context import FieldContext
from extraction.fields.model.result import FieldResult, absent
from extraction.fields.reading.amounts import format_amount
from extraction.fields.reading.captions import CaptionIndex
from extraction.fields.reading.date_locale import resolve_date_order
from extraction.fields.reading.date_text import DateOrder
from extraction.fields.reading.layout import cell_units, other_party_units, provider_sections, widget_labels
from extraction.fields.reading.normalize import total_rank
from extraction.fields.reading.question_words import (
    before_other_question,
    compact_words,
    is_printed_name,
    is_question_name,
)
from extraction.fields.reading.text_lines import page_skews, text_units
from extraction.fields.reading.value_kinds import Kind, kind_of, read_value
from extraction.fields.reading.vocabulary import (
    FieldSpec,
    field_spec,
    is_prose,
    validate,
)
from extraction.fields.strategies.embedded import embedded_value
from extraction.fields.strategies.form_widgets import from_form_fields
from extraction.fields.strategies.heuristics import heuristic_candidates
from extraction.fields.strategies.label_pairs import PRIORS
from extraction.fields.strategies.person_candidates import (
    labelled_candidates,
    own_part_candidates,
    plain_phone_candidates,
    section_part_candidates,
)
from extraction.fields.strategies.questions import PRIORS as QUESTION_PRIORS
from extraction.fields.strategies.questions import answer as question_answer
from extraction.fields.strategies.shaping import belongs, shaped, word_before
from extraction.fields.strategies.structure.candidates import (
    COMBINED_CONCEPTS,
    banner_candidates,
    city_line_candidates,
    combined_candidates,
)
from extraction.fields.strategies.structure.choice_rows import (
    choice_row_candidates,
    inline_choice_candidates,
    options_under_candidates,
)
from extraction.fields.strategies.structure.date_parts import date_parts_candidates
from extraction.fields.strategies.structure.listed_parts import listed_candidates
from extraction.fields.strategies.structure.phone_kinds import marked_kind_phones
from extraction.fields.strategies.structure.self_holder import (
    PATIENT_PART_FIELDS,
    asks_for_holder_name,
    names_the_patient,
)
from extraction.fields.strategies.structure.whose import (
    LATER_COVERAGE_SHARE,
    OTHER_PROVIDER_SHARE,
    later_coverage,
    other_provider,
    row_heading,
)
from extraction.fields.strategies.totals import rounded_total, total_by_parts
from extraction.formats.document import Document


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
    others = other_party_units(units)
    doctors = provider_sections(units)
    context = FieldContext(
        doc=doc,
        lines=lines,
        units=units,
        skews=page_skews(units),
        order=resolve_date_order([u.text for u in lines], date_order),
        other_places={(u.page, u.box) for u in units if u.order in others},
        provider_places={(u.page, u.box): doctors[u.order] for u in units if u.order in doctors},
        widget_labels=widget_labels(doc, units),
        file_name=file_name,
        captions=CaptionIndex(units),
        field_names=field_names,
    )
    return with_coverage({name: _extract_one(context, name) for name in field_names})


def with_coverage(results: dict[str, FieldResult]) -> dict[str, FieldResult]:
    """`results` with each value's confidence recomputed knowing how much of the document was
    found (`Signals.coverage`)."""
    coverage = sum(r.value is not None for r in results.values()) / max(len(results), 1)
    for result in results.values():
        if result.signals is not None and result.evidence is not None and result.prior is not None:
            result.signals = replace(result.signals, coverage=coverage)
            result.confidence = calibrated_confidence(result.evidence, result.prior, signals=result.signals)
    return results


def _value_kind(spec: FieldSpec, name: str) -> Kind:
    if spec.part is not None or spec.concept in _TEXT_CONCEPTS:
        return "text"
    return kind_of(name)


#: Concepts read as text whatever their names' words suggest (a ZIP code is no amount).
_TEXT_CONCEPTS = frozenset({"zip", "gender", "provider", "insurer", "state", "city", "street"})


def _extract_one(ctx: FieldContext, name: str) -> FieldResult:
    found = _read_one(ctx, name)
    spec = field_spec(name)
    if asks_for_holder_name(spec):
        # A part of the holder's name reads "Self" from the holder's whole answer too.
        stated = found if names_the_patient(found.value) or not spec.part else _read_one(ctx, "policy_holder")
        if names_the_patient(stated.value):
            return _patient_as_holder(ctx, spec, stated)
    return found


def _patient_as_holder(ctx: FieldContext, spec: FieldSpec, stated: FieldResult) -> FieldResult:
    """The patient's name (or its part) for a holder's name the page answers with "Self": cited
    at the answer and at the patient's name, no surer than either."""
    names = [PATIENT_PART_FIELDS[spec.part]] if spec.part else ["first_name", "middle_name", "last_name"]
    parts = [(n, _read_one(ctx, n)) for n in names]
    if any(r.value is None for n, r in parts if n != "middle_name"):
        return stated
    read = [r for _, r in parts if r.value is not None]
    value = " ".join(str(r.value) for r in read)
    key = evidence_key(stated.source, "self_holder", True)
    confidence = min(stated.confidence, *(r.confidence for r in read))
    return FieldResult(
        value=value,
        confidence=confidence,
        citations=[*stated.citations, *(c for r in read for c in r.citations)],
        source=stated.source,
        raw=stated.raw,
        evidence=key,
        prior=confidence,
        signals=stated.signals,
    )


def _read_one(ctx: FieldContext, name: str) -> FieldResult:
    spec = field_spec(name)
    kind = _value_kind(spec, name)
    form = from_form_fields(ctx, spec, kind)
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
    # A part of someone else's name (`provider_last_name`) is read from their whole name, or
    # after a label naming that part of theirs ("Physician Last Name").
    direct = spec.part is None or spec.owner == "patient"
    labelled = labelled_candidates(ctx, name, kind) if direct else own_part_candidates(ctx, spec, kind)
    candidates = [shaped(c, spec, ctx) for c in labelled]
    if spec.part is not None and spec.whole_name is not None:
        whole = spec.whole_name.replace("_", " ")
        for candidate in labelled_candidates(ctx, whole, "text"):
            candidate.strategy = "whole_name"
            candidates.append(shaped(candidate, spec, ctx))
        if spec.patient_owned:
            candidates.extend(shaped(c, spec, ctx) for c in banner_candidates(ctx))
        else:
            candidates.extend(section_part_candidates(ctx, spec))
    if (spec.patient_owned and spec.concept in COMBINED_CONCEPTS) or (spec.part and spec.whole_name):
        candidates.extend(shaped(c, spec, ctx) for c in combined_candidates(ctx, spec))
    if kind == "date":
        candidates.extend(shaped(c, spec, ctx) for c in date_parts_candidates(ctx.units, name, ctx.order))
    kept = [
        c
        for c in candidates
        if c is not None and belongs(c, spec, ctx) and not _label_of_other(c, name, ctx.field_names)
    ]
    for candidate in kept:
        before = word_before(candidate.units[0].text, candidate.label) if candidate.label else ""
        if spec.owner == "provider" and (other_provider(candidate.label) or other_provider(before)):
            # A referring doctor is the patient's provider only where no other is named.
            candidate.score *= OTHER_PROVIDER_SHARE
        heading = row_heading(candidate.units[0], ctx.units)
        if heading is not None and later_coverage(heading.text):
            candidate.score *= LATER_COVERAGE_SHARE
    if not kept and spec.patient_owned and spec.concept in ("city", "state", "zip"):
        # Only where no label names the part: the line under the street is its city line.
        kept = [c for c in (shaped(c, spec, ctx) for c in city_line_candidates(ctx)) if c is not None]
        kept = [c for c in kept if belongs(c, spec, ctx)]
    if not kept and spec.patient_owned and spec.concept == "gender":
        # Only where no label's own cell holds the choice: its options in the cells after it.
        rows = [
            *choice_row_candidates(ctx.units, name),
            *inline_choice_candidates(ctx.units, name),
            *options_under_candidates(ctx.units, name),
        ]
        kept = [c for c in (shaped(c, spec, ctx) for c in rows) if c is not None]
        kept = [c for c in kept if belongs(c, spec, ctx)]
    if not kept and spec.patient_owned and spec.concept in ("mobile", "home_phone", "work_phone"):
        # Only where no label names the kind: a phone whose marked kind says it.
        for phone, row in marked_kind_phones(ctx.units, spec.concept):
            reading = read_value(kind, phone, leading=True)
            if reading is not None:
                kept.append(Candidate.of(reading.value, PRIORS["phone_kind"], row, phone, "phone_kind", ""))
    if not kept and spec.patient_owned and spec.concept is not None:
        # Only where no label names the field alone: a caption listing it among others, in the
        # order its value gives them ("DOB / Age / Sex", "Phone (H) / (C)").
        listed = (shaped(c, spec, ctx) for c in listed_candidates(ctx, spec.concept))
        kept = [c for c in listed if c is not None and belongs(c, spec, ctx)]
    if not kept and spec.patient_owned and spec.concept == "mobile":
        kept = plain_phone_candidates(ctx, spec, kind)
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
    if kind == "text" and isinstance(best.value, str) and is_printed_name(name):
        # A value read after a known label runs on into the next question asked of the page
        # ("Client Name Borriston Laboratories, Inc. Client Study No."): that question ends it.
        shorter = before_other_question(best.value, name, ctx.field_names)
        if shorter != best.value:
            best = replace(best, value=shorter)
    if spec.concept == "total" and kind == "amount":
        best = total_by_parts(ctx, rounded_total(ctx, best))
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


def _label_of_other(candidate: Candidate, name: str, asked: list[str]) -> bool:
    """Whether the candidate's label is the end of another asked field's printed name ("Date"
    of "Drop Date: 10/03/96" where "Drop Date" is asked too): that field's value, not this one's."""
    if not candidate.label or not candidate.units:
        return False
    text = candidate.units[0].text
    # The label printed last before the value ("Total" of "Sub Total 12.00 Total 15.00").
    value_at = text.find(candidate.raw) if candidate.raw else -1
    at = text.casefold().rfind(candidate.label.casefold(), 0, value_at if value_at >= 0 else len(text))
    if at < 0:
        return False
    printed = compact_words(text[: at + len(candidate.label)])
    own = compact_words(name)
    return any(
        len(other_words := compact_words(other)) > len(own)
        and other_words.endswith(own)
        and printed.endswith(other_words)
        for other in asked
        if other != name
    )


#: Another candidate scoring at least this share of the chosen one's score contests it.
CONTESTED_SHARE = 0.85


def _signals(best: Candidate, kept: list[Candidate], spec: FieldSpec, text_confidence: float) -> Signals:
    """How well the chosen value's evidence agrees: its label against the strategy's best, its
    rivals (how many other values were proposed at all), and whether the field is one the
    vocabulary knows."""
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
        rivals=len({str(c.value).casefold() for c in kept} - {chosen}),
    )


def _from_embedded(ctx: FieldContext, spec: FieldSpec, kind: Kind) -> FieldResult | None:
    """The value an attached e-invoice states for the field (`fields.strategies.embedded`), read as the
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


def _from_question(ctx: FieldContext, name: str, kind: Kind, *, strict: bool = False) -> FieldResult:
    """The answer to a field named by its printed question (`fields.strategies.questions`); no value where
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
        rivals=len({str(a.value).casefold() for a in found if a.value is not None} - {chosen}),
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


def _net_of_tax(ctx: FieldContext) -> FieldResult:
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
