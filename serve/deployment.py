"""The Serve application: one FastAPI ingress deployment hosting /api/v1 and /api/v2."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

from ray import serve

from actors.scheduler import ensure_scheduler
from actors.webhook_dispatcher import ensure_webhook_dispatcher
from core.infra.settings import Settings
from serve.app import app
from serve.proxy_middleware import PROXY_ENV

log = logging.getLogger(__name__)

APP_NAME = "agentry"
#: Queued requests per caller beyond which Serve answers at once instead of queueing forever.
MAX_QUEUED_REQUESTS = 1000
#: docs/spec.md errors table: a refused request is a 429 whose `Retry-After` (whole seconds, never 0) says
#: when to try again; Serve answers it itself when the queue above is full.
BACKPRESSURE_RETRY_AFTER_SECONDS = 5
BACKPRESSURE: dict[str, Any] = {"status_code": 429, "retry_after_s": BACKPRESSURE_RETRY_AFTER_SECONDS}
#: Serve holds a stopping direct-ingress replica open this long (30 s by default, for a cloud load
#: balancer to deregister it). HAProxy on each node learns of the stop within a fraction of a second.
HAPROXY_DRAIN_SECONDS = "2"
#: Serve gives a starting (or reloading) HAProxy 30 s to take over its admin socket; a busy small
#: machine has been seen to need more, and a failed reload leaves HAProxy on its old replica list.
HAPROXY_START_SECONDS = "90"
#: Serve's flags that run a replica's user code and its handles' router on the replica's own event
#: loop (`AGENTRY_INGRESS_SAME_LOOP`); each defaults to a loop of its own.
SAME_LOOP_FLAGS = ("RAY_SERVE_RUN_USER_CODE_IN_SEPARATE_THREAD", "RAY_SERVE_RUN_ROUTER_IN_SEPARATE_LOOP")


def haproxy_launcher() -> str:
    """`agentry-haproxy` (serve/haproxy_launch.py), installed beside this Python on every node."""
    return str(Path(sys.executable).with_name("agentry-haproxy"))


def serve_env(settings: Settings) -> dict[str, str]:
    """Environment of Serve's controller (and so its proxies) and of the ingress replicas.

    Serve reads these flags when its processes start, so both must have them: the controller to
    start HAProxy instead of its Python proxy, the replicas to serve HTTP themselves.
    """
    env = dict(PROXY_ENV)
    # Set both ways, so the replicas never inherit another value from the environment of `ray start`.
    env |= dict.fromkeys(SAME_LOOP_FLAGS, "0" if settings.ingress_same_loop else "1")
    if settings.ingress == "haproxy":
        env |= {
            "RAY_SERVE_ENABLE_HA_PROXY": "1",
            "RAY_SERVE_HAPROXY_BINARY_PATH": haproxy_launcher(),
            "RAY_SERVE_DIRECT_INGRESS_MIN_DRAINING_PERIOD_S": HAPROXY_DRAIN_SECONDS,
            "RAY_SERVE_HAPROXY_STARTUP_TIMEOUT_S": HAPROXY_START_SECONDS,
        }
    return env


@serve.deployment(name="ingress", ray_actor_options={"num_cpus": 0})
@serve.ingress(app)
class Ingress:
    """Stateless HTTP edge; settings arrive through the replica's environment."""

    def __init__(self) -> None:
        # `serve deploy` runs no `agentry up` driver: the edge makes sure the scheduler and the
        # webhook dispatcher exist.
        ensure_scheduler()
        ensure_webhook_dispatcher()


def ingress_options(settings: Settings, env: dict[str, str]) -> dict[str, Any]:
    return {
        "num_replicas": settings.resolved_ingress_replicas,
        # Held `async=false` runs each occupy a slot for up to the sync budget.
        "max_ongoing_requests": settings.ingress_max_ongoing,
        "max_queued_requests": MAX_QUEUED_REQUESTS,
        "backpressure_config": BACKPRESSURE,
        # Longer than the sync budget, so a draining replica can answer its held requests.
        "graceful_shutdown_timeout_s": settings.sync_budget_seconds + 10,
        "ray_actor_options": {"num_cpus": 0, "runtime_env": {"env_vars": env | serve_env(settings)}},
        # Access lines carry paths and ids only; below INFO they are off, as the rest of our logs.
        "logging_config": {
            "log_level": settings.log_level,
            "enable_access_log": settings.log_level in ("DEBUG", "INFO"),
        },
    }


def deploy(settings: Settings, env: dict[str, str], *, local_ports: dict[str, str] | None = None) -> None:
    """`local_ports`: HAProxy's stats and metrics ports when this machine runs more than one service."""
    try:
        serve.start(
            http_options={
                "host": settings.host,
                "port": settings.port,
                "request_timeout_s": settings.sync_budget_seconds + 60,
            },
            # The proxies the controller starts answer a request cut off by a dying replica with a 503.
            controller_options={"runtime_env": {"env_vars": serve_env(settings) | (local_ports or {})}},
        )
    except TimeoutError:
        # serve.start waits a fixed 60 s for the proxies; on a busy machine HAProxy's manager, its
        # fallback proxy and HAProxy itself can take longer. They go on starting; the caller waits
        # for HTTP to answer (serve.service).
        log.warning("Serve's HTTP proxies are slow to start; waiting for them")
    serve.run(
        Ingress.options(**ingress_options(settings, env)).bind(),  # type: ignore[attr-defined]
        name=APP_NAME,
        route_prefix="/",
        blocking=False,
    )


application = Ingress.bind()  # type: ignore[attr-defined]
