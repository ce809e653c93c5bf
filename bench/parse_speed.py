"""Parse throughput in pages per second: our PDF engine against pymupdf4llm, on the same files.

    python bench/parse_speed.py [--corpus ../shared/corpus] [--task-pages 16]

Ours is parse + merge + Markdown (what a parse request does). It runs in this process, then as
Ray tasks on a local Ray instance with two CPUs: one task at a time (1 worker) and two at a time
(2 workers), alternating, best of --trials runs each. Work is cut into tasks of about
--task-pages pages: a long PDF is split into page ranges (merged in order afterwards), short ones
share a task. pymupdf4llm.to_markdown runs in this process, one file after the other. Every
engine is warmed up first (imports, models), so the figures are steady-state throughput.

The machine may be shared, so the run starts by measuring how much two processes can gain at all
right now (the same CPU-bound loop in one and in two processes); compare the 2-worker speed-up
with that ceiling.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

#: (file name, bytes, page count) of each PDF.
Files = list[tuple[str, bytes, int]]
#: A task's work: (file index, first page, last page) ranges.
Units = list[tuple[int, int, int]]
#: Wall-clock seconds, and CPU seconds of every process involved (this one and the Ray workers).
Timing = tuple[float, float]


def parse_units(files: dict[int, tuple[str, bytes]], units: Units, threads: int) -> tuple[list[Any], float]:
    """The documents of `units`, and the CPU seconds this worker spent on them."""
    from extraction.formats.engines import parse_bytes
    from extraction.formats.ocr import set_ocr_threads

    # OCR uses as many threads as the task has CPUs, as the worker pool configures it.
    set_ocr_threads(threads)
    cpu = time.process_time()
    documents = [parse_bytes(files[i][1], files[i][0], first_page=a, last_page=b) for i, a, b in units]
    return documents, time.process_time() - cpu


def plan(files: Files, task_pages: int) -> list[Units]:
    """Tasks of about `task_pages` pages: long files in ranges, short files packed together."""
    tasks: list[Units] = []
    current: Units = []
    size = 0
    for index, (_, _, pages) in enumerate(files):
        for first in range(1, pages + 1, task_pages):
            last = min(first + task_pages - 1, pages)
            if current and size + last - first + 1 > task_pages:
                tasks.append(current)
                current, size = [], 0
            current.append((index, first, last))
            size += last - first + 1
    if current:
        tasks.append(current)
    return tasks


def run_ours_inline(files: Files) -> Timing:
    from extraction.formats.engines import parse_bytes
    from extraction.formats.markdown import to_markdown

    start, cpu = time.perf_counter(), time.process_time()
    for name, data, _ in files:
        to_markdown(parse_bytes(data, name))
    return time.perf_counter() - start, time.process_time() - cpu


def run_ours_ray(files: Files, tasks: list[Units], cpus_per_task: int) -> Timing:
    import ray

    from extraction.formats.engines import merge_documents
    from extraction.formats.markdown import to_markdown

    remote = ray.remote(num_cpus=cpus_per_task)(parse_units)
    start, cpu = time.perf_counter(), time.process_time()
    refs = []
    for units in tasks:
        used = {i: (files[i][0], files[i][1]) for i, _, _ in units}
        refs.append(remote.remote(used, units, cpus_per_task))
    parts: dict[int, list[Any]] = {}
    worker_cpu = 0.0
    for units, (documents, spent) in zip(tasks, ray.get(refs), strict=True):
        worker_cpu += spent
        for (index, _, _), document in zip(units, documents, strict=True):
            parts.setdefault(index, []).append(document)
    for index in sorted(parts):
        to_markdown(merge_documents(parts[index]))
    return time.perf_counter() - start, time.process_time() - cpu + worker_cpu


def run_pymupdf4llm(files: Files) -> Timing:
    import pymupdf4llm

    from extraction.formats.pdf_geometry import load_pymupdf

    pymupdf = load_pymupdf()
    start, cpu = time.perf_counter(), time.process_time()
    for _, data, _ in files:
        quiet = contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO())
        with pymupdf.open(stream=data, filetype="pdf") as doc, quiet[0], quiet[1]:
            pymupdf4llm.to_markdown(doc)
    return time.perf_counter() - start, time.process_time() - cpu


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def parallel_ceiling(n: int = 10_000_000) -> float:
    """Speed-up two processes get over one on a CPU-bound loop, on this machine, right now."""
    start = time.perf_counter()
    _spin(n)
    _spin(n)
    one = time.perf_counter() - start
    with multiprocessing.Pool(2) as pool:
        start = time.perf_counter()
        pool.map(_spin, [n, n])
        two = time.perf_counter() - start
    return one / two


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--corpus", type=Path, default=Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    )
    parser.add_argument("--task-pages", type=int, default=16, help="pages per Ray task")
    parser.add_argument("--rounds", type=int, default=3, help="passes over the corpus for our engine")
    parser.add_argument("--trials", type=int, default=2, help="runs of each Ray set-up; the best counts")
    parser.add_argument("--skip-pymupdf4llm", action="store_true")
    args = parser.parse_args()

    import ray

    from extraction.formats.pdf_geometry import load_pymupdf

    pymupdf = load_pymupdf()
    files: Files = []
    for path in sorted(args.corpus.glob("**/*.pdf")):
        data = path.read_bytes()
        with pymupdf.open(stream=data, filetype="pdf") as doc:
            files.append((path.name, data, doc.page_count))
    corpus_pages = sum(pages for _, _, pages in files)
    print(f"{len(files)} PDFs, {corpus_pages} pages from {args.corpus}")
    ours = files * args.rounds
    ours_pages = corpus_pages * args.rounds
    tasks = plan(ours, args.task_pages)
    print(f"ours: {args.rounds} passes, {len(tasks)} Ray tasks; pymupdf4llm: 1 pass")
    ceiling = parallel_ceiling()
    print(f"CPU headroom now: 2 processes run a CPU-bound loop {ceiling:.2f}x as fast as 1")

    warm = files[:1]
    results: list[tuple[str, int, Timing]] = []
    run_ours_inline(warm)
    results.append(("ours, in-process (no Ray)", ours_pages, run_ours_inline(ours)))

    # Ray runs its workers at nice 15; on a shared machine they would then measure the neighbours'
    # load rather than the engine, while this process and pymupdf4llm run at normal priority.
    os.environ.setdefault("RAY_worker_niceness", "0")
    # address="local": a private instance, never a cluster some other process started here.
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        logging_level=logging.ERROR,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(REPO)}},
    )
    try:
        # Start both workers and import the engine in each.
        warm_remote = ray.remote(num_cpus=1)(parse_units)
        first = {0: (files[0][0], files[0][1])}
        ray.get([warm_remote.remote(first, [(0, 1, 1)], 1) for _ in range(4)])
        # Alternate the two set-ups and keep each one's best run, so neither pays for warming the
        # workers' caches or for a burst of load from other processes.
        best: dict[int, Timing] = {1: (float("inf"), 0.0), 2: (float("inf"), 0.0)}
        for _ in range(args.trials):
            for workers in (1, 2):
                best[workers] = min(best[workers], run_ours_ray(ours, tasks, cpus_per_task=3 - workers))
        results.append(("ours, Ray, 1 worker", ours_pages, best[1]))
        results.append(("ours, Ray, 2 workers", ours_pages, best[2]))
    finally:
        ray.shutdown()

    if not args.skip_pymupdf4llm:
        run_pymupdf4llm(warm)
        results.append(("pymupdf4llm.to_markdown, 1 process", corpus_pages, run_pymupdf4llm(files)))

    print()
    print(f"{'engine':<38} {'pages':>6} {'seconds':>9} {'pages/s':>9} {'CPU s':>8} {'pages/CPU s':>12}")
    rate: dict[str, float] = {}
    for label, pages, (seconds, cpu) in results:
        rate[label] = pages / seconds
        print(f"{label:<38} {pages:>6} {seconds:>9.2f} {rate[label]:>9.1f} {cpu:>8.2f} {pages / cpu:>12.1f}")
    one, two = rate["ours, Ray, 1 worker"], rate["ours, Ray, 2 workers"]
    print()
    print(f"2 workers / 1 worker: {two / one:.2f}x (machine ceiling now: {ceiling:.2f}x)")
    if "pymupdf4llm.to_markdown, 1 process" in rate:
        other = rate["pymupdf4llm.to_markdown, 1 process"]
        print(f"ours, 1 worker / pymupdf4llm: {one / other:.1f}x")
        print(f"ours, in-process / pymupdf4llm: {rate['ours, in-process (no Ray)'] / other:.1f}x")
    print("pages/CPU s counts the CPU time of every process involved, so other load hardly moves it.")


if __name__ == "__main__":
    main()
