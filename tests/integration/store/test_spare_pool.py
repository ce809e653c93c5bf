"""The list of a node's idle spare task actors, against a real Redis: each spare goes to one task,
the list never holds more than its bound, and a spare leaves it only while no launch has taken it."""

from __future__ import annotations

import asyncio
import uuid

import pytest
import redis.asyncio as aioredis

from actors import spares

pytestmark = [pytest.mark.integration, pytest.mark.store]


async def test_each_idle_spare_goes_to_exactly_one_launch(store: aioredis.Redis) -> None:
    node = f"node-{uuid.uuid4().hex}"
    names = [spares.spare_name() for _ in range(5)]
    assert [await spares.park(store, node, name, 5) for name in names] == [True] * 5
    taken = await asyncio.gather(*(spares.take(store, node) for _ in range(40)))
    handed = [name for name in taken if name is not None]
    assert sorted(handed) == sorted(names)
    assert await spares.idle_count(store, node) == 0


async def test_the_list_holds_no_more_than_its_bound(store: aioredis.Redis) -> None:
    node = f"node-{uuid.uuid4().hex}"
    parked = await asyncio.gather(*(spares.park(store, node, spares.spare_name(), 2) for _ in range(10)))
    assert parked.count(True) == 2
    assert await spares.idle_count(store, node) == 2
    # Once one is taken, a spare coming back from its task finds room again.
    assert await spares.take(store, node) is not None
    assert await spares.park(store, node, spares.spare_name(), 2)
    assert not await spares.park(store, node, spares.spare_name(), 2)


async def test_a_taken_spare_cannot_leave(store: aioredis.Redis) -> None:
    node = f"node-{uuid.uuid4().hex}"
    idle, promised = spares.spare_name(), spares.spare_name()
    for name in (idle, promised):
        assert await spares.park(store, node, name, 2)
    assert await spares.take(store, node) == idle
    # The taken one's run is on its way: it must stay; the other one may go.
    assert not await spares.leave(store, node, idle)
    assert await spares.leave(store, node, promised)
    assert await spares.take(store, node) is None


async def test_an_idle_spare_above_the_floor_leaves_and_one_of_the_floor_stays(store: aioredis.Redis) -> None:
    node = f"node-{uuid.uuid4().hex}"
    names = [spares.spare_name() for _ in range(4)]
    for name in names:
        assert await spares.park(store, node, name, 8)
    # A burst is over: spares leave while the list holds more than the floor (2), then stay.
    assert [await spares.leave(store, node, name, keep=2) for name in names] == [True, True, None, None]
    assert await spares.idle_count(store, node) == 2
    # Taken by a launch: not on the list, whatever it keeps (its run is coming).
    taken = await spares.take(store, node)
    assert taken == names[2]
    assert await spares.leave(store, node, taken, keep=0) is False
    assert await spares.leave(store, node, names[3], keep=0) is True
