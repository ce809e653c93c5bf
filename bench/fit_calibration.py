"""Fit the confidence of `extraction/fields/calibration.json`, and judge it on designs it never saw.

Every value rules extraction returns carries its evidence key (`source|strategy|validator
outcome[|ambiguous][|low_text]`), the strategy's prior and its agreement signals (see
`extraction/fields/model/calibration.py`). This script extracts every document of the corpora in
process (rules only), scores each predicted value against the truth exactly as `corpus_score.py`
does, and fits the two stages:

1. the evidence table: per key and each broader key, the share of right values, smoothed towards
   the broader key's share (`PRIOR_STRENGTH` pseudo-values), with each key's support;
2. the recalibration: a logistic model over the table's figure and the agreement signals, fitted on
   *out-of-group* figures: for each design group, the table is fitted without it and its values
   are looked up in that table. So the model learns how far a familiar figure holds on a new design;
3. the design gate: per source, per source|strategy and per gate kind (source|strategy split by
   whether the value's own signals were clean: an exact label or widget name, no rival, sure
   text), the mean share of right values over design groups less some deviations between them
   (`group_shares`); a label strategy few designs showed is judged by its family's share (a label
   naming the field, whatever side of it the value stands: `calibration.FAMILIES`); evidence
   under 0.9 there never gets a confidence of 0.9 or more (it is
   scaled under 0.9, keeping its order). How many deviations is chosen by the design-grouped cross-validation
   below, never by the kept-back designs: the least of `SPREADS` whose held-out values at >= 0.9
   are right `TARGET_HIGH_RIGHT` of the time with an expected calibration error within `TARGET_ECE`
   (`choose_spread`), so the gate holds back no more than the evidence asks;
4. the structure gate: per source|strategy, the least known structure (`Signals.structure`) of
   the documents on which a design group got that evidence right at least `HIGH_SHARE` of the
   time (the `STRUCTURE_QUANTILE` of that group's documents, the least over such groups:
   `structure_floors`); a value on a less structured document stays under 0.9. The same rule over
   the share of asked fields found (`Signals.coverage`, the least over such groups:
   `coverage_floors`) holds a value on a page under the highest structure floor.

Design groups: a synthetic corpus's `design`; the intake set as a whole (its designs are not
labelled); the receipts and the real forms in `FOLDS_PER_SET` slices of whole documents (each
document is a design of its own: another shop, another form); every other set whole.

Judging (always printed): leave-one-group-out cross-validation of the whole fit. For each group,
both stages are fitted on the other groups only (the recalibration on figures out of their own
groups in turn), and the group's values are scored by that fit. The expected calibration error and
the share right of values at >= 0.9 over those held-out scores are the figures to report; the
in-sample figures are printed beside them only to show the gap.

Judging a kind of document no fit has seen (always printed): the same, leaving out whole kinds
(`KINDS`: intake forms, invoices, contracts, receipts, real scanned forms, real claim forms) in turn.

Usage: python -m bench.fit_calibration [--corpus DIR ...] [--check DIR ...] [--set intake] [--parse-cache DIR]
[--dry-run]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from bench.calibration_gates import (
    DESIGN_SPREAD,
    SPREADS,
    Value,
    coverage_floors,
    group_shares,
    levels,
    structure_floors,
)
from bench.corpus_quality import DEFAULT_CORPUS, _cached, load_manifest
from bench.corpus_score import (
    HIGH_CONFIDENCE,
    Calibration,
    _values,
    calibration,
    is_kept_back,
    score_field,
)
from extraction.fields.model.calibration import (
    Fitted,
    Recalibration,
    Signals,
    confidence_of,
    features,
    table_figure,
)

#: Pseudo-values of the broader key's share mixed into each key's share.
PRIOR_STRENGTH = 4.0
#: What the cross-validated fit must reach for `choose_spread` to take a spread.
TARGET_HIGH_RIGHT = 0.97
TARGET_ECE = 0.04
#: L2 penalty of the recalibration's weights (not of its bias).
RIDGE = 1.0
#: Slices of the receipts and of the real forms, each a cross-validation group.
FOLDS_PER_SET = 5
#: Sets whose documents are each of its own design, sliced into groups of whole documents.
ONE_DESIGN_PER_DOCUMENT = frozenset({"receipts", "realforms"})
#: Kinds of document, each left out whole in turn to judge the fit on a kind it never saw.
KINDS = {
    "intake": "intake forms",
    "synthetic_intake": "intake forms",
    "forms": "intake forms",
    "invoices": "invoices",
    "nda": "contracts",
    "receipts": "receipts",
    "realforms": "real scanned forms",
    "realdesigns": "real claim forms",
}
TABLE = Path(__file__).resolve().parents[1] / "extraction" / "fields" / "model" / "calibration.json"


def design_group(doc: dict[str, Any]) -> str:
    if doc.get("design"):
        return f"{doc['set']}/{doc['design']}"
    if doc["set"] in ONE_DESIGN_PER_DOCUMENT:
        slice_ = int(hashlib.sha256(doc["id"].encode()).hexdigest(), 16) % FOLDS_PER_SET
        return f"{doc['set']}/{slice_}"
    return str(doc["set"])


def fit_table(values: Iterable[Value]) -> tuple[dict[str, float], dict[str, int], dict[str, int]]:
    """Stage 1: the smoothed share of right values per evidence key and each broader key, how
    many values each key saw, and in how many design groups."""
    right: dict[str, int] = defaultdict(int)
    seen: dict[str, int] = defaultdict(int)
    groups: dict[str, set[str]] = defaultdict(set)
    total = ok_total = 0
    for value in values:
        total += 1
        ok_total += value.right
        for key in levels(value.key):
            seen[key] += 1
            right[key] += value.right
            groups[key].add(value.group)
    overall = (ok_total + 1) / (total + 2)
    table: dict[str, float] = {}
    for key in sorted(seen, key=lambda k: k.count("|")):
        parent = table.get(key.rsplit("|", 1)[0], overall) if "|" in key else overall
        table[key] = round((right[key] + PRIOR_STRENGTH * parent) / (seen[key] + PRIOR_STRENGTH), 3)
    return table, dict(seen), {k: len(g) for k, g in groups.items()}


def fit_logistic(rows: list[dict[str, float]], labels: list[bool]) -> Recalibration:
    """Stage 2: ridge logistic regression by Newton's method (a few hundred to a few thousand rows)."""
    import numpy as np

    names = sorted(rows[0]) if rows else []
    x = np.array([[row[n] for n in names] for row in rows], dtype=float).reshape(len(rows), len(names))
    x = np.hstack([np.ones((len(rows), 1)), x])
    y = np.array(labels, dtype=float)
    penalty = np.eye(x.shape[1]) * RIDGE
    penalty[0, 0] = 0.0
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
        gradient = x.T @ (p - y) + penalty @ w
        hessian = x.T @ (x * (p * (1 - p))[:, None]) + penalty + np.eye(x.shape[1]) * 1e-9
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return Recalibration(
        round(float(w[0]), 4), {n: round(float(v), 4) for n, v in zip(names, w[1:], strict=True)}
    )


def out_of_group_features(values: list[Value]) -> list[dict[str, float]]:
    """Stage 2's inputs for every value, its table figure taken from a table fitted without its
    own group."""
    groups = sorted({v.group for v in values})
    rows: list[dict[str, float]] = [{} for _ in values]
    for group in groups:
        table, support, seen_in = fit_table(v for v in values if v.group != group)
        for index, value in enumerate(values):
            if value.group == group:
                figure = table_figure(table, support, value.key, value.prior, seen_in)
                rows[index] = features(figure, value.key, value.signals)
    return rows


def fit(values: list[Value], design_spread: float = DESIGN_SPREAD) -> Fitted:
    """Both stages on `values`, and the design-averaged share of each kind of evidence."""
    table, support, groups = fit_table(values)
    recalibration = fit_logistic(out_of_group_features(values), [v.right for v in values])
    floors, coverage = structure_floors(values), coverage_floors(values)
    shares = group_shares(values, design_spread, floors, coverage)
    return Fitted(table, support, recalibration, groups, shares, floors, coverage)


def choose_spread(values: list[Value]) -> tuple[float, dict[float, Calibration]]:
    """The least spread of `SPREADS` whose design-grouped cross-validation meets the targets (the
    one nearest them when none does), and each spread's held-out calibration."""
    tried: dict[float, Calibration] = {}
    for spread in SPREADS:
        scored = cross_validate(values, partial(fit, design_spread=spread))
        tried[spread] = calibration((c, v.right) for c, v in scored)
    for spread, cal in tried.items():
        if cal.high_precision >= TARGET_HIGH_RIGHT and cal.ece <= TARGET_ECE:
            return spread, tried
    return max(tried, key=lambda s: (tried[s].high_precision, -tried[s].ece)), tried


def cross_validate(
    values: list[Value],
    fitter: Callable[[list[Value]], Fitted],
    part: Callable[[Value], str] = lambda v: v.group,
) -> list[tuple[float, Value]]:
    """Every value scored by a fit that did not see its design group (or its `part`)."""
    scored: list[tuple[float, Value]] = []
    for held in sorted({part(v) for v in values}):
        fitted = fitter([v for v in values if part(v) != held])
        scored += [(confidence_of(fitted, v.key, v.prior, v.signals), v) for v in values if part(v) == held]
    return scored


def kind_of(value: Value) -> str:
    """The kind of document a value was read from (`KINDS`; a set not listed is a kind of its own)."""
    return KINDS.get(value.set_name, value.set_name)


def collect(
    manifest: list[dict[str, Any]], corpus_of: dict[str, Path], parse_cache: Path | None
) -> list[Value]:
    from extraction.fields import extract_fields
    from extraction.formats.engines import parse_bytes

    def parse(path: Path) -> Any:
        return parse_bytes(path.read_bytes(), path.name)

    reader = _cached(parse, parse_cache) if parse_cache is not None else parse
    values: list[Value] = []
    for doc in manifest:
        if not doc["field_names"]:
            continue
        path = corpus_of[doc["id"]] / doc["path"]
        try:
            document = reader(path)
        except Exception as exc:
            print(f"  {doc['id']}: parse failed ({type(exc).__name__})")
            continue
        for name, result in extract_fields(document, doc["field_names"], file_name=path.name).items():
            if not _values(result.value) or result.evidence is None:
                continue
            counts = score_field(name, doc["fields"].get(name), result.value, set_name=doc["set"])
            values.append(
                Value(
                    group=design_group(doc),
                    set_name=doc["set"],
                    key=result.evidence,
                    prior=result.prior if result.prior is not None else result.confidence,
                    signals=result.signals or Signals(),
                    right=counts.fp == 0 and counts.tp > 0,
                    document=doc["id"],
                )
            )
    return values


def _line(name: str, cal: Calibration) -> str:
    mean = sum(c * n for _, n, c, _ in cal.bins) / max(cal.values, 1)
    return (
        f"{name:<26} {cal.values:6d} {cal.right / max(cal.values, 1):7.3f} {mean:7.3f} {cal.ece:7.3f}"
        f" {cal.high:6d} {cal.high_precision:7.3f} {cal.high_right / max(cal.right, 1):7.3f}"
    )


def report(
    title: str, scored: list[tuple[float, Value]], part: Callable[[Value], str] = lambda v: v.set_name
) -> dict[str, Any]:
    print(f"\n{title}")
    # The last column: the share of the right values that sit at >= 0.9 (what the mark spares).
    print(f"{'':<26} {'values':>6} {'right':>7} {'conf':>7} {'ECE':>7} {'>=0.9':>6} {'right':>7} {'kept':>7}")
    by_set: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for confidence, value in scored:
        by_set[part(value)].append((confidence, value.right))
    for set_name in sorted(by_set):
        cal = calibration(by_set[set_name])
        print(_line(set_name, cal))
    overall = calibration((c, v.right) for c, v in scored)
    print(_line("ALL", overall))
    return {
        "values": overall.values,
        "ece": round(overall.ece, 4),
        f"right_at_{HIGH_CONFIDENCE}": round(overall.high_precision, 4),
        f"share_at_{HIGH_CONFIDENCE}": round(overall.high / max(overall.values, 1), 4),
        f"right_kept_at_{HIGH_CONFIDENCE}": round(overall.high_right / max(overall.right, 1), 4),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--corpus", type=Path, action="append", help="a corpus folder with manifest.jsonl (repeatable)"
    )
    parser.add_argument(
        "--check",
        type=Path,
        action="append",
        default=[],
        help="a corpus scored by the final fit only, never fitted (another seed of a generator)",
    )
    parser.add_argument("--set", action="append", dest="sets", help="only this set (repeatable)")
    parser.add_argument("--parse-cache", type=Path, help="DEV: keep parsed documents here between runs")
    parser.add_argument("--dry-run", action="store_true", help="print the figures, do not write the table")
    args = parser.parse_args(argv)
    corpora = args.corpus or [DEFAULT_CORPUS]
    manifest: list[dict[str, Any]] = []
    corpus_of: dict[str, Path] = {}
    for corpus in corpora:
        for doc in load_manifest(corpus):
            if not args.sets or doc["set"] in args.sets:
                manifest.append(doc)
                corpus_of[doc["id"]] = corpus
    # Designs a generator keeps back take part in no fit: scored at the end only.
    kept_back = [d for d in manifest if is_kept_back(d)]
    values = collect([d for d in manifest if not is_kept_back(d)], corpus_of, args.parse_cache)
    groups = sorted({v.group for v in values})
    print(
        f"{len(values)} values from {len(manifest) - len(kept_back)} documents in {len(groups)} design groups"
    )

    spread, tried = choose_spread(values)
    print("\ndesign gate: held-out figures per spread (deviations between design groups)")
    for each, cal in tried.items():
        print(
            f"  {each:4.2f}: ECE {cal.ece:.3f}, {cal.high} values >= {HIGH_CONFIDENCE}, {cal.high_precision:.3f} right"
        )
    print(f"  chosen: {spread}")
    held_out = report(
        "held out: each design group scored by a fit without it",
        cross_validate(values, partial(fit, design_spread=spread)),
    )
    held_out["design_spread"] = spread
    held_out["kinds_left_out"] = report(
        "held out: each kind of document scored by a fit that saw no document of its kind",
        cross_validate(values, partial(fit, design_spread=spread), kind_of),
        kind_of,
    )
    held_out["kinds_left_out"]["without_structure_gate"] = report(
        "kinds left out, without the structure gate (stage 4), for comparison",
        cross_validate(
            values, lambda train: replace(fit(train, spread), structure_floor={}, coverage_floor={}), kind_of
        ),
        kind_of,
    )
    held_out["without_design_gate"] = report(
        "held out, without the design gate (stage 3), for comparison",
        cross_validate(values, lambda train: replace(fit(train), group_share={})),
    )
    final = fit(values, spread)
    in_sample = report(
        "in sample (fitted and scored on the same documents: not a figure to report)",
        [(confidence_of(final, v.key, v.prior, v.signals), v) for v in values],
    )
    if kept_back:
        never = collect(kept_back, corpus_of, args.parse_cache)
        held_out["kept_back_designs"] = report(
            "designs kept back from every fit, scored by the final fit",
            [(confidence_of(final, v.key, v.prior, v.signals), v) for v in never],
        )
        ungated = replace(final, group_share={})
        held_out["kept_back_designs"]["without_design_gate"] = report(
            "designs kept back, without the design gate",
            [(confidence_of(ungated, v.key, v.prior, v.signals), v) for v in never],
        )
    for check in args.check:
        docs = [d for d in load_manifest(check) if not args.sets or d["set"] in args.sets]
        scored = collect(docs, dict.fromkeys((d["id"] for d in docs), check), args.parse_cache)
        held_out[f"check {check.name}"] = report(
            f"{check}: never fitted, scored by the final fit",
            [(confidence_of(final, v.key, v.prior, v.signals), v) for v in scored],
        )
    assert final.recalibration is not None
    print(
        "\nrecalibration weights:", json.dumps(final.recalibration.weights), "bias", final.recalibration.bias
    )
    if not args.dry_run:
        data = {
            "fitted": datetime.now(UTC).strftime("%Y-%m-%d"),
            "corpus": "sets: " + ", ".join(sorted({d["set"] for d in manifest})),
            "values": len(values),
            "design_groups": len(groups),
            "prior_strength": PRIOR_STRENGTH,
            "held_out": held_out,
            "in_sample": in_sample,
            "confidence": final.table,
            "support": final.support,
            "groups": final.groups,
            "group_share": final.group_share,
            "structure_floor": final.structure_floor,
            "coverage_floor": final.coverage_floor,
            "recalibration": {"bias": final.recalibration.bias, "weights": final.recalibration.weights},
        }
        TABLE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {TABLE} ({len(final.table)} keys from {len(values)} values)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
