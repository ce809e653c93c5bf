"""Calibrated confidence: how often a value found with this evidence is right on documents never seen.

Two stages, both fitted by `bench/fit_calibration.py` and kept in `calibration.json`:

1. The evidence table. A value's evidence key says where its text came from (`form_fields`,
   `text_layer`, `ocr`), how it was found (the strategy: a widget, `Label: value`, a label above,
   a whole name split, ...), whether it passed its field's validator, whether it is a numeric date
   whose day and month could swap, and whether the engine read its text with low confidence. The
   table holds, per key, the share of right values on the corpus (smoothed towards the broader
   keys' shares) and how many values it saw (its support). A key not in the table falls back to
   the broader key, down to its strategy; a strategy the corpus never showed keeps its prior.
2. The recalibration. A share measured on familiar documents overstates how often the same
   evidence is right on a new design, so the table's figure is one signal among several of a
   logistic model whose weights were fitted on figures each document did not take part in
   (design-grouped cross-validation): the table's figure, its support and how many design groups
   showed it, how well the label names the field, whether a label named it at all, whether it
   passed its validator, whether another candidate with another value scored nearly as well and
   how many other values were proposed, how much of the document's asked fields the rules found,
   whether the field is one the vocabulary knows, and how sure the engine was of the text. So a
   value from a layout the evidence covers well keeps a high confidence, and one whose signals
   disagree or that few documents like it backed gets a low one.
3. The design gate. Evidence of a kind that an average design group of the fit got right less
   often than `HIGH` (its mean less some deviations between groups) stays under `HIGH`, whatever
   its signals: familiar designs that read it well do not vouch for a new one. A kind is the
   source and strategy, split by whether the value's own signals were clean (`gate_kind`: a label
   or widget name that named the field exactly, no rival value, text the engine was sure of) or
   not, so a set of designs whose guessed widgets or doubted OCR went wrong does not hold back
   the clean evidence of every other design. A label strategy no design group showed enough of
   (the value right of its label, where the fit saw it after a colon) is judged by its family
   (`FAMILIES`): a label named the field either way. Nor does a kind no design group of the fit showed
   pass: a document kind new to the fit (a contract when only forms were fitted) is read by
   strategies of its own, which stay under `HIGH`.
4. The structure gate. A document whose known structure (`structure.known_structure`: the share
   of its text that reads as labels the vocabulary knows) is below every document on which a
   design group of the fit got that kind of evidence right at least `HIGH` of the time (the kind's
   structure floor; one per strategy, whatever engine read the text, and the fit's highest for a
   kind without one) keeps its values of that kind under `HIGH`: a label strategy that is right on
   intake forms says little of the same strategy on a contract, an invoice or a letter, whose page
   is mostly text the evidence does not explain. The design gate's shares leave out the values
   this gate holds, so such pages do not lower the same evidence's figure on forms. A page less
   structured than the fit's most demanding floor (`ANY_KIND`) must also have found as large a
   share of the asked fields as every page the fit saw that kind right on (its coverage floor):
   scanned receipts are right at little structure with every asked field found, while pet claim
   forms as little structured find half a patient's fields, often the owner's or the vet's.

A gate scales the value's confidence by `BELOW_HIGH` rather than cutting it there, so
the values it holds back keep their order by their own evidence (a scan's values are not all one
number). A value that fails its validator is never returned as certain: at most `INVALID_CAP`; no
value gets more than `MAX_CONFIDENCE`. `assess` says, beside the confidence, what lowered it, in
plain words (`REASONS`), for the reviewer who checks it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

TABLE_PATH = Path(__file__).with_name("calibration.json")
#: Text an engine read with less confidence than this is evidence of its own kind.
LOW_TEXT_CONFIDENCE = 0.8
#: Highest confidence of a value that fails its field's validator.
INVALID_CAP = 0.5
#: Highest confidence of any value: a corpus where every value of a kind was right does not make
#: the next one certain.
MAX_CONFIDENCE = 0.99
#: Confidence from which a value is taken as certain (what a reviewer trusts without a look).
HIGH = 0.9
#: Highest confidence of a value whose kind of evidence (source and strategy) was right less
#: often than `HIGH` on an average design of the fit: no signal of its own lifts it to certain.
BELOW_HIGH = 0.89
#: A label or widget name matching the field at least this well (relative to the strategy's best)
#: and text read at least `SURE_TEXT` surely make a value's evidence clean (`gate_kind`). Not 1: a
#: label a hair short of the field's best wording ("Date of Birth" for `dob`) is right as often as
#: an exact one, while the labels that go wrong match far less (0.4-0.7: another field's label).
SURE_MATCH = 0.95
SURE_TEXT = 0.9
#: A document on which the rules found less than this share of the asked fields is one whose
#: layout the evidence covers little (a reason of its own).
LOW_COVERAGE = 0.5
#: A figure of the evidence table under this: values found this way are often wrong.
WEAK_SHARE = 0.85
#: What lowered a value's confidence, in the reviewer's words (`assess`), in this order.
REASONS = {
    "text_doubt": "the OCR doubted this text",
    "weak_match": "the label matched only in part",
    "unlabelled": "no label named it: read from its place",
    "rival": "another value competed",
    "invalid": "it fails its field's format check",
    "ambiguous": "day and month could be read either way",
    "unknown_field": "a field name the rules do not know",
    "uncovered": "little else asked was found on this page",
    "weak_evidence": "values read this way are often wrong",
    "design": "a design the evidence does not know",
    "structure": "a kind of page the evidence does not know",
}
#: The structure floor's entry for a kind of evidence without a floor of its own.
ANY_KIND = "*"
#: Families of strategies that read the value a printed label names, differing only in where the
#: value stands from its label: after a colon, on the same line, to its right, under or over it
#: (`label`); in a table row after its heading or in a column under its header (`table`). A
#: family is one kind of evidence (`family_kind`) that speaks for a member few designs of the fit
#: showed.
FAMILIES = {
    **dict.fromkeys(("label_colon", "label_inline", "label_right", "label_below", "label_above"), "label"),
    **dict.fromkeys(("table_row", "table_column"), "table"),
}
#: Figures are kept away from 0 and 1 before taking their logit.
_EDGE = 1e-3


@dataclass(frozen=True)
class Signals:
    """How well a value's evidence agrees with itself, beside its evidence key."""

    #: How well the label names the field, relative to the strategy's best (1: an exact label).
    match: float = 1.0
    #: Another candidate with another value scored nearly as well.
    contested: bool = False
    #: The field name is a concept of the vocabulary (not a form's own question).
    known_field: bool = True
    #: The engine's confidence in the text the value was read from.
    text_confidence: float = 1.0
    #: A label named the value (not a heuristic's guess from its place or wording).
    labelled: bool = True
    #: Other values any candidate proposed for the field, however weakly.
    rivals: int = 0
    #: Share of the document's asked fields that were found: a layout the rules read little of is
    #: one the evidence does not cover well.
    coverage: float = 1.0
    #: The document's known structure (`structure.known_structure`), 1.0 when not measured.
    structure: float = 1.0


@dataclass(frozen=True)
class Recalibration:
    """The logistic model of stage 2: `sigmoid(bias + sum(weight * feature))`."""

    bias: float
    weights: dict[str, float]

    def apply(self, features: dict[str, float]) -> float:
        z = self.bias + sum(w * features.get(name, 0.0) for name, w in self.weights.items())
        return 1.0 / (1.0 + math.exp(-max(min(z, 30.0), -30.0)))


def evidence_key(
    source: str | None, strategy: str, valid: bool | None, ambiguous: bool = False, low_text: bool = False
) -> str:
    """The table key of one value's evidence: `source|strategy|check[|ambiguous][|low_text]`."""
    check = {True: "valid", False: "invalid", None: "unchecked"}[valid]
    return (
        f"{source}|{strategy}|{check}"
        + ("|ambiguous" if ambiguous else "")
        + ("|low_text" if low_text else "")
    )


def evidence_keys(key: str) -> list[str]:
    """`key` and its broader keys, most specific first (`a|b|c`, `a|b`, `a`)."""
    parts = key.split("|")
    return ["|".join(parts[:n]) for n in range(len(parts), 0, -1)]


def logit(p: float) -> float:
    p = min(max(p, _EDGE), 1.0 - _EDGE)
    return math.log(p / (1.0 - p))


@dataclass(frozen=True)
class Figure:
    """Stage 1's answer for one value's evidence."""

    #: Share of right values of the most specific known key naming the strategy (or the prior).
    share: float
    #: How many values that key saw, and in how many design groups.
    support: int = 0
    groups: int = 0
    key: str | None = None


def table_figure(
    table: dict[str, float],
    support: dict[str, int],
    key: str,
    prior: float,
    groups: dict[str, int] | None = None,
) -> Figure:
    """Stage 1: the figure of the most specific known key that names the strategy; the strategy's
    `prior` for evidence the table never saw."""
    known = next((k for k in evidence_keys(key)[:-1] if k in table), None)
    if known is None:
        return Figure(prior)
    return Figure(table[known], support.get(known, 0), (groups or {}).get(known, 0), known)


def features(figure: Figure, key: str, signals: Signals) -> dict[str, float]:
    """Stage 2's inputs for one value."""
    parts = key.split("|")
    return {
        "table_logit": logit(figure.share),
        "log_support": math.log1p(figure.support),
        # Evidence few designs showed says little of the next design; evidence none showed
        # (support and groups 0) has no term of its own that a fit could turn into trust.
        "log_groups": math.log1p(figure.groups),
        "weak_match": 1.0 - min(max(signals.match, 0.0), 1.0),
        "contested": 1.0 if signals.contested else 0.0,
        "unknown_field": 0.0 if signals.known_field else 1.0,
        "text_doubt": 1.0 - min(max(signals.text_confidence, 0.0), 1.0),
        "ocr": 1.0 if key.startswith("ocr|") else 0.0,
        "unlabelled": 0.0 if signals.labelled else 1.0,
        "validated": 1.0 if len(parts) > 2 and parts[2] == "valid" else 0.0,
        "rivals": math.log1p(signals.rivals),
        "uncovered": 1.0 - min(max(signals.coverage, 0.0), 1.0),
        "unstructured": 1.0 - min(max(signals.structure, 0.0), 1.0),
    }


@dataclass(frozen=True)
class Fitted:
    table: dict[str, float]
    support: dict[str, int]
    recalibration: Recalibration | None
    #: Design groups each key was seen in.
    groups: dict[str, int] = field(default_factory=dict)
    #: Per `source` and `source|strategy`: the share of right values of an average design group
    #: (each group weighs the same, however many values it holds).
    group_share: dict[str, float] = field(default_factory=dict)
    #: Per `source|strategy`: the least known structure of a document on which the fit saw that
    #: kind of evidence right at least `HIGH` of the time (`below_structure`).
    structure_floor: dict[str, float] = field(default_factory=dict)
    #: Per `source|strategy`: the least share of asked fields found on a document on which the fit
    #: saw that kind right at least `HIGH` of the time (the same rule as `structure_floor`).
    coverage_floor: dict[str, float] = field(default_factory=dict)


def clean(signals: Signals) -> bool:
    """Whether a value's own signals all agree: a label (or widget name) that named the field
    exactly, no rival value, text the engine was sure of."""
    return (
        signals.labelled
        and signals.match >= SURE_MATCH
        and not signals.contested
        and signals.rivals == 0
        and signals.text_confidence >= SURE_TEXT
    )


def gate_kind(key: str, signals: Signals) -> str:
    """The design gate's kind of a value: `source|strategy|clean` or `source|strategy|doubt`."""
    return "|".join(key.split("|")[:2]) + ("|clean" if clean(signals) else "|doubt")


def family_kind(key: str, signals: Signals | None = None) -> str | None:
    """The family's kind of a value found by a strategy of a family (`FAMILIES`): `source|family`,
    with `|clean` or `|doubt` when `signals` are given; None for any other strategy."""
    parts = key.split("|")
    if len(parts) < 2 or parts[1] not in FAMILIES:
        return None
    family = f"{parts[0]}|{FAMILIES[parts[1]]}"
    return family if signals is None else family + ("|clean" if clean(signals) else "|doubt")


def below_high(group_share: dict[str, float], key: str, signals: Signals | None = None) -> bool:
    """Whether evidence of `key`'s kind (`gate_kind` when the fit measured it, else source and
    strategy) was right less often than `HIGH` on an average design, or no design of the fit
    showed it in enough values to say: a strategy new to the fit (a kind of document it never saw
    reads through strategies of its own) is not vouched for by its source's other strategies.
    `group_share` empty: no fit, no gate."""
    if not group_share:
        return False
    kind = "|".join(key.split("|")[:2])
    fine = gate_kind(key, signals or Signals())
    # A label strategy no design showed enough of (the value right of its label where the fit
    # saw it after a colon) is judged by its family's designs: the label named the field either way.
    family = family_kind(key, signals or Signals())
    fallback = group_share.get(family, 0.0) if family is not None else 0.0
    return group_share.get(fine, group_share.get(kind, fallback)) < HIGH


def below_structure(structure_floor: dict[str, float], key: str, structure: float) -> bool:
    """Whether a value of `key`'s kind sits on a document less structured than any the fit saw
    that kind right on: its kind's floor says how much of a page the evidence must know before
    its familiar figures hold. A kind without a floor of its own (no design group of the fit read
    it right often enough on enough documents) needs its family's floor (`FAMILIES`: the highest
    of its members'), else the fit's `ANY_KIND` floor, when it has one."""
    family = family_kind(key)
    fallback = structure_floor.get(ANY_KIND)
    if family is not None:
        # A member of a family without a floor of its own needs its family's most demanding one.
        fallback = structure_floor.get(family, fallback)
    floor = structure_floor.get("|".join(key.split("|")[:2]), fallback)
    return floor is not None and structure < floor


def held_by_structure(
    structure_floor: dict[str, float], coverage_floor: dict[str, float], key: str, signals: Signals
) -> bool:
    """The structure gate: a value on a page less structured than its kind's floor, or on a page
    less structured than the fit's most demanding floor (`ANY_KIND`) on which less of what was
    asked was found than its kind's coverage floor."""
    return below_structure(structure_floor, key, signals.structure) or (
        below_structure(coverage_floor, key, signals.coverage)
        and below_structure(structure_floor, ANY_KIND, signals.structure)
    )


@lru_cache(maxsize=1)
def _fitted() -> Fitted:
    if not TABLE_PATH.exists():
        return Fitted({}, {}, None)
    data = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    table = {str(k): float(v) for k, v in data.get("confidence", {}).items()}
    support = {str(k): int(v) for k, v in data.get("support", {}).items()}
    groups = {str(k): int(v) for k, v in data.get("groups", {}).items()}
    group_share = {str(k): float(v) for k, v in data.get("group_share", {}).items()}
    structure_floor = {str(k): float(v) for k, v in data.get("structure_floor", {}).items()}
    coverage_floor = {str(k): float(v) for k, v in data.get("coverage_floor", {}).items()}
    stage2 = data.get("recalibration")
    recalibration = (
        Recalibration(float(stage2["bias"]), {str(k): float(v) for k, v in stage2["weights"].items()})
        if stage2
        else None
    )
    return Fitted(table, support, recalibration, groups, group_share, structure_floor, coverage_floor)


def calibrated_confidence(
    key: str, prior: float, text_confidence: float = 1.0, signals: Signals | None = None
) -> float:
    """The confidence of a value whose evidence has table key `key`, 0..1, by the fitted
    calibration. `signals` defaults to a value that agrees with itself, read from text of
    `text_confidence`."""
    return assess(_fitted(), key, prior, signals or Signals(text_confidence=text_confidence))[0]


def calibrated(key: str, prior: float, signals: Signals) -> tuple[float, list[str]]:
    """`calibrated_confidence` and what lowered it (`assess`), by the fitted calibration."""
    return assess(_fitted(), key, prior, signals)


def confidence_of(fitted: Fitted, key: str, prior: float, signals: Signals) -> float:
    """`calibrated_confidence` under a given fit (`bench/fit_calibration.py` scores candidate fits
    with it)."""
    return assess(fitted, key, prior, signals)[0]


def assess(fitted: Fitted, key: str, prior: float, signals: Signals) -> tuple[float, list[str]]:
    """A value's confidence under `fitted`, and what lowered it (`REASONS`' phrases). Without a
    recalibration, the table's figure or the `prior`, scaled by the engine's text confidence when
    the table has no figure for low-confidence text."""
    figure = table_figure(fitted.table, fitted.support, key, prior, fitted.groups)
    if fitted.recalibration is not None:
        confidence = fitted.recalibration.apply(features(figure, key, signals))
        if signals.text_confidence < LOW_TEXT_CONFIDENCE:
            # Text the engine itself doubts: the value is right only if the text is read right
            # and the evidence holds, whatever familiar evidence the model saw.
            confidence = min(confidence, figure.share * signals.text_confidence)
    else:
        confidence = figure.share
        if signals.text_confidence < 1.0 and (figure.key is None or "low_text" not in figure.key):
            confidence *= signals.text_confidence
    gates = []
    if below_high(fitted.group_share, key, signals):
        # The average design did not support certainty for this kind of evidence: the familiar
        # designs that did must not make a new one's value look certain.
        gates.append("design")
    if held_by_structure(fitted.structure_floor, fitted.coverage_floor, key, signals):
        # A page mostly unexplained by the evidence, or on which less of what was asked was found
        # than on any page the fit saw this evidence right on: a kind of document it may not know.
        gates.append("structure")
    if gates:
        # Scaled, not cut: held-back values keep their order by their own evidence (a cut made
        # every value of a scan one number).
        confidence = min(confidence, 1.0) * BELOW_HIGH
    if "|invalid" in key:
        confidence = min(confidence, INVALID_CAP)
    confidence = round(max(min(confidence, MAX_CONFIDENCE), 0.0), 3)
    return confidence, reasons(key, signals, figure, gates)


def reasons(key: str, signals: Signals, figure: Figure, gates: list[str]) -> list[str]:
    """What in a value's evidence lowers its confidence, as `REASONS`' phrases in their order."""
    parts = key.split("|")
    found = {
        "text_doubt": signals.text_confidence < SURE_TEXT,
        "weak_match": signals.labelled and signals.match < SURE_MATCH,
        "unlabelled": not signals.labelled,
        "rival": signals.contested or signals.rivals > 0,
        "invalid": "invalid" in parts[2:3],
        "ambiguous": "ambiguous" in parts[3:],
        "unknown_field": not signals.known_field,
        "uncovered": signals.coverage < LOW_COVERAGE,
        "weak_evidence": figure.share < WEAK_SHARE,
        **{gate: True for gate in gates},
    }
    return [phrase for name, phrase in REASONS.items() if found.get(name)]
