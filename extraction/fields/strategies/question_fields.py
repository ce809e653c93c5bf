"""A field named by its printed question: the answer `questions.answer` reads beside or under the
question, as a field result."""

from __future__ import annotations

from extraction.fields.model.calibration import Signals
from extraction.fields.model.candidate import HEURISTIC_PRIOR
from extraction.fields.model.citations import units_citations
from extraction.fields.model.context import FieldContext
from extraction.fields.model.evidence import CONTESTED_SHARE, Evidence, field_result
from extraction.fields.model.result import FieldResult, absent, blank
from extraction.fields.model.strategy import Ask
from extraction.fields.reading.value_kinds import read_value
from extraction.fields.reading.vocabulary import is_prose
from extraction.fields.strategies.questions import PRIORS, answer


def question_result(ctx: FieldContext, ask: Ask, *, strict: bool = False) -> FieldResult:
    """The answer to a field named by its printed question; no value where the question is not
    printed or left unanswered (`strict`: `questions.answer`). A date or an amount field's answer
    is read as one (ISO dates, plain amounts); an answer that holds none is doubtful."""
    pages = {u.page for u in ctx.units}
    found = [
        a
        for page in sorted(pages)
        if (
            a := answer(
                ask.name,
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
    if best.value is None:
        # The question is printed and nothing answers it: left blank, not missing from the page.
        return blank()
    if strict and isinstance(best.value, str) and is_prose(best.value):
        # A clause after a known label's word is no value of it.
        return absent()
    value, valid, ambiguous = best.value, None, False
    if isinstance(value, str) and ask.kind in ("date", "amount"):
        reading = read_value(ask.kind, value, leading=True, order=ctx.order)
        valid = reading is not None
        if reading is not None:
            value, ambiguous = reading.value, reading.ambiguous
    text_confidence = min(u.confidence for u in best.units)
    strategy_prior = PRIORS.get(best.strategy.removesuffix("_long"), HEURISTIC_PRIOR)
    chosen = str(best.value).casefold()
    signals = Signals(
        match=min(best.score / strategy_prior, 1.0),
        contested=any(
            a.value is not None
            and str(a.value).casefold() != chosen
            and a.score >= CONTESTED_SHARE * best.score
            for a in found
        ),
        known_field=ask.spec.concept is not None,
        text_confidence=text_confidence,
        rivals=len({str(a.value).casefold() for a in found if a.value is not None} - {chosen}),
    )
    source = best.units[0].source
    evidence = Evidence(source, best.strategy, valid, best.score, ambiguous, text_confidence, signals)
    return field_result(
        value, evidence, units_citations(ctx.doc, best.units, ctx.file_name, best.raw, value), best.raw
    )


def printed_question_result(ctx: FieldContext, ask: Ask) -> FieldResult:
    """A known label none of the other strategies could read ("FROM:" over a name) is still the
    page's printed question: its answer, if the page gives one."""
    return question_result(ctx, ask, strict=True)
