"""Finding the pooled host that runs a task (hosts are per node; a task's host is picked at launch)."""

from __future__ import annotations

from typing import Any

import ray

from actors.names import NAMESPACE, host_names


def host_tasks() -> dict[str, list[str]]:
    """Each pooled host's name and the tasks it runs now; a host that died meanwhile is left out."""
    found: dict[str, list[str]] = {}
    for name in host_names():
        try:
            found[name] = ray.get(ray.get_actor(name, namespace=NAMESPACE).tasks.remote(), timeout=30)
        except (ValueError, ray.exceptions.RayError):
            continue
    return found


def host_running(task_id: str) -> Any:
    """The handle of the host running the task, or None when no host runs it now."""
    for name, running in host_tasks().items():
        if task_id in running:
            try:
                return ray.get_actor(name, namespace=NAMESPACE)
            except ValueError:
                return None
    return None
