"""Time per page of a scan, parse + field extraction, for a baseline commit and this tree, in one run.

    python -m bench.scan_page_time [--baseline e1df6db] [--docs 6] [--rounds 3] [--threads 1]

The baseline commit is checked out in a temporary `git worktree` (removed at the end). Each code
runs in its own long-lived worker process (PYTHONPATH = its tree), warmed up on one document first
(imports, OCR models), then both are given the same scanned documents in turn: per round and per
document, baseline then current or current then baseline, alternating, so load that comes and goes
on a shared machine falls on both alike. Documents: the first `--docs` / 2 of `realforms/` (real
scanned forms) and of the intake set's scans (images, image-only PDFs), by sorted id, each with
its manifest's field names. A worker reports wall and CPU seconds of `parse_bytes` then
`extract_fields` per document; the table gives per-page medians and means of both codes side by
side. Timings on a busy machine are noisy: read the CPU columns, and retake on a quiet one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_BASELINE = "e1df6db"


def _worker(threads: int) -> None:
    """Serve timing requests (one JSON line each on stdin) with the `extraction` of PYTHONPATH."""
    # Results go on a private copy of stdout; anything the libraries print goes to stderr.
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    from extraction.fields import extract_fields
    from extraction.formats.engines import parse_bytes
    from extraction.formats.ocr import set_ocr_threads

    set_ocr_threads(threads)
    for line in sys.stdin:
        request = json.loads(line)
        path = Path(request["path"])
        data = path.read_bytes()
        wall, cpu = time.perf_counter(), time.process_time()
        document = parse_bytes(data, path.name)
        parse_wall, parse_cpu = time.perf_counter() - wall, time.process_time() - cpu
        extract_fields(document, request["fields"], file_name=path.name)
        reply = {
            "pages": max(len(document.pages), 1),
            "wall": time.perf_counter() - wall,
            "cpu": time.process_time() - cpu,
            "parse_wall": parse_wall,
            "parse_cpu": parse_cpu,
        }
        out.write(json.dumps(reply) + "\n")


class Worker:
    """One code's worker process."""

    def __init__(self, tree: Path, threads: int) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", "--threads", str(threads)],
            cwd=tree,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def time(self, path: Path, fields: list[str]) -> dict[str, float]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"path": str(path), "fields": fields}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"worker exited ({self.process.wait()}) on {path.name}")
        reply: dict[str, float] = json.loads(line)
        return reply

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


@contextmanager
def baseline_tree(commit: str) -> Iterator[Path]:
    """`commit` checked out in a temporary git worktree, removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="scan-page-time-")) / "tree"
    subprocess.run(
        ["git", "-C", str(REPO), "worktree", "add", "--detach", "--quiet", str(folder), commit], check=True
    )
    try:
        yield folder
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(folder)], check=False)
        os.rmdir(folder.parent)


def scanned_documents(corpus: Path, count: int) -> list[tuple[Path, list[str]]]:
    """The first `count` / 2 real forms and intake scans (the rest from realforms if too few)."""
    from bench.corpus_quality import SCAN, layout_kind, load_manifest

    manifest = sorted(load_manifest(corpus), key=lambda d: d["id"])
    forms = [d for d in manifest if d["set"] == "realforms"]
    intake = [d for d in manifest if d["set"] == "intake" and layout_kind(corpus / d["path"]) == SCAN]
    half = count // 2
    chosen = intake[:half] + forms[: count - min(half, len(intake))]
    return [(corpus / d["path"], list(d["field_names"])) for d in chosen]


def summary(samples: list[dict[str, float]]) -> dict[str, float]:
    per_page = {key: [s[key] / s["pages"] for s in samples] for key in ("wall", "cpu", "parse_cpu")}
    result = {f"{key} median": statistics.median(values) for key, values in per_page.items()}
    result.update({f"{key} mean": statistics.fmean(values) for key, values in per_page.items()})
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, help="git commit to compare with")
    parser.add_argument("--docs", type=int, default=6, help="scanned documents (half realforms, half intake)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="OCR threads of each worker")
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args.threads)
        return
    sys.path.insert(0, str(REPO))
    from bench.corpus_quality import DEFAULT_CORPUS

    corpus = args.corpus or DEFAULT_CORPUS
    documents = scanned_documents(corpus, args.docs)
    head = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain"], capture_output=True, text=True)
    current_label = f"current ({head}{' + edits' if dirty.stdout.strip() else ''})"
    print(f"{len(documents)} scanned documents x {args.rounds} rounds; load average {os.getloadavg()}")
    with baseline_tree(args.baseline) as tree:
        workers = {
            f"baseline ({args.baseline})": Worker(tree, args.threads),
            current_label: Worker(REPO, args.threads),
        }
        try:
            names = list(workers)
            for worker in workers.values():
                worker.time(*documents[0])  # warm-up: imports and OCR models, not timed
            samples: dict[str, list[dict[str, float]]] = {name: [] for name in names}
            turn = 0
            for _ in range(args.rounds):
                for path, fields in documents:
                    order = names if turn % 2 == 0 else names[::-1]
                    turn += 1
                    for name in order:
                        samples[name].append(workers[name].time(path, fields))
        finally:
            for worker in workers.values():
                worker.close()
    table = {name: summary(values) for name, values in samples.items()}
    rows = list(next(iter(table.values())))
    print(f"\nseconds per page{'':14}" + "".join(f"{name:>28}" for name in names))
    for row in rows:
        label = row.replace("parse_cpu", "cpu, parse only").replace("wall", "wall, parse+extract")
        label = label if "parse" in label else label.replace("cpu", "cpu, parse+extract")
        print(f"{label:30}" + "".join(f"{table[name][row]:>28.3f}" for name in names))
    base, now = (table[name]["cpu median"] for name in names)
    print(f"\nCPU per page, current / baseline (medians): {now / base:.2f}; load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
