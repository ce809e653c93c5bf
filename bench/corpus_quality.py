"""Extraction quality on the evaluation corpus: micro P/R/F1 per set and per field.

Two ways to get predictions for every manifest document:

  --url URL --api-key KEY   through the HTTP API, as corpus/README.md describes: upload with
                            POST /api/v2/files, then POST /api/v2/extract/sync with prompt_mode
                            "rules"; a failed call predicts null for every field.
  --in-process              extraction.formats.engines.parse_bytes, then extraction.fields.extract_fields.
                            Without the engines (or with --dev-loader) documents come from the
                            DEV-ONLY bench/_dev_documents.py, and the report says so.

Besides P/R/F1 per set and field, it prints them per layout kind (fillable: a PDF with form
widgets; flat: a PDF with a text layer; scan: an image, or a PDF without text), told from the
document itself, and how well the confidences are calibrated: the expected calibration error over
the predicted values, and how often values with confidence >= 0.9 are right.

Usage: python -m bench.corpus_quality --in-process [--set intake] [--half even|odd] [--misses] [--out pred.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.corpus_score import (
    HIGH_CONFIDENCE,
    Calibration,
    Counts,
    Report,
    calibration,
    score,
    scored_values,
)


def _default_corpus() -> Path:
    """`shared/corpus` beside the repository or beside any folder above it (a worktree of it)."""
    for folder in Path(__file__).resolve().parents[1:]:
        candidate = folder.parent / "shared" / "corpus"
        if (candidate / "manifest.jsonl").exists():
            return candidate
    return Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


DEFAULT_CORPUS = _default_corpus()
#: Per-call HTTP timeout: OCR of a large scan can take a while on a small machine.
HTTP_TIMEOUT_SECONDS = 300.0

#: A document's predicted values and their confidences (None where the path gives none).
Prediction = tuple[dict[str, Any], dict[str, float | None]]
Predictor = Callable[[dict[str, Any], Path], Prediction]
#: Layout kinds: how the document carries its text.
FILLABLE, FLAT, SCAN = "fillable", "flat", "scan"
#: A PDF with fewer visible characters than this is a scan (as the PDF engine decides).
MIN_TEXT_CHARS = 16


def layout_kind(path: Path) -> str:
    """fillable (PDF with form widgets), flat (PDF with a text layer) or scan (anything else)."""
    if path.suffix.lower() != ".pdf":
        return SCAN
    import pymupdf

    with pymupdf.open(path) as pdf:  # type: ignore[no-untyped-call]
        if any(True for page in pdf for _ in page.widgets()):
            return FILLABLE
        chars = sum(len("".join(page.get_text().split())) for page in pdf)
    return FLAT if chars >= MIN_TEXT_CHARS else SCAN


def load_manifest(corpus: Path) -> list[dict[str, Any]]:
    lines = (corpus / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def half(manifest: list[dict[str, Any]], which: str) -> list[dict[str, Any]]:
    """Every other document of each set by sorted id: `even` the 1st, 3rd, ...; `odd` the rest."""
    chosen: list[dict[str, Any]] = []
    for set_name in sorted({d["set"] for d in manifest}):
        ordered = sorted((d for d in manifest if d["set"] == set_name), key=lambda d: d["id"])
        chosen.extend(ordered[0 if which == "even" else 1 :: 2])
    return chosen


def http_predictor(url: str, api_key: str) -> Predictor:
    import httpx

    client = httpx.Client(
        base_url=url.rstrip("/"), headers={"Authorization": f"Bearer {api_key}"}, timeout=HTTP_TIMEOUT_SECONDS
    )

    def predict(doc: dict[str, Any], path: Path) -> Prediction:
        try:
            with path.open("rb") as fh:
                upload = client.post("/api/v2/files", files={"file": (path.name, fh)})
            upload.raise_for_status()
            body = {
                "input": upload.json()["file_id"],
                "extraction_config": {
                    "output_format": "json",
                    "json_options": doc["field_names"],
                    "prompt_mode": "rules",
                },
            }
            reply = client.post("/api/v2/extract/sync", json=body)
            reply.raise_for_status()
            result = reply.json().get("result") or {}
            data = result.get("data")
            if data is None and result.get("content"):
                data = json.loads(result["content"])
            fields = result.get("fields") or {}
            confidences = {
                name: item.get("confidence") for name, item in fields.items() if isinstance(item, dict)
            }
            return (data if isinstance(data, dict) else {}), confidences
        except (httpx.HTTPError, ValueError, KeyError) as exc:
            print(f"  {doc['id']}: call failed ({type(exc).__name__}); every field counts as null")
            return {}, {}

    return predict


def _cached(parse: Callable[[Path], Any], cache: Path) -> Callable[[Path], Any]:
    """`parse`, with each document's result kept in `cache` by the file's sha256 (a development
    speed-up when only field extraction changes: empty the folder after changing an engine)."""
    import hashlib
    import pickle

    cache.mkdir(parents=True, exist_ok=True)

    def parse_cached(path: Path) -> Any:
        entry = cache / (hashlib.sha256(path.read_bytes()).hexdigest() + ".pickle")
        if entry.exists():
            return pickle.loads(entry.read_bytes())
        document = parse(path)
        entry.write_bytes(pickle.dumps(document))
        return document

    return parse_cached


def in_process_predictor(force_dev_loader: bool, parse_cache: Path | None = None) -> tuple[Predictor, str]:
    from extraction.fields import extract_fields

    parse: Callable[[Path], Any]
    try:
        if force_dev_loader:
            raise ImportError("--dev-loader")
        from extraction.formats.engines import parse_bytes  # type: ignore[import-not-found, unused-ignore]

        def parse(path: Path) -> Any:
            return parse_bytes(path.read_bytes(), path.name)

        label = "engines (extraction.formats.engines.parse_bytes)"
    except ImportError:
        from bench._dev_documents import load_document

        parse = load_document
        label = "DEV LOADER (bench/_dev_documents.py: corpus OCR lines and raw PyMuPDF), not the engines"
    if parse_cache is not None:
        parse = _cached(parse, parse_cache)
        label += f", parses cached in {parse_cache}"

    def predict(doc: dict[str, Any], path: Path) -> Prediction:
        try:
            document = parse(path)
        except Exception as exc:
            # As over HTTP: a document that cannot be parsed predicts null for every field.
            print(f"  {doc['id']}: parse failed ({type(exc).__name__}); every field counts as null")
            return {}, {}
        results = extract_fields(document, doc["field_names"], file_name=path.name)
        return (
            {name: result.value for name, result in results.items()},
            {name: result.confidence for name, result in results.items()},
        )

    return predict, label


def _row(name: str, c: Counts) -> str:
    return f"{name:<48} {c.precision:6.3f} {c.recall:6.3f} {c.f1:6.3f}   {c.tp:4d} {c.fp:4d} {c.fn:4d}"


def print_report(report: Report, cal: Calibration, *, show_misses: bool) -> None:
    header = f"{'':<48} {'P':>6} {'R':>6} {'F1':>6}   {'TP':>4} {'FP':>4} {'FN':>4}"
    print("\nper set")
    print(header)
    for set_name, counts in sorted(report.by_set.items()):
        print(_row(set_name, counts))
    print(_row("OVERALL", report.overall))
    print("\nper set and layout kind")
    print(header)
    for (set_name, kind), counts in sorted(report.by_kind.items()):
        print(_row(f"{set_name}/{kind}", counts))
    print(
        f"\ncalibration: {cal.values} predicted values, {cal.right} right; "
        f"expected calibration error {cal.ece:.3f}; "
        f"confidence >= {HIGH_CONFIDENCE}: {cal.high} values, {cal.high_precision:.3f} right"
    )
    print(f"{'bin':>6} {'values':>7} {'mean conf':>10} {'accuracy':>9}")
    for lower, n, mean_conf, accuracy in cal.bins:
        print(f"{lower:6.1f} {n:7d} {mean_conf:10.3f} {accuracy:9.3f}")
    if report.by_design:
        print("\nper split and design")
        print(header)
        for (split, design), counts in sorted(report.by_design.items()):
            print(_row(f"{split}/{design}", counts))
        print("\nper split and field")
        print(header)
        for (split, name), counts in sorted(report.by_split_field.items()):
            print(_row(f"{split}/{name}", counts))
    print("\nper field")
    print(header)
    for (set_name, name), counts in sorted(report.by_field.items()):
        print(_row(f"{set_name}/{name}"[:48], counts))
    if show_misses:
        print("\nmisses (document, field, truth, prediction)")
        for doc_id, name, truth, predicted in report.misses:
            print(f"  {doc_id} {name}: {truth!r} <> {predicted!r}")
        if report.hidden_misses:
            print(f"  ({report.hidden_misses} misses of kept-back designs not shown)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--url", help="base URL of a running service, e.g. http://127.0.0.1:8000")
    mode.add_argument("--in-process", action="store_true")
    parser.add_argument("--api-key", help="workspace API key (with --url)")
    parser.add_argument("--dev-loader", action="store_true", help="in-process: use the DEV-ONLY loader")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--set", action="append", dest="sets", help="only this set (repeatable)")
    parser.add_argument("--misses", action="store_true", help="list every field not scored perfectly")
    parser.add_argument("--out", type=Path, help="write the predictions as JSON here")
    parser.add_argument(
        "--parse-cache", type=Path, help="in-process, DEV: keep parsed documents here between runs"
    )
    parser.add_argument(
        "--half",
        choices=("even", "odd"),
        help="only every other document of each set by sorted id: even = 1st, 3rd, ... (a dev "
        "half to tune on), odd = 2nd, 4th, ... (kept back to check generalisation)",
    )
    args = parser.parse_args(argv)

    if args.url:
        if not args.api_key:
            parser.error("--url needs --api-key")
        predict, label = http_predictor(args.url, args.api_key), f"HTTP {args.url}"
    else:
        predict, label = in_process_predictor(args.dev_loader, args.parse_cache)

    manifest = [d for d in load_manifest(args.corpus) if not args.sets or d["set"] in args.sets]
    if args.half:
        manifest = half(manifest, args.half)
    print(f"documents: {len(manifest)}; predictions from: {label}")
    predictions: dict[str, dict[str, Any]] = {}
    confidences: dict[str, dict[str, float | None]] = {}
    kinds: dict[str, str] = {}
    started = time.perf_counter()
    for doc in manifest:
        if not doc["field_names"]:
            continue
        path = args.corpus / doc["path"]
        predictions[doc["id"]], confidences[doc["id"]] = predict(doc, path)
        kinds[doc["id"]] = layout_kind(path)
    print(f"time: {time.perf_counter() - started:.1f} s")
    if args.out:
        out = {"predictions": predictions, "confidences": confidences}
        args.out.write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")
    cal = calibration(scored_values(manifest, predictions, confidences))
    print_report(score(manifest, predictions, kinds), cal, show_misses=args.misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
