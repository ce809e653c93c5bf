"""Honouring a cancellation that a library swallowed.

redis-py's asyncio client (8.1) can swallow the `CancelledError` thrown into a command that is in
flight: the command returns and the cancelled task runs on. A renewal loop (a task's lease, a
lock) hit that way renewed its key forever, so the runner awaiting it never returned and its task
held its lease and its place on the node long after it ended (issue 20). Python keeps the request
on the task (`Task.cancelling()`), so a loop that checks it after each store call still stops.
"""

from __future__ import annotations

import asyncio


def raise_if_cancelled() -> None:
    """Raise `CancelledError` when the running task was asked to stop, even if the request was lost."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
