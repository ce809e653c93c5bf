"""Scoring of extraction predictions against the corpus truth, exactly as corpus/README.md says.

This module deliberately shares no code with `extraction/`: a measurement that reused the date or
amount reader under test would hide that reader's mistakes.

For each document and asked field, truth and prediction become sets of normalised values (null,
"" and [] are empty; a list gives several values). TP counts values in both, FP predicted values
not in the truth, FN truth values not predicted. Precision, recall and F1 are micro-averaged per
field, per set and overall, F1 = 2TP / (2TP + FP + FN).
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

#: Two-digit years below this are 20xx, the others 19xx.
TWO_DIGIT_YEAR_PIVOT = 70
#: Field-name words that make a field numeric ("a value holding one number is compared to the cent").
AMOUNT_NAME_WORDS = frozenset(
    {"total", "amount", "subtotal", "tax", "price", "cost", "sum", "balance", "fee"}
)
#: The set whose values write spaces and colons as `_`.
KLEISTER_SET = "nda"
#: The set whose ambiguous numeric dates are month first and whose phone fields compare by digits.
INTAKE_SET = "intake"
#: The set of old scanned forms whose truth joins OCR words with spaces (`12 /10 /98`): whitespace
#: beside punctuation is dropped, and ambiguous numeric dates are month first.
REALFORMS_SET = "realforms"
#: The receipts set, whose truths space identical prints differently (`NO.53, JALAN` for a print
#: of `NO.53,JALAN`): whitespace beside punctuation is dropped, the characters themselves count.
RECEIPTS_SET = "receipts"
#: Sets whose whitespace beside punctuation is dropped on both sides before comparing.
TIGHT_SETS = frozenset({REALFORMS_SET, RECEIPTS_SET})
#: Sets scored by the intake rules: the corpus's, the generated forms of other designs
#: (`bench/synthetic_forms`) and the real published claim forms filled with invented people.
INTAKE_SETS = frozenset({INTAKE_SET, "synthetic_intake", "realdesigns"})
#: Field-name words that make a field a phone number (compared by its digits in the intake set).
PHONE_NAME_WORDS = frozenset({"phone", "cell", "mobile", "fax", "tel", "telephone"})
#: Field-name words of a gender answer, whose one-letter print stands for its word (intake rules).
GENDER_NAME_WORDS = frozenset({"gender", "sex"})
GENDER_LETTERS = {"m": "male", "f": "female"}

_TRUE = frozenset({"true", "yes", "on", "checked", "1"})
_FALSE = frozenset({"false", "no", "off", "unchecked", "0"})
_MONTHS = {
    name: number
    for number in range(1, 13)
    for name in (calendar.month_name[number].lower(), calendar.month_abbr[number].lower())
}
_MONTHS["sept"] = 9
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ISO_RE = re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$")
_NUMERIC_RE = re.compile(r"^(\d{1,2})([-/.])(\d{1,2})\2(\d{4}|\d{2})$")
_DAY_MONTH_RE = re.compile(rf"^(\d{{1,2}})(?:st|nd|rd|th)?[\s.-]*({_MONTH})\.?[\s,.-]*(\d{{4}}|\d{{2}})$")
_MONTH_DAY_RE = re.compile(rf"^({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\s*,?\s*(\d{{4}})$")
_NUMBER_RE = re.compile(r"\d[\d,.']*\d|\d")


def _valid(year: int, month: int, day: int) -> str | None:
    if 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]:
        return f"{year:04d}-{month:02d}-{day:02d}"
    return None


def _year(text: str) -> int:
    year = int(text)
    if len(text) == 2:
        year += 2000 if year < TWO_DIGIT_YEAR_PIVOT else 1900
    return year


def as_date(text: str, *, month_first: bool = False) -> str | None:
    """The ISO date a whole (normalised) value writes, or None. Numeric dates are read day first
    unless only month first is valid, or month first (unless only day first is) with `month_first`."""
    if m := _ISO_RE.match(text):
        return _valid(int(m[1]), int(m[2]), int(m[3]))
    if m := _NUMERIC_RE.match(text):
        year = _year(m[4])
        day_first = _valid(year, int(m[3]), int(m[1]))
        month_first_date = _valid(year, int(m[1]), int(m[3]))
        return (month_first_date or day_first) if month_first else (day_first or month_first_date)
    if m := _DAY_MONTH_RE.match(text):
        return _valid(_year(m[3]), _MONTHS[m[2]], int(m[1]))
    if m := _MONTH_DAY_RE.match(text):
        return _valid(int(m[3]), _MONTHS[m[1]], int(m[2]))
    return None


def as_amount(text: str) -> Decimal | None:
    """The number a value holds, to the cent, when it holds exactly one (currency text ignored)."""
    numbers = list(_NUMBER_RE.finditer(text))
    if len(numbers) != 1:
        return None
    number = numbers[0].group(0).replace("'", "")
    separators = [c for c in number if c in ",."]
    if separators:
        last = separators[-1]
        head, tail = number.rsplit(last, 1)
        if len(set(separators)) == 1 and (len(separators) > 1 or (last == "," and len(tail) == 3)):
            number = number.replace(last, "")
        else:
            number = head.replace(",", "").replace(".", "") + "." + tail
    try:
        value = Decimal(number)
    except InvalidOperation:
        return None
    if "-" in text[: numbers[0].start()]:
        value = -value
    return value.quantize(Decimal("0.01"))


def normalize_text(value: str, *, kleister: bool = False) -> str:
    """NFKC, case-folded, whitespace collapsed, punctuation stripped at both ends."""
    text = unicodedata.normalize("NFKC", value)
    if kleister:
        text = text.replace("_", " ").replace(":", " ")
    text = " ".join(text.lower().split())
    start, end = 0, len(text)
    while start < end and (unicodedata.category(text[start]).startswith("P") or text[start].isspace()):
        start += 1
    while end > start and (unicodedata.category(text[end - 1]).startswith("P") or text[end - 1].isspace()):
        end -= 1
    return text[start:end]


def without_space_by_punctuation(text: str) -> str:
    """`text` with the whitespace beside each punctuation mark dropped (`12 /10 /98` -> `12/10/98`)."""
    out: list[str] = []
    for index, char in enumerate(text):
        if char.isspace():
            before = out[-1] if out else ""
            after = text[index + 1] if index + 1 < len(text) else ""
            if any(unicodedata.category(c).startswith("P") for c in (before, after) if c):
                continue
        out.append(char)
    return "".join(out)


def is_numeric_field(name: str, truth: Any) -> bool:
    """A field is numeric when its truth is a JSON number or its name is amount-like."""
    values = truth if isinstance(truth, list) else [truth]
    if any(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return True
    words = {w for w in re.split(r"[^a-z]+", name.lower()) if w}
    return bool(words & AMOUNT_NAME_WORDS)


def _values(raw: Any) -> list[Any]:
    if raw is None:
        return []
    values = raw if isinstance(raw, list) else [raw]
    return [v for v in values if v is not None and v != ""]


def is_phone_field(name: str) -> bool:
    return bool({w for w in re.split(r"[^a-z]+", name.lower()) if w} & PHONE_NAME_WORDS)


def is_gender_field(name: str) -> bool:
    return bool({w for w in re.split(r"[^a-z]+", name.lower()) if w} & GENDER_NAME_WORDS)


def canonical(
    value: Any,
    *,
    numeric: bool,
    checkbox: bool,
    kleister: bool,
    month_first: bool = False,
    phone: bool = False,
    tight: bool = False,
    gender: bool = False,
) -> tuple[str, str]:
    """One value as a comparable key: (kind, normalised form). `tight`: whitespace beside
    punctuation is dropped (`without_space_by_punctuation`); `gender`: `M`/`F` stand for their words."""
    if isinstance(value, bool):
        return ("bool", str(value).lower())
    if isinstance(value, int | float):
        return ("num", str(Decimal(str(value)).quantize(Decimal("0.01"))))
    text = normalize_text(str(value), kleister=kleister)
    spaced = text
    if tight:
        text = without_space_by_punctuation(text)
    if phone and (digits := "".join(c for c in text if c.isdigit())):
        return ("phone", digits)
    if gender and text in GENDER_LETTERS:
        return ("text", GENDER_LETTERS[text])
    if checkbox and (text in _TRUE or text in _FALSE):
        return ("bool", "true" if text in _TRUE else "false")
    # A date is read as written too: dropping the space after "Oct." must not unmake it.
    if iso := as_date(text, month_first=month_first) or as_date(spaced, month_first=month_first):
        return ("date", iso)
    # The amount is read before the end punctuation is stripped, so a leading minus survives; on
    # real forms after the spaces beside punctuation are dropped too ("221, 000" is 221000).
    if numeric:
        written = " ".join(unicodedata.normalize("NFKC", str(value)).split())
        amount = as_amount(written)
        if amount is None and tight:
            amount = as_amount(without_space_by_punctuation(written))
        if amount is not None:
            return ("num", str(amount))
    return ("text", text)


def value_set(
    raw: Any,
    *,
    numeric: bool,
    checkbox: bool,
    kleister: bool,
    month_first: bool = False,
    phone: bool = False,
    tight: bool = False,
    gender: bool = False,
) -> set[tuple[str, str]]:
    keys = {
        canonical(
            v,
            numeric=numeric,
            checkbox=checkbox,
            kleister=kleister,
            month_first=month_first,
            phone=phone,
            tight=tight,
            gender=gender,
        )
        for v in _values(raw)
    }
    return {k for k in keys if k[1] != ""}


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, other: Counts) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        denominator = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / denominator if denominator else 0.0


def score_field(name: str, truth: Any, predicted: Any, *, set_name: str) -> Counts:
    """TP, FP and FN of one document's field."""
    numeric = is_numeric_field(name, truth)
    checkbox = any(isinstance(v, bool) for v in _values(truth) + _values(predicted))
    rules: dict[str, Any] = {"numeric": numeric, "checkbox": checkbox, "kleister": set_name == KLEISTER_SET}
    if set_name in INTAKE_SETS:
        rules.update(month_first=True, phone=is_phone_field(name), gender=is_gender_field(name))
    if set_name == REALFORMS_SET:
        rules.update(month_first=True)
    if set_name in TIGHT_SETS:
        rules.update(tight=True)
    want = value_set(truth, **rules)
    got = value_set(predicted, **rules)
    return Counts(tp=len(want & got), fp=len(got - want), fn=len(want - got))


@dataclass
class Report:
    by_set: dict[str, Counts] = field(default_factory=dict)
    #: (set, layout kind) -> counts, for documents whose kind is known.
    by_kind: dict[tuple[str, str], Counts] = field(default_factory=dict)
    by_field: dict[tuple[str, str], Counts] = field(default_factory=dict)
    #: (split, design) -> counts, and (split, field) -> counts, for manifests whose documents
    #: name their design (`bench/synthetic_forms`: split is `dev` or `held_out`).
    by_design: dict[tuple[str, str], Counts] = field(default_factory=dict)
    by_split_field: dict[tuple[str, str], Counts] = field(default_factory=dict)
    overall: Counts = field(default_factory=Counts)
    #: (document id, field, truth, prediction) of every field not scored perfectly.
    misses: list[tuple[str, str, Any, Any]] = field(default_factory=list)
    hidden_misses: int = 0


def score(
    manifest: Iterable[Mapping[str, Any]],
    predictions: Mapping[str, Mapping[str, Any]],
    kinds: Mapping[str, str] | None = None,
) -> Report:
    """Micro P/R/F1 per (set, field), per set, per (set, layout kind) when `kinds` ({document id:
    kind}) is given, and overall. A document missing from `predictions` predicts null for every field."""
    report = Report()
    for doc in manifest:
        set_name = doc["set"]
        predicted = predictions.get(doc["id"]) or {}
        kind = (kinds or {}).get(doc["id"])
        for name in doc["field_names"]:
            counts = score_field(name, doc["fields"].get(name), predicted.get(name), set_name=set_name)
            report.by_field.setdefault((set_name, name), Counts()).add(counts)
            report.by_set.setdefault(set_name, Counts()).add(counts)
            if kind is not None:
                report.by_kind.setdefault((set_name, kind), Counts()).add(counts)
            if "design" in doc:
                split = doc.get("split", "")
                report.by_design.setdefault((split, doc["design"]), Counts()).add(counts)
                report.by_design.setdefault((split, "ALL"), Counts()).add(counts)
                report.by_split_field.setdefault((split, name), Counts()).add(counts)
            report.overall.add(counts)
            # A kept-back design is a test of generality: its misses are never shown, only counted.
            if (counts.fp or counts.fn) and is_kept_back(doc):
                report.hidden_misses += 1
            elif counts.fp or counts.fn:
                report.misses.append((doc["id"], name, doc["fields"].get(name), predicted.get(name)))
    return report


def is_kept_back(doc: Mapping[str, Any]) -> bool:
    """Whether a generated document's design is a test of generality, never tuned nor fitted on:
    the held-out split, or an unseen design the manifest marks `kept_back`."""
    return doc.get("split") == "held_out" or bool(doc.get("kept_back"))


#: Confidence bins of the expected calibration error: ten of equal width over 0..1.
CALIBRATION_BINS = 10
#: The threshold a clinic would auto-accept above; the report says how often such values are right.
HIGH_CONFIDENCE = 0.9


@dataclass
class Calibration:
    """How well the confidences of predicted values match how often they are right."""

    #: Predicted (non-empty) values scored, and how many of them were right.
    values: int = 0
    right: int = 0
    #: Expected calibration error: sum over bins of |accuracy - mean confidence| x the bin's share.
    ece: float = 0.0
    #: Values with confidence >= HIGH_CONFIDENCE, and how many of them were right.
    high: int = 0
    high_right: int = 0
    #: (bin lower edge, values, mean confidence, accuracy) per non-empty bin.
    bins: list[tuple[float, int, float, float]] = field(default_factory=list)

    @property
    def high_precision(self) -> float:
        return self.high_right / self.high if self.high else 0.0


def scored_values(
    manifest: Iterable[Mapping[str, Any]],
    predictions: Mapping[str, Mapping[str, Any]],
    confidences: Mapping[str, Mapping[str, float | None]],
) -> list[tuple[float, bool]]:
    """(confidence, right) of every predicted non-empty value that has a confidence: right when
    the field's prediction holds no value the truth lacks and at least one it has."""
    out: list[tuple[float, bool]] = []
    for doc in manifest:
        predicted = predictions.get(doc["id"]) or {}
        confidence = confidences.get(doc["id"]) or {}
        for name in doc["field_names"]:
            value, conf = predicted.get(name), confidence.get(name)
            if not _values(value) or conf is None:
                continue
            counts = score_field(name, doc["fields"].get(name), value, set_name=doc["set"])
            out.append((float(conf), counts.fp == 0 and counts.tp > 0))
    return out


def calibration(pairs: Iterable[tuple[float, bool]]) -> Calibration:
    """ECE over `CALIBRATION_BINS` equal bins, and the precision of values at or above HIGH_CONFIDENCE."""
    pairs = list(pairs)
    result = Calibration(values=len(pairs), right=sum(r for _, r in pairs))
    if not pairs:
        return result
    bins: dict[int, list[tuple[float, bool]]] = {}
    for conf, right in pairs:
        bins.setdefault(min(int(conf * CALIBRATION_BINS), CALIBRATION_BINS - 1), []).append((conf, right))
        if conf >= HIGH_CONFIDENCE:
            result.high += 1
            result.high_right += right
    for index in sorted(bins):
        members = bins[index]
        mean_conf = sum(c for c, _ in members) / len(members)
        accuracy = sum(r for _, r in members) / len(members)
        result.ece += abs(accuracy - mean_conf) * len(members) / len(pairs)
        result.bins.append((index / CALIBRATION_BINS, len(members), mean_conf, accuracy))
    return result
