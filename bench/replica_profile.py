"""Where a Serve replica's CPU goes under load: py-spy samples of its process, summed by leaf frame.

Used by `bench/load.py --profile`: `record()` samples the replicas while a phase runs, `summary()`
prints the share of samples by part of the stack (Serve's replica machinery, uvicorn, Starlette and
FastAPI, redis-py, our code, the event loop) and the leaf functions that took the most.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

#: Which part of the stack a leaf frame belongs to, by the path of its file (first match wins).
PARTS = (
    ("ray/serve", "Serve's replica machinery"),
    ("ray/", "Ray core (metrics, actor calls)"),
    ("uvicorn", "uvicorn (HTTP parsing)"),
    ("h11", "uvicorn (HTTP parsing)"),
    ("httptools", "uvicorn (HTTP parsing)"),
    ("fastapi", "FastAPI (routing, dependencies, encoding)"),
    ("starlette", "Starlette"),
    ("pydantic", "pydantic"),
    ("redis", "redis-py"),
    ("/serve/", "our edge (serve/)"),
    ("/core/", "our store code (core/)"),
    ("asyncio", "asyncio event loop"),
    ("json", "json"),
    ("logging", "logging"),
)


IDLE = ("select (", "poll (", "wait (", "_wait_for_tstate_lock", "Thread.run (", "Worker.main_loop (")
#: Functions (or our modules) whose share is counted inclusively: a sample counts if any frame of its
#: stack is one.
INCLUSIVE = (
    "_direct_ingress_asgi",
    "_determine_http_route",
    "_wrap_request",
    "_start_request",
    "record_ingress_request_metrics",
    "_call_http_entrypoint",
    "handle_request_with_rejection",
    "/serve/middleware.py",
    "/serve/body_guard.py",
    "/serve/task_poll.py",
    "/serve/proxy_middleware.py",
    "solve_dependencies",
    "authenticate",
    "principal_of",
    "load_task",
    "serialize_response",
    "jsonable_encoder",
    "execute_command",
    "run_in_threadpool",
    "render (",
    "httptools_impl",
)


def record(pids: list[int], seconds: float, out_dir: Path) -> list[subprocess.Popen[bytes]]:
    """Start py-spy on each pid for `seconds` (collapsed stacks); wait on the returned processes."""
    spy = str(Path(sys.executable).with_name("py-spy"))
    procs = []
    for pid in pids:
        out = out_dir / f"replica-{pid}.txt"
        command = [spy, "record", "--pid", str(pid), "--duration", str(int(seconds)), "--rate", "50"]
        command += ["--format", "raw", "--output", str(out), "--nonblocking"]
        procs.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    return procs


def _part(frame: str) -> str:
    for needle, name in PARTS:
        if needle in frame:
            return name
    return "other"


def summary(out_dir: Path, top: int = 15) -> str:
    parts: Counter[str] = Counter()
    leaves: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for path in out_dir.glob("replica-*.txt"):
        for line in path.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                continue
            frames = stack.split(";")
            # Idle threads are not CPU: waiting in epoll or on a lock, or in native code under a
            # thread's or Ray's worker loop with no Python frame below (Ray's own C++ threads).
            leaf = frames[-1]
            if any(idle in leaf for idle in IDLE):
                continue
            n = int(count)
            total += n
            parts[_part(leaf)] += n
            leaves[leaf] += n
            for name in INCLUSIVE:
                if any(name in frame for frame in frames):
                    inclusive[name] += n
    if not total:
        return "no samples (py-spy needs ptrace rights on the replica processes)"
    lines = [f"{total} busy samples; share by part of the stack (leaf frame):"]
    lines += [f"  {share / total:6.1%}  {name}" for name, share in parts.most_common()]
    lines.append("share of samples inside (inclusive):")
    lines += [f"  {inclusive[name] / total:6.1%}  {name}" for name in INCLUSIVE if inclusive[name]]
    lines.append(f"top {top} leaf functions:")
    lines += [f"  {n / total:6.1%}  {leaf[:110]}" for leaf, n in leaves.most_common(top)]
    return "\n".join(lines)
