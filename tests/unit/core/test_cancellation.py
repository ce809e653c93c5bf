"""A loop that checks `raise_if_cancelled` stops even when something it awaits swallowed the cancel."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from core.infra.cancellation import raise_if_cancelled


async def _swallowing() -> None:
    # What redis-py's asyncio client sometimes does with a cancel thrown into a command in flight.
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.sleep(10)


async def test_a_swallowed_cancel_still_stops_a_checking_loop() -> None:
    rounds = 0

    async def loop() -> None:
        nonlocal rounds
        while True:
            raise_if_cancelled()
            rounds += 1
            await _swallowing()

    task = asyncio.ensure_future(loop())
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout=2)
    assert rounds == 1


async def test_a_task_not_cancelled_runs_on() -> None:
    raise_if_cancelled()
    await asyncio.sleep(0)
    raise_if_cancelled()
