"""Bench and calibration of example reading (issue 37): per design and form, and the confidence fit.

Reads later documents of taught designs with their example and keeps, for every value an example
read, what it rests on (`extraction.examples.confidence.Evidence`) and whether it is right (scored
as `corpus_score.py` does). Designs: `bench/example_designs.py` (written for this and kept back;
person 0's PDF taught, later people read as PDFs, flattened PDFs for fillable designs, scans and
phone photos) and the corpus's `realdesigns` (each form taught from its fillable PDF, its flattened
and scanned documents read). Prints F1 per design and form with and without the example, every
miss (`--errors`), then judges the confidence model by leaving one design out: fitted on the other
designs' reads, applied to the held-out design's, reporting the share right of values at >= 0.9
and the share of right values that reach 0.9. `--write` fits on every design and writes
`extraction/examples/confidence.json`.

Parsed documents are cached under `--cache` (OCR is the slow part), keyed by the bytes.

    PYTHONPATH=. .venv/bin/python -m bench.fit_example_confidence --people 3 --scans 3 --errors
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.corpus_score import Counts, score_field
from bench.example_designs import DESIGNS, FILLABLE, render
from bench.examples import CORPUS, SET, _pdf_bytes, _taught
from bench.synthetic_forms.canvas import scan
from bench.synthetic_forms.generate import FIELD_NAMES
from extraction.examples import Taught, read_with_examples
from extraction.examples.confidence import (
    CEILING,
    COEFFICIENTS,
    FEATURES,
    FLOOR,
    UNSEEN_CAP,
    Evidence,
    features,
    probability,
)
from extraction.fields import FieldResult, extract_fields
from extraction.formats.document import Document
from extraction.formats.engines import parse_bytes

#: L2 penalty of the logistic fit (on every weight but the bias): few designs, keep it smooth.
PENALTY = 1.0
HIGH = 0.9


@dataclass
class Read:
    design: str
    form: str
    field: str
    truth: Any
    value: Any
    right: bool
    evidence: Evidence


def parsed(data: bytes, name: str, cache: Path) -> Document:
    key = cache / f"{hashlib.sha256(data).hexdigest()[:24]}-{name}.pickle"
    if key.exists():
        cached: Document = pickle.loads(key.read_bytes())  # our own cache of our own parses
        return cached
    doc = parse_bytes(data, name)
    key.write_bytes(pickle.dumps(doc))
    return doc


def documents(
    people: int, scans: int, cache: Path, faxes: int = 0
) -> list[tuple[str, str, Document, dict[str, Any], list[str]]]:
    """(design, form, document, truth, field names) of every later document; the taught one of
    each design first, as form `taught`."""
    out = []
    for design in DESIGNS:
        first = next(n for n in range(50) if all(render(design, n)[1].truth().get(f) for f in FIELD_NAMES))
        pdf, patient = render(design, first)
        out.append((design, "taught", parsed(_pdf_bytes(pdf), "t.pdf", cache), patient.truth(), FIELD_NAMES))
        forms = ["pdf"] * people + (["flat"] * people if design in FILLABLE else []) + ["scan"] * scans
        forms += ["photo"] * scans + ["fax"] * faxes
        for n, form in enumerate(forms, start=1):
            pdf, patient = render(design, 100 + n)
            rng = random.Random(f"scan:{design}:{n}")
            if form == "flat":
                pdf.bake()
            if form in ("pdf", "flat"):
                data, name = _pdf_bytes(pdf), "d.pdf"
            elif form in ("scan", "fax"):
                data, name = scan(pdf[0], rng, "png", fax=form == "fax"), "d.png"
            else:
                data, name = scan(pdf[0], rng, "jpg", photo=True), "d.jpg"
            out.append((design, form, parsed(data, name, cache), patient.truth(), FIELD_NAMES))
    manifest = [json.loads(line) for line in (CORPUS / "manifest.jsonl").read_text().splitlines() if line]
    by_design: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for doc in manifest:
        if doc["set"] == "realdesigns":
            by_design[doc["design"]].append(doc)
    for design, docs in by_design.items():
        short = "real:" + design.split("/")[-1].removesuffix(".pdf")[:22]
        for doc in sorted(docs, key=lambda d: "rendering acroform" not in d["source"]):
            rendering = doc["source"].split("rendering ")[-1]
            form = "taught" if rendering == "acroform" else rendering.split("/")[0]
            data = (CORPUS / doc["path"]).read_bytes()
            out.append((short, form, parsed(data, "r.pdf", cache), doc["fields"], doc["field_names"]))
    return out


def bench(docs: list[tuple[str, str, Document, dict[str, Any], list[str]]], errors: bool) -> list[Read]:
    reads: list[Read] = []
    table: dict[tuple[str, str], tuple[Counts, Counts]] = {}
    examples: dict[str, Taught] = {}
    missed: list[str] = []
    for design, form, doc, truth, names in docs:
        if form == "taught":
            taught, dropped, _ = _taught(doc, truth, names)
            examples[design] = taught
            if dropped:
                print(f"taught {design}: not found {dropped}")
            continue
        evidence: dict[str, Evidence] = {}
        found = read_with_examples(
            doc, names, file_name="d", examples=[(design, examples[design])], evidence=evidence
        )
        plain = extract_fields(doc, names, file_name="d")
        ex, none = table.setdefault((design, form), (Counts(), Counts()))
        for name in names:
            one = score_field(name, truth.get(name), found[name].value, set_name=SET)
            ex.add(one)
            none.add(score_field(name, truth.get(name), plain[name].value, set_name=SET))
            right = one.fp == 0 and one.fn == 0
            if name in evidence:
                reads.append(
                    Read(design, form, name, truth.get(name), found[name].value, right, evidence[name])
                )
            if not right:
                missed.append(_miss(design, form, name, truth.get(name), found[name], evidence.get(name)))
    print(f"\n{'design':<30}{'form':<7}{'F1 ex':>7}{'F1 none':>9}")
    for (design, form), (ex, none) in table.items():
        print(f"{design:<30}{form:<7}{ex.f1:>7.3f}{none.f1:>9.3f}")
    if errors:
        print("\nmisses with the example (design/form, field, truth, read, confidence, by example):")
        print("\n".join(missed))
    return reads


def _miss(design: str, form: str, name: str, truth: Any, got: FieldResult, why: Evidence | None) -> str:
    by = "example" if why is not None else ("example:null" if got.example_id else "rules")
    return f"  {design + '/' + form:<36}{name:<19}{truth!r:<26}{got.value!r:<30}{got.confidence:.3f} {by}"


def fit(reads: list[Read]) -> np.ndarray:
    """Logistic regression, L2 on all weights but the bias, every feature but the bias a doubt:
    one whose fitted weight comes out positive (more doubt, more confidence: an accident of few
    designs) is dropped and the rest refitted, so the model never rewards doubt."""
    x = np.array([features(r.evidence) for r in reads])
    y = np.array([1.0 if r.right else 0.0 for r in reads])
    kept = np.ones(x.shape[1], dtype=bool)
    while True:
        w = np.zeros(x.shape[1])
        w[kept] = _newton(x[:, kept], y)
        wrong_sign = (w > 0) & (np.arange(len(w)) > 0)
        if not wrong_sign.any():
            return w
        kept &= ~wrong_sign


def _newton(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    w = np.zeros(x.shape[1])
    w[0] = 3.0
    penalty = np.full(x.shape[1], PENALTY)
    penalty[0] = 1e-3
    for _ in range(100):
        p = 1 / (1 + np.exp(-np.clip(x @ w, -40, 40)))
        grad = x.T @ (p - y) + penalty * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def judge(reads: list[Read]) -> None:
    designs = sorted({r.design for r in reads})
    held: list[tuple[Read, float]] = []
    print(f"\nleave one design out ({len(reads)} example reads, {sum(not r.right for r in reads)} wrong):")
    print(f"{'held-out design':<30}{'reads':>6}{'wrong':>6}{'>=0.9 right':>13}{'right reach 0.9':>17}")
    for design in designs:
        w = fit([r for r in reads if r.design != design])
        others = np.array([features(r.evidence) for r in reads if r.design != design]).max(axis=0)
        mine = [(r, _gated(w, others, r.evidence)) for r in reads if r.design == design]
        held.extend(mine)
        _line(design, mine)
    _line("all (held out)", held)
    _line("old formula", [(r, _old(r.evidence)) for r in reads])


def _gated(w: np.ndarray, seen: np.ndarray, evidence: Evidence) -> float:
    """`confidence.confidence` with the weights and seen doubt of a fit in hand."""
    chance = min(max(probability(list(w), evidence), FLOOR), CEILING)
    return min(chance, UNSEEN_CAP) if (np.array(features(evidence)) > seen + 1e-9).any() else chance


def _line(label: str, scored: list[tuple[Read, float]]) -> None:
    high = [r.right for r, p in scored if p >= HIGH]
    right = [p >= HIGH for r, p in scored if r.right]
    print(
        f"{label:<30}{len(scored):>6}{sum(not r.right for r, _ in scored):>6}"
        f"{f'{sum(high)}/{len(high)}':>13}{f'{sum(right)}/{len(right)}':>17}"
    )


def _old(e: Evidence) -> float:
    """The hand formula the fit replaces, for comparison."""
    match = min(max((e.match - 0.5) / 0.5, 0.0), 1.0)
    kind = 1.0 if e.kind in ("date", "phone", "zip", "email", "amount", "choice") else 0.97
    return 0.5 + 0.49 * match * e.text**3 * kind


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=3, help="later PDFs (and flattened) per design")
    parser.add_argument("--scans", type=int, default=2, help="scans and phone photos each per design")
    parser.add_argument("--faxes", type=int, default=0, help="faxed copies per design")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/agentry-example-parses"))
    parser.add_argument("--errors", action="store_true", help="print every field missed")
    parser.add_argument("--write", action="store_true", help=f"fit on all and write {COEFFICIENTS.name}")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    print(f"load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())} on {os.cpu_count()} cores")
    reads = bench(documents(args.people, args.scans, args.cache, args.faxes), args.errors)
    judge(reads)
    if args.write:
        w = fit(reads)
        seen = np.array([features(r.evidence) for r in reads]).max(axis=0)
        data = {
            "features": list(FEATURES),
            "weights": [round(float(v), 4) for v in w],
            "seen": [round(float(v), 4) for v in seen],
            "reads": len(reads),
            "wrong": sum(not r.right for r in reads),
            "designs": sorted({r.design for r in reads}),
        }
        COEFFICIENTS.write_text(json.dumps(data, indent=1) + "\n")
        print(
            f"wrote {COEFFICIENTS}: " + ", ".join(f"{n} {v:+.2f}" for n, v in zip(FEATURES, w, strict=True))
        )
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
