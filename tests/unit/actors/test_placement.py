"""Where task work goes (actors.placement): workers first and evenly, the head only when they are full."""

from __future__ import annotations

from collections import Counter

from actors.placement import NodeSlots, RecentPlaces, hosts_on, least_full, pick_node

HEAD = NodeSlots("head", head=True, total=32, free=32)


def _worker(name: str, total: float, free: float | None = None) -> NodeSlots:
    return NodeSlots(name, head=False, total=total, free=total if free is None else free)


def _place(nodes: list[NodeSlots], count: int) -> Counter[str]:
    """`count` launches from one process before Ray's view of the nodes changes (a burst)."""
    recent: Counter[str] = Counter()
    for _ in range(count):
        node = pick_node(nodes, recent)
        assert node is not None
        recent[node] += 1
    return recent


def test_a_burst_spreads_evenly_over_the_workers_and_spares_the_head() -> None:
    placed = _place([HEAD, _worker("w1", 64), _worker("w2", 64)], 40)
    assert placed == {"w1": 20, "w2": 20}


def test_the_head_takes_tasks_only_once_every_worker_is_full() -> None:
    placed = _place([HEAD, _worker("w1", 4), _worker("w2", 4)], 10)
    assert placed == {"w1": 4, "w2": 4, "head": 2}


def test_nodes_fill_in_proportion_to_their_slots() -> None:
    placed = _place([_worker("small", 8), _worker("large", 24)], 16)
    assert placed == {"small": 4, "large": 12}


def test_the_least_loaded_worker_goes_first() -> None:
    nodes = [HEAD, _worker("busy", 10, free=2), _worker("idle", 10, free=9)]
    assert pick_node(nodes, {}) == "idle"


def test_no_free_slot_anywhere_leaves_the_choice_to_ray() -> None:
    nodes = [NodeSlots("head", True, 2, 0), _worker("w1", 2, free=0)]
    assert pick_node(nodes, {}) is None
    assert pick_node(nodes, {"w1": 0}) is None
    # A pooled runner still needs a host: the least loaded node, a worker before the head.
    assert least_full(nodes, {}) == "w1"


def test_a_single_machine_is_a_head_alone() -> None:
    assert pick_node([HEAD], {}) == "head"
    # A cluster started without task slots: pooled runners still find a node.
    assert least_full([NodeSlots("head", True, 0, 0)], {}) == "head"


def test_hosts_per_node_follow_its_slots() -> None:
    assert [hosts_on(_worker("w", slots)) for slots in (0, 1, 16, 17, 32, 64)] == [1, 1, 1, 2, 2, 4]


def test_recent_places_expire() -> None:
    recent = RecentPlaces(seconds=0.0)
    recent.add("w1")
    assert recent.counts() == {}
    lasting = RecentPlaces(seconds=60.0)
    lasting.add("w1")
    lasting.add("w1")
    assert lasting.counts() == {"w1": 2}


def test_the_actors_placed_lately_are_counted_apart_from_the_runners_that_take_no_slot() -> None:
    # What a node's spares may grow to: its free slots less the actors of their own placed lately.
    recent = RecentPlaces(seconds=60.0)
    recent.add("w1")
    recent.add_pooled("w1")
    recent.add_pooled("w1")
    assert (recent.placed("w1"), recent.placed("w2")) == (1, 0)
    assert recent.counts() == {"w1": 3}
    assert RecentPlaces(seconds=0.0).placed("w1") == 0


def test_pooled_runners_count_until_their_run_returns() -> None:
    recent = RecentPlaces(seconds=0.0)
    recent.add_pooled("w1")
    recent.add_pooled("w1")
    recent.add_pooled("w2")
    assert recent.counts() == {"w1": 2, "w2": 1}
    recent.pooled_done("w1")
    recent.pooled_done("w2")
    assert recent.counts() == {"w1": 1}
    # Pooled runners fill a worker's slots like actors do: the next task goes to the other worker.
    nodes = [HEAD, _worker("w1", 2), _worker("w2", 2)]
    assert pick_node(nodes, {"w1": 2, "w2": 1}) == "w2"
    assert pick_node(nodes, {"w1": 2, "w2": 2}) == "head"
