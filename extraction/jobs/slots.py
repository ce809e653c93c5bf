"""Worker slots shared fairly between documents: the one that holds the fewest goes next.

A pool of N slots handed out first come, first served lets one long document queue all its page
ranges at once and keep every worker busy while a one-page receipt that arrived a moment later
waits for all of them. Here a freed slot goes to the waiting document that holds the fewest slots
(ties: the one that has waited longest), so a long document spreads over the workers that are free
and a small one takes the next free worker.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field


@dataclass(order=True)
class _Waiter:
    arrival: int
    owner: Hashable = field(compare=False)
    granted: asyncio.Future[None] = field(compare=False)


class FairSlots:
    """`size` slots; `hold(owner)` waits for one. Bound to the event loop it is first used in."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("a pool needs at least one slot")
        self.size = size
        self._held: Counter[Hashable] = Counter()
        self._waiting: list[_Waiter] = []
        self._arrivals = itertools.count()

    @property
    def in_use(self) -> int:
        return sum(self._held.values())

    @asynccontextmanager
    async def hold(self, owner: Hashable) -> AsyncIterator[None]:
        await self._acquire(owner)
        try:
            yield
        finally:
            self._release(owner)

    async def _acquire(self, owner: Hashable) -> None:
        if self.in_use < self.size and not self._waiting:
            self._held[owner] += 1
            return
        waiter = _Waiter(next(self._arrivals), owner, asyncio.get_running_loop().create_future())
        self._waiting.append(waiter)
        try:
            await waiter.granted
        except asyncio.CancelledError:
            if waiter in self._waiting:
                self._waiting.remove(waiter)
            elif waiter.granted.done() and not waiter.granted.cancelled():
                # Granted in the same moment it was cancelled: hand the slot on.
                self._release(owner)
            raise

    def _release(self, owner: Hashable) -> None:
        self._held[owner] -= 1
        if self._held[owner] <= 0:
            del self._held[owner]
        self._grant()

    def _grant(self) -> None:
        while self._waiting and self.in_use < self.size:
            waiter = min(self._waiting, key=lambda w: (self._held[w.owner], w.arrival))
            self._waiting.remove(waiter)
            self._held[waiter.owner] += 1
            waiter.granted.set_result(None)
