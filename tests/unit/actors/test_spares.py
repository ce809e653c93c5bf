"""Which launches may take a warm spare (actors.launcher), and the spares on their way (actors.spares)."""

from __future__ import annotations

from actors.launcher import _relaunch
from actors.spares import SPARE_PREFIX, Counted, Recent, Warming, spare_name, target
from core.infra.ids import parse_iso
from core.tasks import Task
from tests.support.task_records import task_spec

CHANGED = "2026-01-01T00:00:10.000Z"


def _task(launched_ms: int | None, status: str = "running") -> Task:
    spec = task_spec()
    raw = {} if launched_ms is None else {"launched_at": str(launched_ms)}
    return Task(spec=spec, status=status, updated_at=CHANGED, raw=raw)


def test_a_first_run_and_a_resume_may_take_a_spare() -> None:
    changed_ms = int(parse_iso(CHANGED).timestamp() * 1000)
    assert not _relaunch(_task(None, "pending"))
    # Its last run was launched before it paused (the pause changed it since).
    assert not _relaunch(_task(changed_ms - 5000, "waiting_for_input"))


def test_a_launch_nothing_has_happened_since_goes_to_its_own_actor() -> None:
    changed_ms = int(parse_iso(CHANGED).timestamp() * 1000)
    # Launched after its last change: that actor may still be starting; a spare would run beside it.
    assert _relaunch(_task(changed_ms + 1))


def test_spares_on_their_way_count_until_they_arrive_or_time_out() -> None:
    warming = Warming(seconds=60)
    warming.add("n1")
    warming.add("n1")
    warming.add("n2")
    assert (warming.count("n1"), warming.count("n2"), warming.count("n3")) == (2, 1, 0)
    warming.done("n1")
    assert warming.count("n1") == 1
    stale = Warming(seconds=0)
    stale.add("n1")
    assert stale.count("n1") == 0


def test_spare_names_are_distinct_and_prefixed() -> None:
    names = {spare_name() for _ in range(100)}
    assert len(names) == 100 and all(n.startswith(SPARE_PREFIX) for n in names)


def test_a_node_keeps_its_floor_until_a_burst_asks_for_more() -> None:
    # Few launches: the floor. A burst: its size, within the bound and the node's free slots.
    assert target(floor=2, bound=8, demand=1, free_slots=30) == 2
    assert target(floor=2, bound=8, demand=5, free_slots=30) == 5
    assert target(floor=2, bound=8, demand=50, free_slots=30) == 8
    assert target(floor=2, bound=8, demand=50, free_slots=3.5) == 3
    # The floor holds even on a full node (a spare holds no slot while idle).
    assert target(floor=2, bound=8, demand=50, free_slots=0) == 2
    assert target(floor=0, bound=8, demand=0, free_slots=30) == 0


def test_demand_counts_the_recent_launches_per_node() -> None:
    demand = Recent(seconds=60)
    for _ in range(3):
        demand.add("n1")
    assert (demand.count("n1"), demand.count("n2")) == (3, 0)
    assert Recent(seconds=0).count("n1") == 0


def test_busy_spares_count_up_and_down_per_node() -> None:
    busy = Counted()
    busy.add("n1")
    busy.add("n1")
    busy.add("n2")
    busy.done("n1")
    busy.done("n2")
    assert (busy.count("n1"), busy.count("n2"), busy.count("n3")) == (1, 0, 0)
    # A count never goes below nothing (a run that ends twice, as seen from two callbacks).
    busy.done("n2")
    assert busy.count("n2") == 0
