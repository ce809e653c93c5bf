"""OCR character error rate on the corpus receipts, against their own text lines.

Each SROIE receipt of the corpus comes with the text lines a person typed for it
(`receipts/NNN.csv`: `x1,y1,...,x4,y4,text`, four corners from the top left). That is a ground
truth for the OCR stage itself, before any field is read: this bench OCRs each receipt as the image
engine does (upright, deskewed, `ocr_image`, lines placed back on the page as it was), puts both
the truth lines and ours in the same reading order (visual rows top to bottom, pieces left to
right), and prints

- CER: Levenshtein distance between the two page texts / characters of the truth, case aside
  (the typists wrote some receipts in capitals whatever the print, and the field scorer ignores
  case too);
- CER without spaces: the same with all whitespace removed (word spacing apart);
- lines read exactly: share of truth lines found verbatim (whitespace collapsed) in one of our rows;
- seconds of OCR per receipt (deskew and OCR only; the machine's load shows beside the figure).

Usage: python -m bench.ocr_cer [--corpus DIR] [--limit N] [--worst K]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.corpus_quality import DEFAULT_CORPUS

#: Two boxes stand in one row when their vertical overlap is at least this share of the shorter.
ROW_OVERLAP = 0.5


@dataclass(frozen=True)
class TextBox:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float


def read_truth(csv_path: Path) -> list[TextBox]:
    """The receipt's typed lines (the text may itself hold commas: it is everything after the
    eighth one)."""
    boxes: list[TextBox] = []
    for line in csv_path.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split(",", 8)
        if len(parts) < 9 or not parts[8].strip():
            continue
        xs = [float(v) for v in parts[0:8:2]]
        ys = [float(v) for v in parts[1:8:2]]
        boxes.append(TextBox(parts[8].strip(), min(xs), min(ys), max(xs), max(ys)))
    return boxes


def rows(boxes: list[TextBox]) -> list[str]:
    """The boxes' texts as visual rows, top to bottom, each row's pieces left to right."""
    grouped: list[list[TextBox]] = []
    for box in sorted(boxes, key=lambda b: (b.y0 + b.y1) / 2):
        for row in reversed(grouped[-3:]):
            if any(_same_row(member, box) for member in row):
                row.append(box)
                break
        else:
            grouped.append([box])
    return [" ".join(b.text for b in sorted(row, key=lambda b: b.x0)) for row in grouped]


def _same_row(a: TextBox, b: TextBox) -> bool:
    overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
    shorter = min(a.y1 - a.y0, b.y1 - b.y0)
    return shorter > 0 and overlap >= ROW_OVERLAP * shorter


def _collapsed(text: str) -> str:
    return " ".join(text.upper().split())


@dataclass
class PageScore:
    name: str
    truth_chars: int
    errors: int
    truth_chars_nospace: int
    errors_nospace: int
    lines: int
    lines_exact: int
    seconds: float


def score_page(name: str, truth: list[TextBox], ours: list[TextBox], seconds: float) -> PageScore:
    from rapidfuzz.distance import Levenshtein

    truth_text = "\n".join(_collapsed(r) for r in rows(truth))
    our_rows = [_collapsed(r) for r in rows(ours)]
    our_text = "\n".join(our_rows)
    bare_truth, bare_ours = "".join(truth_text.split()), "".join(our_text.split())
    exact = sum(1 for b in truth if any(_collapsed(b.text) in row for row in our_rows))
    return PageScore(
        name,
        len(truth_text),
        Levenshtein.distance(truth_text, our_text),
        len(bare_truth),
        Levenshtein.distance(bare_truth, bare_ours),
        len(truth),
        exact,
        seconds,
    )


def ocr_receipt(path: Path) -> tuple[list[TextBox], float]:
    """Our OCR lines of one image, on the page as it was, and the seconds deskew and OCR took."""
    from PIL import Image, ImageOps

    from extraction.formats.deskew import deskewed, turned_back
    from extraction.formats.ocr import ocr_image

    with Image.open(path) as opened:
        image = (ImageOps.exif_transpose(opened) or opened).convert("RGB")
    started = time.perf_counter()
    level, angle = deskewed(image)
    lines = turned_back(ocr_image(level), angle, image.width, image.height)
    seconds = time.perf_counter() - started
    return [TextBox(ln.text, ln.box.x0, ln.box.y0, ln.box.x1, ln.box.y1) for ln in lines], seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--limit", type=int, help="only the first N receipts")
    parser.add_argument("--worst", type=int, default=5, help="list the K receipts with the highest CER")
    args = parser.parse_args(argv)

    images = sorted((args.corpus / "receipts").glob("*.jpg"))
    pages: list[PageScore] = []
    for image in images[: args.limit]:
        truth_csv = image.with_suffix(".csv")
        if not truth_csv.exists():
            continue
        ours, seconds = ocr_receipt(image)
        pages.append(score_page(image.name, read_truth(truth_csv), ours, seconds))
    if not pages:
        print("no receipt with a .csv of its lines")
        return 1
    chars = sum(p.truth_chars for p in pages)
    bare = sum(p.truth_chars_nospace for p in pages)
    lines = sum(p.lines for p in pages)
    print(f"receipts: {len(pages)}; truth characters: {chars}; truth lines: {lines}")
    print(f"CER:                {sum(p.errors for p in pages) / chars:.4f}")
    print(f"CER without spaces: {sum(p.errors_nospace for p in pages) / bare:.4f}")
    print(f"lines read exactly: {sum(p.lines_exact for p in pages) / lines:.4f}")
    timings = [p.seconds for p in pages]
    print(f"seconds per receipt: mean {statistics.mean(timings):.2f}, max {max(timings):.2f}")
    for page in sorted(pages, key=lambda p: -p.errors / max(p.truth_chars, 1))[: args.worst]:
        print(f"  {page.name}: CER {page.errors / max(page.truth_chars, 1):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
