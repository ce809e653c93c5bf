"""`extract.py`'s ordered table of strategies: how it is tried (a decider ends the reading, a
fallback only where nothing was kept) and that one function turns evidence into a field result."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from extraction.fields import extract
from extraction.fields.extract import STRATEGIES, extract_fields
from extraction.fields.model.candidate import Candidate
from extraction.fields.model.context import FieldContext
from extraction.fields.model.result import FieldResult, absent
from extraction.fields.model.strategy import Ask, Strategy
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit

FIELDS = Path(__file__).resolve().parents[3] / "extraction" / "fields"


def _always(ask: Ask) -> bool:
    return True


def _proposing(value: str) -> Strategy:
    def gather(ctx: FieldContext, ask: Ask) -> Iterator[Candidate]:
        yield Candidate.of(value, 0.9, ctx.units[:1], value, "label_colon", "Reference")

    return Strategy(
        f"proposes {value}", reads="the test's word", applies=_always, evidence="label_colon", gather=gather
    )


def _nothing(ctx: FieldContext, ask: Ask) -> list[Candidate]:
    return []


def _read(monkeypatch: pytest.MonkeyPatch, table: tuple[Strategy, ...]) -> FieldResult:
    monkeypatch.setattr(extract, "STRATEGIES", table)
    page = DocBuilder()
    page.line("Reference: ABC-123", 50, 50)
    return extract_fields(page.doc, ["reference"], file_name="test.pdf")["reference"]


def test_a_fallback_is_tried_only_where_no_earlier_strategy_kept_a_candidate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fallback = Strategy(
        "late",
        reads="x",
        applies=_always,
        evidence="label_colon",
        gather=_proposing("late").gather,
        fallback=True,
    )
    assert _read(monkeypatch, (_proposing("early"), fallback)).value == "early"
    empty = Strategy("empty", reads="x", applies=_always, evidence="none", gather=_nothing)
    assert _read(monkeypatch, (empty, fallback)).value == "late"


def test_gathering_strategies_pool_their_candidates_and_the_best_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    weak = Strategy(
        "weak",
        reads="x",
        applies=_always,
        evidence="label_colon",
        gather=lambda ctx, ask: [
            Candidate.of("weak", 0.3, ctx.units[:1], "weak", "label_colon", "Reference")
        ],
    )
    assert _read(monkeypatch, (weak, _proposing("strong"))).value == "strong"


def test_a_decider_ends_the_reading_with_any_result_and_passes_on_with_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    passes = Strategy("passes", reads="x", applies=_always, evidence="none", decide=lambda ctx, ask: None)
    ends = Strategy("ends", reads="x", applies=_always, evidence="none", decide=lambda ctx, ask: absent())
    assert _read(monkeypatch, (passes, _proposing("after"))).value == "after"
    assert _read(monkeypatch, (ends, _proposing("after"))).value is None


def test_a_strategy_that_does_not_apply_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    other = Strategy(
        "other field",
        reads="x",
        applies=lambda ask: ask.name != "reference",
        evidence="x",
        gather=_proposing("no").gather,
    )
    assert _read(monkeypatch, (other,)).value is None


def test_a_strategy_either_gathers_or_decides() -> None:
    with pytest.raises(ValueError, match="either gather or decide"):
        Strategy(
            "both", reads="x", applies=_always, evidence="x", gather=_nothing, decide=lambda ctx, ask: None
        )
    with pytest.raises(ValueError, match="either gather or decide"):
        Strategy("neither", reads="x", applies=_always, evidence="x")


def test_the_table_says_what_each_strategy_reads_and_keeps_fallbacks_last() -> None:
    names = [s.name for s in STRATEGIES]
    assert len(names) == len(set(names))
    assert all(s.reads and s.evidence for s in STRATEGIES)
    first_fallback = next(i for i, s in enumerate(STRATEGIES) if s.fallback)
    assert all(s.fallback for s in STRATEGIES[first_fallback:])
    assert [s.name for s in STRATEGIES[:2]] == ["form_widgets", "embedded"]


def test_field_results_are_assembled_from_evidence_in_one_place() -> None:
    # Only `model.evidence.field_result` calibrates a value's confidence from its evidence
    # (`extract.with_coverage` recalibrates once coverage is known): no copy of the assembly.
    calls = sorted(
        (str(path.relative_to(FIELDS)), function.name)
        for path in FIELDS.rglob("*.py")
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(function, ast.FunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "calibrated"
    )
    assert calls == [("extract.py", "with_coverage"), ("model/evidence.py", "field_result")]
