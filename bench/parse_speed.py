"""Parse throughput in pages per second: our PDF engine against pymupdf4llm, on the same files.

    python bench/parse_speed.py [--corpus /work/shared/corpus] [--chunk-pages 8]

Ours is parse + merge + Markdown (what a parse request does), run as Ray tasks (one CPU each) on
a local Ray instance with two CPUs: first one task at a time (1 worker), then two at a time
(2 workers), PDFs longer than --chunk-pages split into page ranges parsed in parallel and merged
in order. pymupdf4llm.to_markdown runs in this process, one file after the other. Every engine
is warmed up first (imports, models), so the figures are steady-state throughput.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


#: (file name, bytes, page count) of each PDF.
Files = list[tuple[str, bytes, int]]


def parse_chunk(data: bytes, name: str, first: int, last: int, threads: int) -> Any:
    from extraction.engines import parse_bytes
    from extraction.ocr import set_ocr_threads

    # OCR uses as many threads as the task has CPUs, as the worker pool configures it.
    set_ocr_threads(threads)
    return parse_bytes(data, name, first_page=first, last_page=last)


def ranges(pages: int, chunk: int) -> list[tuple[int, int]]:
    return [(start, min(start + chunk - 1, pages)) for start in range(1, pages + 1, chunk)]


def run_ours_inline(files: Files) -> float:
    from extraction.engines import parse_bytes
    from extraction.markdown import to_markdown

    start = time.perf_counter()
    for name, data, _ in files:
        to_markdown(parse_bytes(data, name))
    return time.perf_counter() - start


def run_ours_ray(files: Files, chunk: int, cpus_per_task: int) -> float:
    import ray

    from extraction.engines import merge_documents
    from extraction.markdown import to_markdown

    remote = ray.remote(num_cpus=cpus_per_task)(parse_chunk)
    start = time.perf_counter()
    pending = []
    for name, data, pages in files:
        ref = ray.put(data)
        pending.append(
            [remote.remote(ref, name, first, last, cpus_per_task) for first, last in ranges(pages, chunk)]
        )
    for parts in pending:
        to_markdown(merge_documents(ray.get(parts)))
    return time.perf_counter() - start


def run_pymupdf4llm(files: Files) -> float:
    import pymupdf4llm

    from extraction.pdf_geometry import load_pymupdf

    pymupdf = load_pymupdf()
    start = time.perf_counter()
    for _, data, _ in files:
        with (
            pymupdf.open(stream=data, filetype="pdf") as doc,
            contextlib.redirect_stdout(io.StringIO()),
            contextlib.redirect_stderr(io.StringIO()),
        ):
            pymupdf4llm.to_markdown(doc)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=Path("/work/shared/corpus"))
    parser.add_argument("--chunk-pages", type=int, default=8, help="pages per Ray task for long PDFs")
    parser.add_argument("--skip-pymupdf4llm", action="store_true")
    args = parser.parse_args()

    import ray

    from extraction.pdf_geometry import load_pymupdf

    pymupdf = load_pymupdf()
    paths = sorted(args.corpus.glob("**/*.pdf"))
    files: Files = []
    for path in paths:
        data = path.read_bytes()
        with pymupdf.open(stream=data, filetype="pdf") as doc:
            files.append((path.name, data, doc.page_count))
    total_pages = sum(pages for _, _, pages in files)
    print(f"{len(files)} PDFs, {total_pages} pages from {args.corpus}")

    warm = [files[0]]
    results: list[tuple[str, float]] = []

    run_ours_inline(warm)
    results.append(("ours, in-process (no Ray)", run_ours_inline(files)))

    ray.init(
        num_cpus=2,
        include_dashboard=False,
        logging_level=logging.ERROR,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(REPO)}},
    )
    try:
        # Start and warm both workers (imports of PyMuPDF and of our engine).
        remote = ray.remote(num_cpus=1)(parse_chunk)
        ray.get([remote.remote(files[0][1], files[0][0], 1, 1, 1) for _ in range(4)])
        results.append(("ours, Ray, 1 worker", run_ours_ray(files, args.chunk_pages, cpus_per_task=2)))
        results.append(("ours, Ray, 2 workers", run_ours_ray(files, args.chunk_pages, cpus_per_task=1)))
    finally:
        ray.shutdown()

    if not args.skip_pymupdf4llm:
        run_pymupdf4llm(warm)
        results.append(("pymupdf4llm.to_markdown, 1 process", run_pymupdf4llm(files)))

    print()
    print(f"{'engine':<38} {'seconds':>9} {'pages/s':>9}")
    for label, seconds in results:
        print(f"{label:<38} {seconds:>9.2f} {total_pages / seconds:>9.1f}")
    rate = {label: total_pages / seconds for label, seconds in results}
    one, two = rate["ours, Ray, 1 worker"], rate["ours, Ray, 2 workers"]
    print()
    print(f"2 workers / 1 worker: {two / one:.2f}x")
    if "pymupdf4llm.to_markdown, 1 process" in rate:
        other = rate["pymupdf4llm.to_markdown, 1 process"]
        print(f"ours 1 worker / pymupdf4llm: {one / other:.2f}x")
        print(f"ours in-process / pymupdf4llm: {rate['ours, in-process (no Ray)'] / other:.2f}x")


if __name__ == "__main__":
    main()
