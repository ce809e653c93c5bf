"""Starting a local Ray for `agentry up` on a busy machine: a longer wait, one retry, a plain message.

Ray gives a new node 30 s to register with its GCS (a fixed wait in `ray._private.node`), then fails
the start with "The current node timed out during startup ... or the GCS has become overloaded".
On a loaded two-core machine that happens to one start in three. Here the node's registration is
awaited up to `NODE_START_SECONDS`; a start that still fails that way is cleaned up and tried once
more; a second failure is reported as a `RayStartError` that says what to do, with no traceback.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from core.infra.backoff import backoff_seconds
from core.infra.errors import AgentryError

log = logging.getLogger(__name__)

#: How long a new node may take to register with its GCS (Ray's own wait is 30 s).
NODE_START_SECONDS = 120.0
#: Starts tried before giving up: the first, and one retry.
ATTEMPTS = 2
#: First wait between a failed start and the next one; it doubles (jittered).
RESTART_WAIT_SECONDS = 1.0
#: Ray's words for a node or GCS too slow to come up.
SLOW_START_SIGNS = ("timed out during startup", "has become overloaded", "failed to connect to gcs")


class RayStartError(AgentryError):
    """Ray's local node did not come up, twice: the machine is too busy right now."""


def is_slow_start(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(sign in text for sign in SLOW_START_SIGNS)


def start_local_ray(
    init: Callable[..., Any],
    shutdown: Callable[[], None],
    init_args: dict[str, Any],
    *,
    node_start_seconds: float = NODE_START_SECONDS,
    attempts: int = ATTEMPTS,
) -> Any:
    """`init(**init_args)` with the longer node wait; a slow start is retried once, then reported."""
    for attempt in range(1, attempts + 1):
        before = _children()
        try:
            with patient_node_lookup(node_start_seconds):
                return init(**init_args)
        except Exception as exc:
            if not is_slow_start(exc):
                raise
            shutdown()
            # The failed node's processes are ours and would hold CPU and ports through the retry.
            _stop(_children() - before)
            if attempt < attempts:
                log.warning(
                    "Ray's node did not come up within %.0f s; starting it once more", node_start_seconds
                )
                # A loaded machine gets a moment before the next start (core.infra.backoff).
                time.sleep(backoff_seconds(attempt, base=RESTART_WAIT_SECONDS, cap=4 * RESTART_WAIT_SECONDS))
                continue
            raise RayStartError(slow_start_message(node_start_seconds, attempts)) from None
    raise AssertionError("unreachable")


def slow_start_message(node_start_seconds: float, attempts: int) -> str:
    load = ""
    with contextlib.suppress(OSError):
        load = f" (load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"
    return (
        f"Ray did not start: its node did not come up within {node_start_seconds:.0f} s, "
        f"{attempts} times. The machine is too busy{load}. Wait for other heavy programs "
        "(test runs, builds) to finish or stop them, then run `make run` again. "
        "`ray status` shows whether a Ray of yours is still running."
    )


@contextlib.contextmanager
def patient_node_lookup(seconds: float) -> Iterator[None]:
    """Make Ray's lookup of a starting node keep trying for `seconds` before it reports "not found".

    Ray's start loop calls `ray._private.services.get_node` until it answers or 30 s have passed;
    each call here waits (polling) until the node is registered or the longer deadline is reached,
    so Ray's loop ends on success or at that deadline.
    """
    import ray._private.services as services

    original = services.get_node
    deadline = time.monotonic() + seconds

    def get_node(*args: Any, **kwargs: Any) -> Any:
        return poll_until(lambda: original(*args, **kwargs), deadline)

    services.get_node = get_node
    try:
        yield
    finally:
        services.get_node = original


def poll_until(lookup: Callable[[], Any], deadline: float, interval: float = 0.5) -> Any:
    """`lookup()` until it stops raising RuntimeError (Ray's "not found yet") or the deadline passes."""
    while True:
        try:
            return lookup()
        except RuntimeError:
            if time.monotonic() + interval > deadline:
                raise
            time.sleep(interval)


def _children() -> set[int]:
    """This process's child processes (Linux; elsewhere none are known and none are stopped)."""
    me = str(os.getpid())
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError):
            # The command name (field 2) may hold spaces; the fields after its ")" are plain.
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if fields[1] == me:
                found.add(int(stat.parent.name))
    return found


def _stop(pids: set[int], grace_seconds: float = 5.0) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_seconds
    remaining = set(pids)
    while remaining and time.monotonic() < deadline:
        remaining = {pid for pid in remaining if not _reaped(pid)}
        time.sleep(0.1)
    for pid in remaining:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        _reaped(pid)


def _reaped(pid: int) -> bool:
    try:
        done, _status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return done == pid
