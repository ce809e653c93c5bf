"""Calibrated confidence: how often a value found with this evidence is right, on the dev corpus.

A value's evidence is where its text came from (`form_fields`, `text_layer`, `ocr`), how it was
found (the strategy: a widget, `Label: value`, a label above, a whole name split, ...), whether it
passed its field's validator, whether it is a numeric date whose day and month could swap, and
whether the engine read its text with low confidence.
`calibration.json` holds, per evidence key, the share of right values that `bench/fit_calibration.py`
measured on the dev corpus (smoothed towards the shares of the broader keys); a key not in the
table falls back to the broader key, down to its strategy; evidence of a strategy the corpus
never showed keeps the strategy's prior. A value that fails its
validator is never returned as certain: at most `INVALID_CAP`; no value gets more than
`MAX_CONFIDENCE`.
"""

from __future__ import annotations

import json
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


@lru_cache(maxsize=1)
def _table() -> dict[str, float]:
    if not TABLE_PATH.exists():
        return {}
    data = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    return {str(k): float(v) for k, v in data.get("confidence", {}).items()}


def calibrated_confidence(key: str, prior: float, text_confidence: float = 1.0) -> float:
    """The confidence of a value whose evidence has table key `key`, 0..1.

    The most specific key the table holds gives it, as long as that key names the strategy; for
    evidence the corpus never showed, the strategy's `prior`. When the table has no figure for
    low-confidence text, the engine's own `text_confidence` scales the result.
    """
    table = _table()
    keys = evidence_keys(key)
    known = next((k for k in keys[:-1] if k in table), None)
    confidence = table[known] if known is not None else prior
    if text_confidence < 1.0 and (known is None or "low_text" not in known):
        confidence *= text_confidence
    if "|invalid" in key:
        confidence = min(confidence, INVALID_CAP)
    return round(max(min(confidence, MAX_CONFIDENCE), 0.0), 3)
