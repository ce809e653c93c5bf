"""Warm spare task actors: idle `TaskActor` processes that a dedicated task is handed to, so that a
run or a resume does not wait for a new worker process and its imports (seconds on a busy 2-core
node, against milliseconds to hand over).

Each node keeps `spare_task_actors` of them (the floor) in a Redis list of their Ray names. A launch
pops one name (so each spare goes to exactly one task) and calls its `run`; a dedicated launch on a
node starts new spares there while the list is short of its target. The target follows demand: the
dedicated launches on the node in the last `DEMAND_SECONDS`, at least the floor, at most
`max_spare_task_actors` and the node's free task slots (`target`), so a burst of dedicated tasks is
not paced by cold starts: a launch that finds no idle spare waits for one (`actors.spare_queue`)
rather than starting a process of its own. When a spare's task pauses or ends, the actor puts itself back on its
node's list if there is room under that bound, else exits, so a paused task holds no process. An
idle spare above the floor leaves the list and exits after `SURGE_IDLE_SECONDS`; the floor's after
`SPARE_IDLE_SECONDS`.

A spare holds no task slot (Ray's `agentry_task_slot`): it belongs to no task while idle. A task
handed to one counts against its node's slots from its launch until its run returns, as this process
sees it, as a pooled runner does (`actors.placement.RecentPlaces`).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import deque
from typing import TYPE_CHECKING

from actors.names import SPARE_PREFIX
from core.infra import keys

if TYPE_CHECKING:
    import redis.asyncio as aioredis

#: An idle spare leaves its node's list and exits after this long.
SPARE_IDLE_SECONDS = 300.0
#: An idle spare leaves sooner while its node's list holds more than the floor: what a burst
#: started shrinks back once the burst is over.
SURGE_IDLE_SECONDS = 15.0
#: Dedicated launches on a node within this long count as its current demand for spares.
DEMAND_SECONDS = 10.0
#: How long a spare started by this process counts as on its way to its node's list.
WARMING_SECONDS = 30.0

#: KEYS: the node's list. ARGV: the spare's name, the list's bound, the list's TTL (ms).
#: Returns 1 when the spare is on the list, 0 when the list is full.
PARK = """
if redis.call('LLEN', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""

#: KEYS: the node's list. ARGV: the spare's name, the count the list keeps.
#: Returns 1 when the spare left the list, 0 when it is not on it (a launch took it), -1 when it
#: stays because the list holds no more than it keeps.
LEAVE = """
if not redis.call('LPOS', KEYS[1], ARGV[1]) then return 0 end
if redis.call('LLEN', KEYS[1]) <= tonumber(ARGV[2]) then return -1 end
redis.call('LREM', KEYS[1], 1, ARGV[1])
return 1
"""


def target(floor: int, bound: int, demand: int, free_slots: float) -> int:
    """How many spares a node keeps: its demand, within the bound and its free task slots, never
    below the floor (a spare only runs a task where a slot is free)."""
    return max(floor, min(bound, demand, int(free_slots)))


def spare_name() -> str:
    return f"{SPARE_PREFIX}{uuid.uuid4().hex}"


async def park(redis: aioredis.Redis, node_id: str, name: str, limit: int) -> bool:
    """Put an idle spare on its node's list; False when the list already holds `limit`."""
    # The list outlives no node for long: a node that is gone stops renewing it.
    ttl_ms = int(SPARE_IDLE_SECONDS * 2 * 1000)
    return bool(await redis.eval(PARK, 1, keys.spare_task_actors(node_id), name, limit, ttl_ms))


async def leave(redis: aioredis.Redis, node_id: str, name: str, *, keep: int = 0) -> bool | None:
    """Take an idle spare off its list unless the list holds no more than `keep` (None: it stays);
    False when a launch took it meanwhile (its run is coming)."""
    outcome = int(await redis.eval(LEAVE, 1, keys.spare_task_actors(node_id), name, keep))
    return None if outcome < 0 else bool(outcome)


async def take(redis: aioredis.Redis, node_id: str) -> str | None:
    """The name of an idle spare of the node, now off the list and promised to the caller."""
    name = await redis.lpop(keys.spare_task_actors(node_id))
    return str(name) if name is not None else None


async def idle_count(redis: aioredis.Redis, node_id: str) -> int:
    return int(await redis.llen(keys.spare_task_actors(node_id)))


class Recent:
    """Events of this process within the last `seconds`, per node (thread-safe)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._lock = threading.Lock()
        self._started: dict[str, deque[float]] = {}

    def count(self, node_id: str) -> int:
        cutoff = time.monotonic() - self.seconds
        with self._lock:
            started = self._started.get(node_id)
            if not started:
                return 0
            while started and started[0] < cutoff:
                started.popleft()
            return len(started)

    def add(self, node_id: str) -> None:
        with self._lock:
            self._started.setdefault(node_id, deque()).append(time.monotonic())


class Warming(Recent):
    """Spares this process started lately, per node, that may not be on their list yet."""

    def __init__(self, seconds: float = WARMING_SECONDS) -> None:
        super().__init__(seconds)

    def done(self, node_id: str) -> None:
        """A spare of the node reached its list (or gave up): it no longer counts as warming."""
        with self._lock:
            started = self._started.get(node_id)
            if started:
                started.popleft()


class Counted:
    """Things in progress per node, counted up and down (thread-safe: runs end on Ray's threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}

    def count(self, node_id: str) -> int:
        with self._lock:
            return self._counts.get(node_id, 0)

    def add(self, node_id: str) -> None:
        with self._lock:
            self._counts[node_id] = self._counts.get(node_id, 0) + 1

    def done(self, node_id: str) -> None:
        with self._lock:
            left = self._counts.get(node_id, 0) - 1
            if left > 0:
                self._counts[node_id] = left
            else:
                self._counts.pop(node_id, None)
