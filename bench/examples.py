"""Teach a form once (issue 37): examples taught from one document, scored on the rest.

For each design of `bench/example_designs.py` (written for this bench and kept back): person 0's
PDF is taught (its truth as the corrected values), then the next people of the design are read
with every taught example, as PDFs (`--people`), scans and phone photos (`--scans` of each); F1
per design and form, against the same documents read without examples, and the share right of
example-read values at confidence >= 0.9. Documents of untaught designs (`bench.synthetic_forms`'
held-out designs) are read with the same examples and must score no lower than without. Cost:
field reading time per document with 0 and 100 examples (taught from generated documents of every
synthetic design), and teaching time beyond the parse. `--real` adds `../shared/corpus/realdesigns`:
each form taught from its fillable PDF, its flattened and scanned documents scored (measured only).

    .venv/bin/python bench/examples.py                     # small: 3 designs, ~6 OCR'd pages
    .venv/bin/python bench/examples.py --people 6 --scans 2 --real
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from collections import defaultdict
from typing import Any

from bench.corpus_quality import DEFAULT_CORPUS
from bench.corpus_score import Counts, score_field
from bench.example_designs import DESIGNS, render
from bench.synthetic_forms.canvas import scan
from bench.synthetic_forms.generate import ALL_DESIGNS, FIELD_NAMES, HELD_OUT_DESIGNS
from bench.synthetic_forms.generate import render as render_synthetic
from extraction.examples import Taught, ValuesNotFound, read_with_examples, teach
from extraction.fields import FieldResult, extract_fields
from extraction.formats.document import Document
from extraction.formats.engines import parse_bytes

SET = "synthetic_intake"
CORPUS = DEFAULT_CORPUS


def _taught(
    doc: Document, truth: dict[str, Any], names: list[str] = FIELD_NAMES
) -> tuple[Taught, list[str], float]:
    """`doc` taught with `truth`; fields whose value is not found are left out (and named)."""
    values = {name: truth.get(name) or None for name in names}
    dropped: list[str] = []
    started = time.perf_counter()
    while True:
        try:
            return teach(doc, values), dropped, time.perf_counter() - started
        except ValuesNotFound as missing:
            dropped.extend(missing.fields)
            values = {n: v for n, v in values.items() if n not in missing.fields}


#: Per-field misses of example reading, printed with `--errors`: (where, field, truth, read).
ERRORS: list[tuple[str, str, Any, FieldResult]] = []


def _score(
    truth: dict[str, Any], found: dict[str, FieldResult], names: list[str], where: str = ""
) -> tuple[Counts, list[bool]]:
    counts = Counts()
    sure: list[bool] = []
    for name in names:
        one = score_field(name, truth.get(name), found[name].value, set_name=SET)
        counts.add(one)
        if where and (one.fp or one.fn):
            ERRORS.append((where, name, truth.get(name), found[name]))
        if (
            found[name].example_id is not None
            and found[name].value is not None
            and found[name].confidence >= 0.9
        ):
            sure.append(one.fp == 0 and one.fn == 0)
    return counts, sure


def _pdf_bytes(pdf: Any) -> bytes:
    pdf.set_metadata({"producer": "bench.examples", "creationDate": "", "modDate": ""})
    return bytes(pdf.tobytes(garbage=3, deflate=True, no_new_id=True))


def designs_bench(people: int, scans: int) -> tuple[list[tuple[str, Taught]], list[float]]:
    examples: list[tuple[str, Taught]] = []
    teach_times: list[float] = []
    for design in DESIGNS:
        # The reviewer corrects a document that answers every field: a null taught says the
        # design has no place for the value.
        first = next(n for n in range(50) if all(render(design, n)[1].truth().get(f) for f in FIELD_NAMES))
        pdf, patient = render(design, first)
        taught, dropped, spent = _taught(parse_bytes(_pdf_bytes(pdf), "t.pdf"), patient.truth())
        teach_times.append(spent)
        examples.append((design, taught))
        print(f"taught {design}: {spent * 1000:.0f} ms beyond the parse; not found: {dropped or 'none'}")
    print(f"\n{'design':<16}{'form':<7}{'docs':>5}{'F1 ex':>8}{'F1 none':>9}{'>=0.9 right':>13}")
    for design in DESIGNS:
        rows: dict[str, list[tuple[Counts, Counts, list[bool]]]] = defaultdict(list)
        for person in range(1, 1 + people + 2 * scans):
            pdf, patient = render(design, 100 + person)
            rng = random.Random(f"scan:{design}:{person}")
            if person <= people:
                form, data, name = "pdf", _pdf_bytes(pdf), "d.pdf"
            elif person <= people + scans:
                form, data, name = "scan", scan(pdf[0], rng, "png"), "d.png"
            else:
                form, data, name = "photo", scan(pdf[0], rng, "jpg", photo=True), "d.jpg"
            doc = parse_bytes(data, name)
            truth = patient.truth()
            with_ex, sure = _score(
                truth,
                read_with_examples(doc, FIELD_NAMES, file_name=name, examples=examples),
                FIELD_NAMES,
                f"{design}/{form}/{person}",
            )
            without, _ = _score(truth, extract_fields(doc, FIELD_NAMES, file_name=name), FIELD_NAMES)
            rows[form].append((with_ex, without, sure))
        for form, items in rows.items():
            ex, none = Counts(), Counts()
            sure_all: list[bool] = []
            for a, b, s in items:
                ex.add(a)
                none.add(b)
                sure_all.extend(s)
            right = f"{sum(sure_all)}/{len(sure_all)}"
            print(f"{design:<16}{form:<7}{len(items):>5}{ex.f1:>8.3f}{none.f1:>9.3f}{right:>13}")
    return examples, teach_times


def untaught_bench(examples: list[tuple[str, Taught]], count: int) -> None:
    ex, none = Counts(), Counts()
    settled = 0
    for n in range(count):
        design = list(HELD_OUT_DESIGNS)[n % len(HELD_OUT_DESIGNS)]
        data, suffix, truth = render_synthetic(design, random.Random(f"untaught:{n}:{design}"))
        if suffix != "pdf":
            continue
        doc = parse_bytes(data, f"u.{suffix}")
        found = read_with_examples(doc, FIELD_NAMES, file_name="u.pdf", examples=examples)
        settled += sum(r.example_id is not None for r in found.values())
        ex.add(_score(truth, found, FIELD_NAMES)[0])
        none.add(_score(truth, extract_fields(doc, FIELD_NAMES, file_name="u.pdf"), FIELD_NAMES)[0])
    print(
        f"\nuntaught designs (held-out synthetic PDFs): F1 with examples {ex.f1:.3f}, without {none.f1:.3f}; values read by an example: {settled}"
    )


def cost_bench(base: list[tuple[str, Taught]], total: int, groups: dict[str, list[Document]]) -> None:
    """Field reading time with no examples and with `total`, per group of documents. The extra
    examples are taught from every synthetic design but the held-out ones, so held-out documents
    match none of them: their time with examples is the pure cost of trying them."""
    examples = list(base)
    names = [n for n in ALL_DESIGNS if n not in HELD_OUT_DESIGNS]
    n = 0
    teach_times: list[float] = []
    while len(examples) < total:
        design = names[n % len(names)]
        data, suffix, truth = render_synthetic(design, random.Random(f"cost:{n}:{design}"))
        n += 1
        if suffix != "pdf":
            continue
        taught, _, spent = _taught(parse_bytes(data, "c.pdf"), truth)
        teach_times.append(spent)
        examples.append((f"{design}-{n}", taught))

    def once(run: Any, docs: list[Document]) -> float:
        started = time.perf_counter()
        for doc in docs:
            run(doc)
        return (time.perf_counter() - started) / len(docs)

    print(
        f"\ncost per document, field reading (parse excluded), best of 5 interleaved: 0 vs {len(examples)} examples"
    )
    for group, docs in groups.items():
        # Interleaved rounds, so a warm cache or a busy moment of the machine falls on both sides.
        plain_times: list[float] = []
        many_times: list[float] = []
        for _ in range(5):
            plain_times.append(once(lambda d: extract_fields(d, FIELD_NAMES, file_name="x.pdf"), docs))
            many_times.append(
                once(lambda d: read_with_examples(d, FIELD_NAMES, file_name="x.pdf", examples=examples), docs)
            )
        plain, many = min(plain_times), min(many_times)
        print(
            f"  {group} ({len(docs)} PDFs): {plain * 1000:.1f} ms vs {many * 1000:.1f} ms ({many / plain:.2f}x)"
        )
    print(
        f"teaching beyond the parse over {len(teach_times)} documents: median {statistics.median(teach_times) * 1000:.0f} ms, "
        f"max {max(teach_times) * 1000:.0f} ms"
    )


def real_bench() -> None:
    manifest = [
        json.loads(line) for line in (CORPUS / "manifest.jsonl").read_text().splitlines() if line.strip()
    ]
    by_design: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for doc in manifest:
        if doc["set"] == "realdesigns":
            by_design[doc["design"]].append(doc)
    print(
        f"\n{'realdesigns form':<34}{'kind':<8}{'F1 ex':>7}{'F1 none':>9}{'>=0.9 right':>13}  not found when taught"
    )
    for design, docs in by_design.items():
        taught_doc = next(d for d in docs if "rendering acroform" in d["source"])
        parsed = parse_bytes((CORPUS / taught_doc["path"]).read_bytes(), "t.pdf")
        taught, dropped, _ = _taught(parsed, taught_doc["fields"])
        for doc in docs:
            if doc is taught_doc:
                continue
            kind = "scan" if "rendering scan" in doc["source"] else "flat"
            parsed = parse_bytes((CORPUS / doc["path"]).read_bytes(), "r.pdf")
            names = doc["field_names"]
            ex, sure = _score(
                doc["fields"],
                read_with_examples(parsed, names, file_name="r.pdf", examples=[("e", taught)]),
                names,
                f"{design.split('/')[-1]}/{kind}",
            )
            none, _ = _score(doc["fields"], extract_fields(parsed, names, file_name="r.pdf"), names)
            short = design.split("/")[-1][:32]
            print(
                f"{short:<34}{kind:<8}{ex.f1:>7.3f}{none.f1:>9.3f}{f'{sum(sure)}/{len(sure)}':>13}  {','.join(dropped) or '-'}"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=3, help="later PDFs per design")
    parser.add_argument("--scans", type=int, default=1, help="scans and phone photos each per design")
    parser.add_argument("--untaught", type=int, default=10, help="documents of untaught designs")
    parser.add_argument("--examples", type=int, default=100, help="examples in the cost run")
    parser.add_argument("--real", action="store_true", help="also the realdesigns corpus (OCRs 6 scans)")
    parser.add_argument("--errors", action="store_true", help="print every field example reading missed")
    args = parser.parse_args(argv)
    print(f"load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())} on {os.cpu_count()} cores")
    examples, _ = designs_bench(args.people, args.scans)
    untaught_bench(examples, args.untaught)
    taught_docs = [parse_bytes(_pdf_bytes(render(d, 90 + i)[0]), "x.pdf") for d in DESIGNS for i in range(2)]
    untaught_docs = [
        parse_bytes(data, "x.pdf")
        for n, name in enumerate(list(HELD_OUT_DESIGNS) * 2)
        for data, suffix, _ in [render_synthetic(name, random.Random(f"cost-doc:{n}"))]
        if suffix == "pdf"
    ]
    cost_bench(examples, args.examples, {"taught designs": taught_docs, "untaught designs": untaught_docs})
    if args.real:
        real_bench()
    if args.errors:
        print("\nmisses with examples (where, field, truth, read, confidence, example):")
        for where, name, truth, read in ERRORS:
            print(
                f"  {where:<34}{name:<20}{truth!r:<28}{read.value!r:<28}{read.confidence:.3f} {read.example_id}"
            )
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
