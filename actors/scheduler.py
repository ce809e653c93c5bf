"""The scheduler: a named, detached actor that runs the reconciler at start-up and periodically.

Admission itself is an atomic Redis script run by whoever submits or releases a task; the scheduler
is the safety net that restarts tasks whose runner died and admits what a crash left pending.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import ray

from actors.launcher import NAMESPACE
from actors.reconciler import reconcile_once
from actors.runtime import runtime

log = logging.getLogger(__name__)

SCHEDULER_NAME = "scheduler"


@ray.remote(num_cpus=0)
class Scheduler:
    def __init__(self) -> None:
        self._loop: asyncio.Task[None] | None = None
        self.passes = 0

    async def start(self) -> bool:
        if self._loop is None or self._loop.done():
            self._loop = asyncio.create_task(self._run())
        return True

    async def reconcile(self) -> dict[str, int]:
        rt = runtime()
        return await reconcile_once(rt.redis, rt.settings)

    async def _run(self) -> None:
        rt = runtime()
        while True:
            try:
                await reconcile_once(rt.redis, rt.settings)
                self.passes += 1
            except Exception:
                log.exception("reconcile pass failed; trying again")
            await asyncio.sleep(rt.settings.reconcile_seconds)


def start_scheduler() -> Any:
    """Get or create the scheduler and make sure its loop runs."""
    handle = Scheduler.options(  # type: ignore[attr-defined]
        name=SCHEDULER_NAME, namespace=NAMESPACE, lifetime="detached", get_if_exists=True
    ).remote()
    ray.get(handle.start.remote())
    return handle
