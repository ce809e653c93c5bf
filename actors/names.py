"""The Ray names of the runtime's actors: its namespace, task actors and pooled hosts, and finding them.

Kept apart from the launcher so that whatever only looks actors up (the reconciler's reaping, the
scheduler, the webhook dispatcher, the service's start) does not import the task runtime itself.
"""

from __future__ import annotations

import ray

#: Ray namespace of every named actor of ours (Serve replicas live in "serve").
NAMESPACE = "agentry"
#: Prefix of a dedicated task actor's name; the task id follows.
TASK_ACTOR_PREFIX = "task:"
#: Prefix of a warm spare task actor's name (actors.spares); a random id follows.
SPARE_PREFIX = "spare:"
#: Prefix of a pooled host's name; its node id and its index on the node follow.
HOST_PREFIX = "taskhost:"


def actor_name(task_id: str) -> str:
    return f"{TASK_ACTOR_PREFIX}{task_id}"


def host_name(node_id: str, index: int) -> str:
    return f"{HOST_PREFIX}{node_id}:{index}"


def _named(prefix: str) -> list[str]:
    named: list[dict[str, str]] = ray.util.list_named_actors(all_namespaces=True)
    return [a["name"] for a in named if a["namespace"] == NAMESPACE and a["name"].startswith(prefix)]


def task_actor_names() -> list[str]:
    """Dedicated task actors in the cluster, alive or still waiting for a task slot."""
    return _named(TASK_ACTOR_PREFIX)


def host_names() -> list[str]:
    """The pooled hosts in the cluster."""
    return _named(HOST_PREFIX)


def count_task_actors() -> int:
    """Task actor processes: each task's own, and the warm spares (idle, or running a task)."""
    return len(task_actor_names()) + len(_named(SPARE_PREFIX))
