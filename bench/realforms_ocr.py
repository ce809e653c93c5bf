"""What the OCR reads exactly on the corpus's real scanned forms (`realforms/`), before any field.

For each asked (form, question) pair with a text answer, the form is parsed as the service parses
it (`extraction.formats.engines.parse_bytes`) and its text taken line by line. Question and answer
are compared with that text normalised as the scorer does for realforms (NFKC, case folded,
whitespace collapsed, whitespace beside punctuation dropped), and the bench prints

- questions read exactly: the question's text is found verbatim in one OCR line, or across two
  lines that follow each other;
- answers read exactly: the same for the answer (an answer may run over several lines, so the
  whole page text in reading order is searched too);
- answers read in part or not at all: the best fuzzy share (`rapidfuzz.fuzz.partial_ratio`)
  of the answer in its nearest OCR line, under 50 counted as not read;
- each of those split by the OCR score of the line that reads the answer best: at least
  `PRINT_SCORE` is mostly typed print, below it mostly handwriting, stamps and faint copies
  (the recogniser gives no other sign of handwriting).

Usage: python -m bench.realforms_ocr [--corpus DIR] [--parse-cache DIR] [--half even|odd]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.corpus_quality import DEFAULT_CORPUS, _cached, load_manifest
from bench.corpus_score import normalize_text, without_space_by_punctuation

#: OCR line score from which a line is taken for typed print.
PRINT_SCORE = 0.9
#: Fuzzy share (0..100) under which an answer counts as not read at all.
NOT_READ_SHARE = 50.0


def normal(text: str) -> str:
    return without_space_by_punctuation(normalize_text(text))


@dataclass
class Tally:
    pairs: int = 0
    exact: int = 0
    partial: int = 0
    missing: int = 0
    shares: list[float] = field(default_factory=list)

    def line(self, name: str) -> str:
        n = max(self.pairs, 1)
        mean = sum(self.shares) / len(self.shares) if self.shares else 0.0
        return (
            f"{name:<34} {self.pairs:5d}  exact {self.exact / n:6.1%}  in part {self.partial / n:6.1%}  "
            f"not read {self.missing / n:6.1%}  mean share {mean:5.1f}"
        )


def best_place(wanted: str, page: str, spans: list[tuple[int, int, float]]) -> tuple[float, float]:
    """(fuzzy share 0..100, OCR score) of the page text that reads `wanted` best: the share of
    `wanted` aligned in `page`, and the lowest score of the lines that alignment covers."""
    from rapidfuzz import fuzz

    found = fuzz.partial_ratio_alignment(wanted, page) if wanted and page else None
    if found is None:
        return 0.0, 0.0
    scores = [score for start, end, score in spans if start < found.dest_end and found.dest_start < end]
    return found.score, min(scores, default=0.0)


def measure(manifest: list[dict[str, Any]], corpus: Path, parse: Any) -> dict[str, Tally]:
    from extraction.fields.reading.text_lines import text_units

    tallies = {k: Tally() for k in ("questions", "answers", "answers, print", "answers, other")}
    for doc in manifest:
        document = parse(corpus / doc["path"])
        units = text_units(document)
        normal_lines = [normal(u.text) for u in units]
        pairs = [without_space_by_punctuation(f"{a} {b}") for a, b in itertools.pairwise(normal_lines)]
        # The page in reading order, each line's span in it (spaces beside punctuation dropped
        # line by line, so the spans hold).
        spans: list[tuple[int, int, float]] = []
        position = 0
        for text, unit in zip(normal_lines, units, strict=True):
            spans.append((position, position + len(text), unit.confidence))
            position += len(text) + 1
        page = " ".join(normal_lines)
        for name in doc["field_names"]:
            question = normal(name)
            _count(
                tallies["questions"],
                any(question in t for t in normal_lines) or any(question in p for p in pairs),
                best_place(question, page, spans)[0],
            )
            value = doc["fields"].get(name)
            if not isinstance(value, str) or not normal(value):
                continue
            wanted = normal(value)
            share, score = best_place(wanted, page, spans)
            exact = wanted in page or any(wanted in p for p in pairs)
            for key in ("answers", "answers, print" if score >= PRINT_SCORE else "answers, other"):
                _count(tallies[key], exact, share)
    return tallies


def _count(tally: Tally, exact: bool, share: float) -> None:
    tally.pairs += 1
    tally.shares.append(100.0 if exact else share)
    if exact:
        tally.exact += 1
    elif share >= NOT_READ_SHARE:
        tally.partial += 1
    else:
        tally.missing += 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--parse-cache", type=Path, help="DEV: keep parsed documents here between runs")
    parser.add_argument("--half", choices=("even", "odd"), help="only the even / odd forms by sorted id")
    parser.add_argument("--limit", type=int, help="only the first N forms")
    args = parser.parse_args(argv)

    from extraction.formats.engines import parse_bytes

    def parse(path: Path) -> Any:
        return parse_bytes(path.read_bytes(), path.name)

    reader = _cached(parse, args.parse_cache) if args.parse_cache is not None else parse
    manifest = sorted(
        (d for d in load_manifest(args.corpus) if d["set"] == "realforms"), key=lambda d: d["id"]
    )
    if args.half:
        manifest = manifest[0 if args.half == "even" else 1 :: 2]
    manifest = manifest[: args.limit] if args.limit else manifest
    tallies = measure(manifest, args.corpus, reader)
    print(f"forms: {len(manifest)}; print = OCR line score >= {PRINT_SCORE}")
    for name, tally in tallies.items():
        print(tally.line(name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
