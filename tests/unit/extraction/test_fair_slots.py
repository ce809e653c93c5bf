"""The worker pool's slots: a freed slot goes to the waiting document that holds the fewest."""

from __future__ import annotations

import asyncio

import pytest

from extraction.jobs.slots import FairSlots

pytestmark = pytest.mark.unit


async def _start(slots: FairSlots, owner: str, order: list[str], release: asyncio.Event) -> None:
    async with slots.hold(owner):
        order.append(owner)
        await release.wait()


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_a_small_document_goes_before_the_rest_of_a_long_ones_ranges() -> None:
    slots = FairSlots(2)
    order: list[str] = []
    gates = {name: asyncio.Event() for name in ("long-1", "long-2", "long-3", "long-4", "small")}
    tasks = [asyncio.create_task(_start(slots, "long", order, gates[f"long-{i}"])) for i in (1, 2, 3, 4)]
    await _settle()
    tasks.append(asyncio.create_task(_start(slots, "small", order, gates["small"])))
    await _settle()
    assert order == ["long", "long"] and slots.in_use == 2
    # The long document's first range ends: its two other ranges waited first, but the small
    # document holds no slot, so it goes next.
    gates["long-1"].set()
    await _settle()
    assert order == ["long", "long", "small"]
    for gate in gates.values():
        gate.set()
    await asyncio.gather(*tasks)
    assert order.count("long") == 4 and slots.in_use == 0


async def test_ties_go_to_the_longest_waiting() -> None:
    slots = FairSlots(1)
    order: list[str] = []
    first = asyncio.Event()
    release = asyncio.Event()
    release.set()
    holder = asyncio.create_task(_start(slots, "a", order, first))
    await _settle()
    waiting = [asyncio.create_task(_start(slots, name, order, release)) for name in ("b", "c", "d")]
    await _settle()
    first.set()
    await asyncio.gather(holder, *waiting)
    assert order == ["a", "b", "c", "d"]


async def test_a_cancelled_waiter_gives_up_its_place_and_leaks_no_slot() -> None:
    slots = FairSlots(1)
    order: list[str] = []
    gate = asyncio.Event()
    release = asyncio.Event()
    release.set()
    holder = asyncio.create_task(_start(slots, "a", order, gate))
    await _settle()
    cancelled = asyncio.create_task(_start(slots, "b", order, release))
    later = asyncio.create_task(_start(slots, "c", order, release))
    await _settle()
    cancelled.cancel()
    await _settle()
    gate.set()
    await asyncio.gather(holder, later)
    assert cancelled.cancelled() and order == ["a", "c"] and slots.in_use == 0


async def test_a_waiter_cancelled_as_it_is_granted_hands_the_slot_on() -> None:
    slots = FairSlots(1)
    order: list[str] = []
    gate = asyncio.Event()
    release = asyncio.Event()
    release.set()
    holder = asyncio.create_task(_start(slots, "a", order, gate))
    await _settle()
    granted_then_cancelled = asyncio.create_task(_start(slots, "b", order, release))
    later = asyncio.create_task(_start(slots, "c", order, release))
    await _settle()
    gate.set()
    await asyncio.sleep(0)  # "a" releases and grants "b" its slot; "b" has not run yet
    granted_then_cancelled.cancel()
    await asyncio.gather(holder, later)
    assert order == ["a", "c"] and slots.in_use == 0


def test_a_pool_needs_a_slot() -> None:
    with pytest.raises(ValueError):
        FairSlots(0)
