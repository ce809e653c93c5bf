"""Calibrated confidence: how often a value found with this evidence is right, on the dev corpus.

A value's evidence is where its text came from (`form_fields`, `text_layer`, `ocr`), how it was
found (the strategy: a widget, `Label: value`, a label above, a whole name split, ...), whether it
passed its field's validator, and whether it is a numeric date whose day and month could swap.
`calibration.json` holds, per evidence key, the share of right values that `bench/fit_calibration.py`
measured on the dev corpus (smoothed towards the shares of the broader keys); a key not in the
table falls back to the broader key, then to `DEFAULT_CONFIDENCE`. A value that fails its
validator is never returned as certain: at most `INVALID_CAP`; no value gets more than
`MAX_CONFIDENCE`.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

TABLE_PATH = Path(__file__).with_name("calibration.json")
#: Confidence of evidence the table has never seen.
DEFAULT_CONFIDENCE = 0.5
#: Highest confidence of a value that fails its field's validator.
INVALID_CAP = 0.5
#: Highest confidence of any value: a corpus where every value of a kind was right does not make
#: the next one certain.
MAX_CONFIDENCE = 0.99


def evidence_keys(source: str | None, strategy: str, valid: bool | None, ambiguous: bool) -> list[str]:
    """The table keys of one value's evidence, most specific first."""
    check = {True: "valid", False: "invalid", None: "unchecked"}[valid]
    specific = f"{source}|{strategy}|{check}" + ("|ambiguous" if ambiguous else "")
    return [specific, f"{source}|{strategy}|{check}", f"{source}|{strategy}", f"{source}"]


@lru_cache(maxsize=1)
def _table() -> dict[str, float]:
    if not TABLE_PATH.exists():
        return {}
    data = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    return {str(k): float(v) for k, v in data.get("confidence", {}).items()}


def calibrated_confidence(
    source: str | None, strategy: str, valid: bool | None, ambiguous: bool = False
) -> float:
    """The confidence of a value found with this evidence, 0..1."""
    table = _table()
    confidence = next(
        (table[k] for k in evidence_keys(source, strategy, valid, ambiguous) if k in table), None
    )
    if confidence is None:
        confidence = DEFAULT_CONFIDENCE
    if valid is False:
        confidence = min(confidence, INVALID_CAP)
    return round(min(confidence, MAX_CONFIDENCE), 3)
