"""Field extraction without a model: the document's own structure says where each value is.

`STRATEGIES` is the ordered table of the ways a value is found, one file of `strategies/` each:
what it reads, when it applies, the evidence its values carry. A PDF form field that matches, or a
value an attached e-invoice states, decides alone; a field named by its printed question is read
there or not at all. Otherwise every strategy that applies proposes candidates (labels, whole
names, banners, combined captions, dates in parts), each scored as its strategy's prior x how well
the label names the field x how sure the engine is of the text; only where none is kept, the
fallbacks are tried in order (city lines, choice rows, marked phone kinds, listed captions, the
plain phone, the general heuristics, the net of tax, a known label printed as a question). The
best-scoring candidate wins; for amounts the most final total (rounded over inclusive-of-tax over
plain, `normalize.total_rank`), then the largest. A field that nothing finds is None: never a
guess. `model.evidence.field_result` turns the winner's evidence into its calibrated confidence.
A field with no value whose label is printed with nothing after or under it is marked blank
(`strategies.blanks`), so the result tells "left blank" from "not on the page".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal

from extraction.fields.model.calibration import calibrated, evidence_key
from extraction.fields.model.candidate import Candidate
from extraction.fields.model.context import FieldContext
from extraction.fields.model.evidence import Evidence, field_result
from extraction.fields.model.result import FieldResult, absent
from extraction.fields.model.strategy import Ask, Strategy
from extraction.fields.model.structure import known_structure
from extraction.fields.reading.amounts import format_amount
from extraction.fields.reading.captions import CaptionIndex
from extraction.fields.reading.date_locale import resolve_date_order
from extraction.fields.reading.date_text import DateOrder
from extraction.fields.reading.layout import cell_units, other_party_units, provider_sections, widget_labels
from extraction.fields.reading.question_words import (
    is_printed_name,
    is_question_name,
)
from extraction.fields.reading.text_lines import page_skews, text_units
from extraction.fields.reading.value_kinds import Kind, kind_of
from extraction.fields.reading.vocabulary import FieldSpec, field_spec
from extraction.fields.strategies.blanks import left_blank
from extraction.fields.strategies.choosing import chosen_result, label_of_other, weighed
from extraction.fields.strategies.embedded import embedded_result
from extraction.fields.strategies.form_widgets import from_form_fields
from extraction.fields.strategies.heuristics import heuristic_candidates
from extraction.fields.strategies.label_pairs import PRIORS
from extraction.fields.strategies.person_candidates import (
    labelled_candidates,
    own_part_candidates,
    plain_phone_candidates,
    section_part_candidates,
    whole_name_candidates,
)
from extraction.fields.strategies.question_fields import printed_question_result, question_result
from extraction.fields.strategies.shaping import belongs, shaped
from extraction.fields.strategies.structure.candidates import (
    COMBINED_CONCEPTS,
    banner_candidates,
    city_line_candidates,
    combined_candidates,
)
from extraction.fields.strategies.structure.choice_rows import choice_candidates
from extraction.fields.strategies.structure.date_parts import date_parts_candidates
from extraction.fields.strategies.structure.listed_parts import listed_candidates
from extraction.fields.strategies.structure.phone_kinds import phone_kind_candidates
from extraction.fields.strategies.structure.self_holder import (
    PATIENT_PART_FIELDS,
    asks_for_holder_name,
    names_the_patient,
)
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
    widget_names = [e.field_name or "" for e in doc.elements if e.type == "form_field"]
    results = with_coverage(
        {name: _extract_one(context, name) for name in field_names}, known_structure(units, widget_names)
    )
    for name, result in results.items():
        if result.value is None and not result.blank:
            # Said apart from a value missing from the page: the label is there, its answer empty.
            result.blank = left_blank(context, name)
    return results


def with_coverage(results: dict[str, FieldResult], structure: float = 1.0) -> dict[str, FieldResult]:
    """`results` with each value's confidence recomputed knowing how much of the document was
    found (`Signals.coverage`) and how much of its structure the evidence knows
    (`Signals.structure`, `structure.known_structure`)."""
    coverage = sum(r.value is not None for r in results.values()) / max(len(results), 1)
    for result in results.values():
        if result.signals is not None and result.evidence is not None and result.prior is not None:
            result.signals = replace(result.signals, coverage=coverage, structure=structure)
            result.confidence, result.review_reasons = calibrated(
                result.evidence, result.prior, result.signals
            )
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


def _net_of_tax(ctx: FieldContext, ask: Ask) -> FieldResult:
    """The amount before tax of a document that labels only its total and its tax ("Tax $0.00",
    "Total $4.11"): the one less the other, cited at both."""
    total, tax = _extract_one(ctx, "total"), _extract_one(ctx, "tax")
    if not (_labelled(total) and _labelled(tax)):
        return absent()
    net = Decimal(str(total.value)) - Decimal(str(tax.value))
    if net <= 0:
        return absent()
    evidence = Evidence(total.source, "net_of_tax", True, min(total.confidence, tax.confidence))
    return field_result(format_amount(net), evidence, [*total.citations, *tax.citations], None)


def _labelled(result: FieldResult) -> bool:
    """Whether a value was read after its label (not guessed by a heuristic)."""
    parts = (result.evidence or "").split("|")
    return result.value is not None and len(parts) > 1 and parts[1] in PRIORS


def _always(ask: Ask) -> bool:
    return True


def _direct(ask: Ask) -> bool:
    """Whether the field is read after its own labels: a part of someone else's name
    (`provider_last_name`) is read from their whole name, or after a label naming that part of
    theirs ("Physician Last Name")."""
    return ask.spec.part is None or ask.spec.owner == "patient"


def _part_of_whole(ask: Ask) -> bool:
    return ask.spec.part is not None and ask.spec.whole_name is not None


def _patient_concept(*concepts: str) -> Callable[[Ask], bool]:
    return lambda ask: ask.spec.patient_owned and ask.spec.concept in concepts


#: Every way a field's value is found, in the order they are tried (see `Strategy`): a widget or
#: a value the file states decides alone; then every gathering strategy that applies adds its
#: candidates; only where none was kept, the fallbacks are tried one by one. The best candidate
#: kept wins (`choosing.choose`); a field that nothing finds is None, never a guess.
STRATEGIES: tuple[Strategy, ...] = (
    Strategy(
        "form_widgets",
        reads="PDF form fields by their names and the labels beside them; a ticked option",
        applies=_always,
        evidence="form_field, widget_choice",
        decide=lambda ctx, ask: from_form_fields(ctx, ask.spec, ask.kind),
    ),
    Strategy(
        "embedded",
        reads="the values an e-invoice attached to the PDF states",
        applies=_always,
        evidence="embedded",
        decide=embedded_result,
    ),
    Strategy(
        "printed_question",
        # A name no vocabulary knows is read as the page's printed question, or not at all: a
        # fuzzy label elsewhere is a confident guess.
        reads="the answer beside or under the field's own printed question",
        applies=lambda ask: ask.spec.part is None and ask.boxed and is_question_name(ask.name),
        evidence="question_inline, question_right, question_unanswered (_long)",
        decide=question_result,
    ),
    Strategy(
        "labels",
        reads="`Label: value` and `Label value` in lines, a label's cell beside, above or below, "
        "table rows and columns",
        applies=_direct,
        evidence="label_colon, label_inline, label_right, label_below, label_above, table_row, table_column",
        gather=lambda ctx, ask: labelled_candidates(ctx, ask.name, ask.kind),
        shaped=True,
    ),
    Strategy(
        "own_part",
        reads="values after labels naming the same part of the same person's name",
        applies=lambda ask: not _direct(ask),
        evidence="as the labels'",
        gather=lambda ctx, ask: own_part_candidates(ctx, ask.spec, ask.kind),
        shaped=True,
    ),
    Strategy(
        "whole_name",
        reads="values after labels of the whole name the field asks a part of",
        applies=_part_of_whole,
        evidence="whole_name",
        gather=lambda ctx, ask: whole_name_candidates(ctx, ask.spec),
        shaped=True,
    ),
    Strategy(
        "banner",
        reads="the patient's whole name on a print-out's banner",
        applies=lambda ask: _part_of_whole(ask) and ask.spec.patient_owned,
        evidence="banner",
        gather=lambda ctx, ask: banner_candidates(ctx),
        shaped=True,
    ),
    Strategy(
        "section_part",
        reads="a plain name label inside a section about a doctor",
        applies=lambda ask: _part_of_whole(ask) and not ask.spec.patient_owned,
        evidence="as the labels'",
        gather=lambda ctx, ask: section_part_candidates(ctx, ask.spec),
    ),
    Strategy(
        "combined",
        reads='captions combining several parts ("Name (Last, First MI)", "City, State ZIP")',
        applies=lambda ask: (
            (ask.spec.patient_owned and ask.spec.concept in COMBINED_CONCEPTS)
            or bool(ask.spec.part and ask.spec.whole_name)
        ),
        evidence="label_colon, label_below",
        gather=lambda ctx, ask: combined_candidates(ctx, ask.spec),
        shaped=True,
    ),
    Strategy(
        "date_parts",
        reads='dates after a caption naming the order of their parts ("MM DD YY")',
        applies=lambda ask: ask.kind == "date",
        evidence="label_inline, label_below",
        gather=lambda ctx, ask: date_parts_candidates(ctx.units, ask.name, ctx.order),
        shaped=True,
    ),
    Strategy(
        "city_line",
        # Only where no label names the part: the line under the street is its city line.
        reads="the city line under the patient's street",
        applies=_patient_concept("city", "state", "zip"),
        evidence="city_line",
        gather=lambda ctx, ask: city_line_candidates(ctx),
        fallback=True,
        shaped=True,
    ),
    Strategy(
        "choice_rows",
        # Only where no label's own cell holds the choice: its options in the cells after it.
        reads="the options after or under a label of the choice, the marked one",
        applies=_patient_concept("gender"),
        evidence="label_colon, label_inline, label_right, label_below",
        gather=lambda ctx, ask: choice_candidates(ctx.units, ask.name),
        fallback=True,
        shaped=True,
    ),
    Strategy(
        "phone_kind",
        # Only where no label names the kind: a phone whose marked kind says it.
        reads='a phone with its kind marked beside it ("Home (Cell) Work")',
        applies=_patient_concept("mobile", "home_phone", "work_phone"),
        evidence="phone_kind",
        gather=lambda ctx, ask: phone_kind_candidates(ctx.units, ask.spec.concept or "", ask.kind),
        fallback=True,
    ),
    Strategy(
        "listed",
        # Only where no label names the field alone: a caption listing it among others, in the
        # order its value gives them ("DOB / Age / Sex", "Phone (H) / (C)").
        reads="a caption listing the field among others, and its value's parts in that order",
        applies=lambda ask: ask.spec.patient_owned and ask.spec.concept is not None,
        evidence="label_colon, label_right, label_below",
        gather=lambda ctx, ask: listed_candidates(ctx, ask.spec),
        fallback=True,
        shaped=True,
    ),
    Strategy(
        "plain_phone",
        reads="the first phone under a telephone label that names no kind",
        applies=_patient_concept("mobile"),
        evidence="as the labels'",
        gather=lambda ctx, ask: plain_phone_candidates(ctx, ask.spec, ask.kind),
        fallback=True,
    ),
    Strategy(
        "heuristics",
        reads="document conventions where no label names the field: the first date, a value "
        "of the field's format, a receipt's issuer header, a contract's terms",
        applies=lambda ask: not ask.spec.patient_owned and ask.spec.part is None,
        evidence="first_date, first_of_format, company_top, governing_law, term, preamble_parties, ...",
        gather=lambda ctx, ask: heuristic_candidates(ctx.lines, ask.name, ask.kind, ctx.order),
        fallback=True,
    ),
    Strategy(
        "net_of_tax",
        reads="the labelled total less the labelled tax",
        applies=lambda ask: ask.spec.concept == "subtotal" and ask.kind == "amount",
        evidence="net_of_tax",
        decide=_net_of_tax,
        fallback=True,
    ),
    Strategy(
        "printed_question_of_label",
        # A known label none of the rules above could read ("FROM:" over a name) is still the
        # page's printed question.
        reads="the answer beside or under a known label printed as a question",
        applies=lambda ask: ask.spec.part is None and ask.boxed and is_printed_name(ask.name),
        evidence="question_inline, question_right, question_unanswered (_long)",
        decide=printed_question_result,
        fallback=True,
    ),
)


def _read_one(ctx: FieldContext, name: str) -> FieldResult:
    """The field's value by the first strategies of `STRATEGIES` that find one (see `Strategy`)."""
    spec = field_spec(name)
    boxed = bool(ctx.units) and all(u.box is not None for u in ctx.units)
    ask = Ask(name, spec, _value_kind(spec, name), boxed)
    kept: list[Candidate] = []
    for strategy in STRATEGIES:
        if (strategy.fallback and kept) or not strategy.applies(ask):
            continue
        if strategy.decide is not None:
            decided = strategy.decide(ctx, ask)
            if decided is not None:
                return decided
            continue
        found: list[Candidate | None] = list(strategy.gather(ctx, ask)) if strategy.gather else []
        if strategy.shaped:
            found = [shaped(c, spec, ctx) for c in found]
        if strategy.fallback:
            kept = [c for c in found if c is not None and (not strategy.shaped or belongs(c, spec, ctx))]
        else:
            kept.extend(
                weighed(c, spec, ctx)
                for c in found
                if c is not None and belongs(c, spec, ctx) and not label_of_other(c, name, ctx.field_names)
            )
    return chosen_result(ctx, ask, kept) if kept else absent()
