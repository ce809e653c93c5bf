"""The gates' numbers of the confidence fit (`bench.fit_calibration`, stages 3 and 4): what a new
design may expect of each kind of evidence (`group_shares`), and the least known structure and share
of asked fields found on which design groups read a kind right (`structure_floors`,
`coverage_floors`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from extraction.fields.model.calibration import (
    ANY_KIND,
    Signals,
    evidence_keys,
    family_kind,
    gate_kind,
    held_by_structure,
)

#: Pseudo-values of a kind's share over every group mixed into each group's share (`group_shares`).
GROUP_PRIOR = 2.0
#: Least values of a key in a design group for the group's share to count in `group_shares`.
LEAST_GROUP_VALUES = 3
#: Standard deviations between design groups taken off their mean share in `group_shares`, unless
#: `choose_spread` picks another of `SPREADS`.
DESIGN_SPREAD = 0.5
SPREADS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)
#: Share of a design group's values of a kind that must be right for its documents to set that
#: kind's structure floor, and the quantile of their known structure taken as the group's floor
#: (a few odd documents of a group do not lower it).
HIGH_SHARE = 0.9
STRUCTURE_QUANTILE = 0.1
#: The same quantile for the share of asked fields found (`coverage_floors`).
COVERAGE_QUANTILE = 0.0
#: Least documents of a design group holding a kind of evidence for the group to set that kind's
#: floor: one odd document (a form whose values are all in widgets, no label printed) says
#: nothing of how structured a page must be.
LEAST_GROUP_DOCUMENTS = 3


@dataclass(frozen=True)
class Value:
    """One predicted value: its design group, set, evidence and whether it was right."""

    group: str
    set_name: str
    key: str
    prior: float
    signals: Signals
    right: bool
    #: The document it was read from (its manifest id).
    document: str = ""


def levels(evidence: str) -> list[str]:
    """The keys of one evidence string, broadest first: source, source|strategy, ... full."""
    return evidence_keys(evidence)[::-1]


def group_shares(
    values: Iterable[Value],
    design_spread: float = DESIGN_SPREAD,
    floors: dict[str, float] | None = None,
    coverage: dict[str, float] | None = None,
) -> dict[str, float]:
    """Per `source`, `source|strategy`, gate kind (`source|strategy|clean` or `|doubt`,
    `calibration.gate_kind`) and family kind (`source|label|clean`, ... `calibration.family_kind`,
    what a label strategy few designs showed falls back to): what a new design may expect of that
    evidence, the mean over design groups of each group's share of right values (smoothed towards
    the kind's share over all groups by `GROUP_PRIOR` pseudo-values; groups of fewer than
    `LEAST_GROUP_VALUES` values of the key left out) less `design_spread` standard deviations
    between groups. One big familiar group does not speak for every design, and evidence that
    some designs read well and others badly is not trusted on the next. Values the structure
    gate holds (`floors`, and `coverage` floors: `calibration.held_by_structure`) are left out:
    it holds them back already, and a set of pages the evidence does not know (pet claim forms
    whose widgets name the owner, the pet and the vet) must not hold back the same evidence on
    every form."""
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for value in values:
        if floors and held_by_structure(floors, coverage or {}, value.key, value.signals):
            continue
        kinds = [*levels(value.key)[:2], gate_kind(value.key, value.signals)]
        if (family := family_kind(value.key, value.signals)) is not None:
            kinds.append(family)
        for key in kinds:
            count = counts[key][value.group]
            count[0] += 1
            count[1] += value.right
    shares: dict[str, float] = {}
    for key, by_group in counts.items():
        # Each group's share is pulled towards the kind's share over every group (not towards
        # one half: a small design read all right is not a design read right 80% of the time).
        pooled = (sum(ok for _, ok in by_group.values()) + 1) / (sum(n for n, _ in by_group.values()) + 2)
        per_group = [
            (ok + GROUP_PRIOR * pooled) / (n + GROUP_PRIOR)
            for n, ok in by_group.values()
            if n >= LEAST_GROUP_VALUES
        ]
        if not per_group:
            continue
        mean = sum(per_group) / len(per_group)
        spread = (
            (sum((s - mean) ** 2 for s in per_group) / (len(per_group) - 1)) ** 0.5
            if len(per_group) > 1
            else 0.0
        )
        shares[key] = round(mean - design_spread * spread, 3)
    return shares


def structure_floors(
    values: Iterable[Value],
    signal: Callable[[Signals], float] = lambda s: s.structure,
    quantile: float = STRUCTURE_QUANTILE,
) -> dict[str, float]:
    """Per `source|strategy`: the least, over design groups whose values of that kind were right
    at least `HIGH_SHARE` of the time (Laplace-smoothed, at least `LEAST_GROUP_VALUES` values from
    at least `LEAST_GROUP_DOCUMENTS` documents), of
    the `STRUCTURE_QUANTILE` of those values' documents' `signal` (known structure, or the share
    of asked fields found: `coverage_floors`). A kind no group read so well gets no floor (the
    design gate holds it back). A family of strategies (`calibration.FAMILIES`) gets its members'
    highest floor, for a member without one; a kind of no family, the highest of all (`ANY_KIND`)."""
    by_kind: dict[str, dict[str, list[Value]]] = defaultdict(lambda: defaultdict(list))
    for value in values:
        by_kind[levels(value.key)[1] if "|" in value.key else value.key][value.group].append(value)
    floors: dict[str, float] = {}
    for kind, by_group in by_kind.items():
        lows = []
        for group_values in by_group.values():
            n, ok = len(group_values), sum(v.right for v in group_values)
            documents = len({v.document for v in group_values})
            if (
                n >= LEAST_GROUP_VALUES
                and documents >= LEAST_GROUP_DOCUMENTS
                and (ok + 1) / (n + 2) >= HIGH_SHARE
            ):
                structures = sorted(signal(v.signals) for v in group_values)
                lows.append(structures[int(quantile * (len(structures) - 1))])
        if lows:
            floors[kind] = min(lows)
    # A strategy reads the same way whatever engine gave the text: the label strategies right on
    # scanned receipts vouch for the same strategy on a receipt with a text layer.
    shared = {
        kind: min(f for k, f in floors.items() if k.split("|")[1:] == kind.split("|")[1:]) for kind in floors
    }
    # A kind no group read right often enough on enough documents (widgets seen on a few forms
    # only) needs as much known structure as the most demanding kind that has a floor.
    if not shared:
        return {}
    # A member of a family of strategies without a floor of its own (a label read right of its
    # value where the fit saw it after a colon) needs the most demanding floor of its family.
    families: dict[str, float] = {}
    for kind, floor in shared.items():
        if (family := family_kind(kind)) is not None:
            families[family] = max(families.get(family, 0.0), floor)
    return {**shared, **families, ANY_KIND: max(shared.values())}


def coverage_floors(values: Iterable[Value]) -> dict[str, float]:
    """`structure_floors` of the share of asked fields found on the page: receipts read right at
    little known structure had every asked field found; a pet claim form at the same structure
    has a third to a half of a patient's fields missing, and the ones found are often the
    owner's or the vet's."""
    return structure_floors(values, lambda s: s.coverage, COVERAGE_QUANTILE)
