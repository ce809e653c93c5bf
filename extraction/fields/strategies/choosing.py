"""Choosing among the candidates the strategies kept: whose value a candidate is scores it down,
another asked field's label rules it out, and the best one becomes the field's result."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from extraction.fields.model.calibration import Signals
from extraction.fields.model.candidate import HEURISTIC_PRIOR, Candidate
from extraction.fields.model.citations import units_citations
from extraction.fields.model.context import FieldContext
from extraction.fields.model.evidence import CONTESTED_SHARE, Evidence, field_result
from extraction.fields.model.result import FieldResult
from extraction.fields.model.strategy import Ask
from extraction.fields.reading.normalize import total_rank
from extraction.fields.reading.question_words import before_other_question, compact_words, is_printed_name
from extraction.fields.reading.value_kinds import Kind
from extraction.fields.reading.vocabulary import FieldSpec
from extraction.fields.strategies.label_pairs import PRIORS
from extraction.fields.strategies.shaping import word_before
from extraction.fields.strategies.structure.whose import (
    LATER_COVERAGE_SHARE,
    OTHER_PROVIDER_SHARE,
    later_coverage,
    other_provider,
    row_heading,
)
from extraction.fields.strategies.totals import rounded_total, total_by_parts


def weighed(candidate: Candidate, spec: FieldSpec, ctx: FieldContext) -> Candidate:
    """The candidate, scored down when whose value it is says it is less likely the field's."""
    before = word_before(candidate.units[0].text, candidate.label) if candidate.label else ""
    if spec.owner == "provider" and (other_provider(candidate.label) or other_provider(before)):
        # A referring doctor is the patient's provider only where no other is named.
        candidate.score *= OTHER_PROVIDER_SHARE
    heading = row_heading(candidate.units[0], ctx.units)
    if heading is not None and later_coverage(heading.text):
        candidate.score *= LATER_COVERAGE_SHARE
    return candidate


def chosen_result(ctx: FieldContext, ask: Ask, kept: list[Candidate]) -> FieldResult:
    """The result of the best of the kept candidates (`choose`)."""
    best = choose(kept, ask.kind)
    if ask.kind == "text" and isinstance(best.value, str) and is_printed_name(ask.name):
        # A value read after a known label runs on into the next question asked of the page
        # ("Client Name Borriston Laboratories, Inc. Client Study No."): that question ends it.
        shorter = before_other_question(best.value, ask.name, ctx.field_names)
        if shorter != best.value:
            best = replace(best, value=shorter)
    if ask.spec.concept == "total" and ask.kind == "amount":
        best = total_by_parts(ctx, rounded_total(ctx, best))
    text_confidence = min(u.confidence for u in best.units)
    signals = _signals(best, kept, ask.spec, text_confidence)
    prior = best.score / max(text_confidence, 1e-6)
    evidence = Evidence(
        best.source, best.strategy, best.valid, prior, best.ambiguous, text_confidence, signals
    )
    return field_result(
        best.value,
        evidence,
        units_citations(ctx.doc, best.units, ctx.file_name, best.raw, best.value),
        best.raw,
    )


def label_of_other(candidate: Candidate, name: str, asked: list[str]) -> bool:
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


def choose(candidates: list[Candidate], kind: Kind) -> Candidate:
    """The best candidate: the highest score (the earliest on the page of equals), for amounts
    the most final total."""
    if kind == "amount":
        # The most final total wins (rounded over inclusive over plain), then the largest (a tax
        # summary's "Total" excludes the tax), then the bottom-most.
        def rank(c: Candidate) -> tuple[int, Decimal, int, float]:
            unit = c.units[-1]
            position = unit.box.y1 if unit.box else float(unit.order)
            return (total_rank(c.label), Decimal(c.value), unit.page, position)

        return max(candidates, key=rank)
    return max(candidates, key=lambda c: (c.score, -c.units[0].order))
