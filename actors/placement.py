"""Where task work runs: the node of each dedicated task actor, and the pooled hosts of each node.

Worker nodes first, the one with the largest share of free task slots first, so that task work
spreads evenly over the workers; the head only once every worker is full, since it also carries
Serve's controller, its proxy and the ingress replicas. A node's task slots are the custom resource
`agentry_task_slot` its `ray start` line gives it. Ray's view of free slots lags the actors being
placed (a burst of launches would all read the same view), so this process also counts the places
it handed out in the last few seconds. A pooled runner takes no Ray resource: it counts as taking
a slot of its node from its launch until its run returns, as this process sees it.

Pooled runners are coroutines in host actors pinned to their node: a node has one host per
`RUNNERS_PER_HOST` of its slots, created on its first task, so the hosts follow the nodes as the
cluster grows (a new node gets hosts on its first task) or shrinks (a lost node's hosts die with it,
and its tasks' leases lapse and the reconciler starts them again elsewhere).
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: Ray custom resource bounding live task actors per node (AGENTRY_MAX_LIVE_TASKS_PER_NODE).
TASK_SLOT_RESOURCE = "agentry_task_slot"
#: The resource Ray gives the head node only.
HEAD_RESOURCE = "node:__internal_head__"
#: Slots of a node per pooled host on it (a node has at least one host).
RUNNERS_PER_HOST = 16
#: How long a place this process handed out counts as taken, beyond Ray's view of the node.
RECENT_SECONDS = 5.0
#: How long one read of the nodes serves launches (a burst asks the GCS once, not per task).
NODES_TTL_SECONDS = 1.0


@dataclass(frozen=True)
class NodeSlots:
    node_id: str
    head: bool
    total: float
    free: float


def pick_node(nodes: Sequence[NodeSlots], recent: Mapping[str, int]) -> str | None:
    """The node for the next task: the worker with the largest share of free slots (less the places
    just handed out), else the head; None when no node has a free slot."""

    def room(node: NodeSlots) -> float:
        return node.free - recent.get(node.node_id, 0)

    for tier in ([n for n in nodes if not n.head], [n for n in nodes if n.head]):
        open_nodes = [n for n in tier if n.total > 0 and room(n) >= 1]
        if open_nodes:
            best = max(open_nodes, key=lambda n: (room(n) / n.total, -recent.get(n.node_id, 0), n.node_id))
            return best.node_id
    return None


def least_full(nodes: Sequence[NodeSlots], recent: Mapping[str, int]) -> str | None:
    """The node a pooled runner goes to when every node is full: the least loaded, workers first."""
    with_slots = [n for n in nodes if n.total > 0] or list(nodes)
    if not with_slots:
        return None
    best = max(
        with_slots,
        key=lambda n: (not n.head, (n.free - recent.get(n.node_id, 0)) / max(n.total, 1), n.node_id),
    )
    return best.node_id


def hosts_on(node: NodeSlots) -> int:
    return max(1, math.ceil(node.total / RUNNERS_PER_HOST))


class RecentPlaces:
    """Places this process handed out: dedicated ones lately, pooled ones until their run returns,
    per node (thread-safe: launches and run completions come from several threads)."""

    def __init__(self, seconds: float = RECENT_SECONDS) -> None:
        self.seconds = seconds
        self._lock = threading.Lock()
        self._placed: dict[str, deque[float]] = {}
        self._pooled: Counter[str] = Counter()

    def counts(self) -> dict[str, int]:
        cutoff = time.monotonic() - self.seconds
        with self._lock:
            for times in self._placed.values():
                while times and times[0] < cutoff:
                    times.popleft()
            counts = Counter({node: len(times) for node, times in self._placed.items() if times})
            counts.update(self._pooled)
            return {node: n for node, n in counts.items() if n > 0}

    def placed(self, node_id: str) -> int:
        """The dedicated actors handed the node lately (each takes a Ray slot once it starts)."""
        cutoff = time.monotonic() - self.seconds
        with self._lock:
            times = self._placed.get(node_id)
            return sum(1 for at in times if at >= cutoff) if times else 0

    def add(self, node_id: str) -> None:
        with self._lock:
            self._placed.setdefault(node_id, deque()).append(time.monotonic())

    def add_pooled(self, node_id: str) -> None:
        with self._lock:
            self._pooled[node_id] += 1

    def pooled_done(self, node_id: str) -> None:
        with self._lock:
            self._pooled[node_id] -= 1
            if self._pooled[node_id] <= 0:
                del self._pooled[node_id]


_nodes_read: tuple[float, list[NodeSlots]] = (-NODES_TTL_SECONDS, [])


def cluster_nodes() -> list[NodeSlots]:
    """Every live node with its task slots, total and free (Ray's view, from the GCS, at most
    `NODES_TTL_SECONDS` old: the places handed out since are in `RecentPlaces`)."""
    global _nodes_read
    read_at, nodes = _nodes_read
    if time.monotonic() - read_at < NODES_TTL_SECONDS:
        return nodes
    nodes = _read_nodes()
    _nodes_read = (time.monotonic(), nodes)
    return nodes


def _read_nodes() -> list[NodeSlots]:
    from ray._private.state import available_resources_per_node, total_resources_per_node

    totals = total_resources_per_node()
    free = available_resources_per_node()
    return [
        NodeSlots(
            node_id=node_id,
            head=HEAD_RESOURCE in resources,
            total=float(resources.get(TASK_SLOT_RESOURCE, 0)),
            free=float(free.get(node_id, {}).get(TASK_SLOT_RESOURCE, 0)),
        )
        for node_id, resources in totals.items()
    ]
