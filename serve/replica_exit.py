"""How an ingress replica learns that it is leaving: a `serve deploy` replacing it, or a downscale.

Serve tells a replica's code nothing when it starts to stop it: the controller marks it STOPPING,
waits for its ongoing requests (held `async=false` runs among them) up to
`graceful_shutdown_timeout_s`, and only then calls the deployment's destructor. A held run would so
wait out its whole budget on a replica that is going away. So while a replica holds runs, it asks
the Serve controller for its own state every few seconds; STOPPING (or no longer being listed) makes
it answer its held runs `draining`, as a full stop does (`serve.waiters`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)

#: Serve's controller, as Ray names it (ray.serve._private.constants).
SERVE_CONTROLLER_NAME = "SERVE_CONTROLLER_ACTOR"
SERVE_NAMESPACE = "serve"
#: Replica states of Serve's instance details (the REST API's schema) that mean "going away".
LEAVING_STATES = frozenset({"STOPPING", "STOPPED", "PENDING_MIGRATION"})

LeaveProbe = Callable[[], Awaitable[bool]]


def replica_state(details: dict[str, Any], app: str, deployment: str, replica_id: str) -> str | None:
    """This replica's state in Serve's instance details, or None when it is not listed."""
    application = (details.get("applications") or {}).get(app) or {}
    entry = (application.get("deployments") or {}).get(deployment) or {}
    for replica in entry.get("replicas") or []:
        if replica.get("replica_id") == replica_id:
            state = replica.get("state")
            # An enum when the details were not serialised; its value is the REST API's text.
            return str(getattr(state, "value", state))
    return None


def is_leaving(state: str | None) -> bool:
    return state is None or state in LEAVING_STATES


def replica_leave_probe() -> LeaveProbe | None:
    """A probe that says whether this Serve replica is leaving; None outside a Serve replica."""
    from ray import serve
    from ray.serve.exceptions import RayServeException

    try:
        context = serve.get_replica_context()
    except RayServeException:
        return None
    app, deployment, replica_id = context.app_name, context.deployment, context.replica_id.unique_id

    async def leaving() -> bool:
        import ray

        controller = ray.get_actor(SERVE_CONTROLLER_NAME, namespace=SERVE_NAMESPACE)
        details = await controller.get_serve_instance_details.remote()
        return is_leaving(replica_state(details, app, deployment, replica_id))

    return leaving
