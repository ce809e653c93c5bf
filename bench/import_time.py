"""What a new task actor imports before its first step, beyond Ray itself.

Runs `python -X importtime -c "import ray; <ours>"` in a fresh interpreter `--runs` times for each
chain below, and prints the median of the cumulative import time of our part (every top-level
import after `import ray`), its wall time beyond a bare `import ray`, and the modules that cost the
most (mean cumulative time over the runs). The chains:

- the task actor's module (`actors.hosts`, where `TaskActor` is defined): what Ray imports to
  create the actor;
- the first step: that, plus what `actors.runtime.runtime()` imports on the first `run` (the
  runner and the tool registry), which a dedicated task waits for before its first model call.

Run from the repository root: `.venv/bin/python bench/import_time.py [--runs 7] [--top 15]`.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "import ray"
CHAINS = {
    "task actor module": "import ray; import actors.hosts",
    "first step": "import ray; import actors.hosts; import actors.runner; import tools.builtin",
}
#: One line of `-X importtime`: self and cumulative microseconds, then the name indented by level.
LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)")


@dataclass
class Run:
    wall: float
    #: Cumulative seconds of the top-level imports after `import ray`.
    ours: float
    #: Cumulative seconds per module imported after `import ray`.
    modules: dict[str, float]


def measure(statement: str) -> Run:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - started
    rows = [(int(m[2]) / 1e6, len(m[3]) // 2, m[4]) for m in map(LINE.match, done.stderr.splitlines()) if m]
    # Children are printed before their parent: what follows Ray's own top-level line is ours.
    after = next(i for i, (_, level, name) in enumerate(rows) if level == 0 and name == "ray") + 1
    ours = rows[after:]
    return Run(
        wall=wall,
        ours=sum(cumulative for cumulative, level, _ in ours if level == 0),
        modules={name: cumulative for cumulative, _, name in ours},
    )


def report(label: str, runs: list[Run], baseline_wall: float, top: int) -> None:
    ours = statistics.median(r.ours for r in runs)
    wall = statistics.median(r.wall for r in runs) - baseline_wall
    print(
        f"{label}: {ours:.3f} s cumulative import beyond `import ray` (median of {len(runs)}), "
        f"wall {wall:+.3f} s against a bare `import ray`"
    )
    totals: dict[str, float] = defaultdict(float)
    for run in runs:
        for name, cumulative in run.modules.items():
            totals[name] += cumulative / len(runs)
    for name, cumulative in sorted(totals.items(), key=lambda item: -item[1])[:top]:
        print(f"  {cumulative * 1000:8.1f} ms  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    baseline = [measure(BASELINE) for _ in range(args.runs)]
    baseline_wall = statistics.median(r.wall for r in baseline)
    print(
        f"bare `import ray`: wall {baseline_wall:.3f} s (median of {args.runs}, interpreter start included)"
    )
    for label, statement in CHAINS.items():
        report(label, [measure(statement) for _ in range(args.runs)], baseline_wall, args.top)
    print(f"load average {os.getloadavg()[0]:.1f} after")


if __name__ == "__main__":
    main()
