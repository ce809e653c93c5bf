"""Fit the confidence table of `extraction/fields/calibration.json` on the dev corpus.

Every value rules extraction returns carries the key of its evidence (`source|strategy|validator
outcome[|ambiguous]`, see `extraction/fields/calibration.py`). This script extracts every corpus
document in process (rules only), scores each predicted value against the truth exactly as
`corpus_score.py` does, and writes, for the key and each broader key, the share of right values,
smoothed towards the broader key's share (`PRIOR_STRENGTH` pseudo-values), so rare evidence does
not get a confident figure from a handful of lucky values.

Usage: python -m bench.fit_calibration [--set intake] [--parse-cache DIR] [--dry-run]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.corpus_quality import DEFAULT_CORPUS, _cached, load_manifest
from bench.corpus_score import _values, score_field
from extraction.fields.calibration import evidence_keys

#: Pseudo-values of the broader key's share mixed into each key's share.
PRIOR_STRENGTH = 4.0
TABLE = Path(__file__).resolve().parents[1] / "extraction" / "fields" / "calibration.json"


def levels(evidence: str) -> list[str]:
    """The keys of one evidence string, broadest first: source, source|strategy, ... full."""
    return evidence_keys(evidence)[::-1]


def fit(pairs: list[tuple[str, bool]]) -> dict[str, float]:
    """The smoothed share of right values per evidence key and each broader key."""
    right: dict[str, int] = defaultdict(int)
    seen: dict[str, int] = defaultdict(int)
    for evidence, ok in pairs:
        for key in levels(evidence):
            seen[key] += 1
            right[key] += ok
    overall = (sum(ok for _, ok in pairs) + 1) / (len(pairs) + 2)
    table: dict[str, float] = {}
    for key in sorted(seen, key=lambda k: k.count("|")):
        parent = table.get(key.rsplit("|", 1)[0], overall) if "|" in key else overall
        table[key] = round((right[key] + PRIOR_STRENGTH * parent) / (seen[key] + PRIOR_STRENGTH), 3)
    return table


def collect(manifest: list[dict[str, Any]], corpus: Path, parse_cache: Path | None) -> list[tuple[str, bool]]:
    from extraction.fields import extract_fields
    from extraction.formats.engines import parse_bytes

    def parse(path: Path) -> Any:
        return parse_bytes(path.read_bytes(), path.name)

    reader = _cached(parse, parse_cache) if parse_cache is not None else parse
    pairs: list[tuple[str, bool]] = []
    for doc in manifest:
        if not doc["field_names"]:
            continue
        path = corpus / doc["path"]
        try:
            document = reader(path)
        except Exception as exc:
            print(f"  {doc['id']}: parse failed ({type(exc).__name__})")
            continue
        for name, result in extract_fields(document, doc["field_names"], file_name=path.name).items():
            if not _values(result.value) or result.evidence is None:
                continue
            counts = score_field(name, doc["fields"].get(name), result.value, set_name=doc["set"])
            pairs.append((result.evidence, counts.fp == 0 and counts.tp > 0))
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--set", action="append", dest="sets", help="only this set (repeatable)")
    parser.add_argument("--parse-cache", type=Path, help="DEV: keep parsed documents here between runs")
    parser.add_argument("--dry-run", action="store_true", help="print the table, do not write it")
    args = parser.parse_args(argv)
    manifest = [d for d in load_manifest(args.corpus) if not args.sets or d["set"] in args.sets]
    pairs = collect(manifest, args.corpus, args.parse_cache)
    table = fit(pairs)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for evidence, ok in pairs:
        counts[evidence][0] += 1
        counts[evidence][1] += ok
    for key in sorted(counts):
        n, ok = counts[key]
        print(f"{key:<48} {n:5d} values {ok / n:6.3f} right -> {table[key]:.3f}")
    if not args.dry_run:
        data = {
            "fitted": datetime.now(UTC).strftime("%Y-%m-%d"),
            "corpus": "dev corpus, sets: " + ", ".join(sorted({d["set"] for d in manifest})),
            "values": len(pairs),
            "prior_strength": PRIOR_STRENGTH,
            "confidence": table,
        }
        TABLE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {TABLE} ({len(table)} keys from {len(pairs)} values)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
